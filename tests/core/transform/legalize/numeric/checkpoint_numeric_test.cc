// The gradient-checkpoint markers legalize to their argument: values pass through unchanged,
// tensors and tuples alike.
#include "core/transform/legalize/numeric/numeric_test_util.h"

namespace rxt::numeric {
namespace {

TEST(CheckpointNumeric, MarkersAreIdentities) {
  Array x = Random({3, 2}, DType::kFloat32, 1);
  EXPECT_TRUE(Near(RunOp("%x: Tensor((n, 2), float32)", "checkpoint_start(%x)", {x})[0], x, 0, 0));
  EXPECT_TRUE(Near(RunOp("%x: Tensor((n, 2), float32)", "checkpoint_end(%x)", {x})[0], x, 0, 0));
  Array y = Random({4}, DType::kFloat64, 2);
  std::vector<Array> out = RunFunction("%x: Tensor((n, 2), float32), %y: Tensor((4,), float64)",
                                       "%t = checkpoint_start((%x, %y))\n"
                                       "%u = checkpoint_end(%t)\n"
                                       "%r = %u",
                                       {x, y});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(Near(out[0], x, 0, 0));
  EXPECT_TRUE(Near(out[1], y, 0, 0));
}

}  // namespace
}  // namespace rxt::numeric
