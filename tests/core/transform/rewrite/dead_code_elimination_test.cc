// DeadCodeElimination at scale. What it removes and keeps is in the pass cases
// (tests/data/passes/DeadCodeElimination/).
#include <gtest/gtest.h>

#include <string>

#include "rxt/ir/parser.h"
#include "rxt/transform/passes.h"

namespace rxt {
namespace {

// Removing the last binding of a dead chain left the one before it unused: one walk over the
// function per link, quadratic (20,000 links: 2 * 10^8 bindings visited). Now one sweep.
TEST(DeadCodeElimination, LongDeadChainGoesInOneSweep) {
  const int n = 20000;
  std::string text = "def @main(%x: Tensor((4, 4), float32)) -> Tensor((4, 4), float32) {\n  dataflow {\n";
  std::string previous = "%x";
  for (int i = 0; i < n; ++i) {
    text += "    %a" + std::to_string(i) + " = add(" + previous + ", %x)\n";
    previous = "%a" + std::to_string(i);
  }
  text += "    %y = exp(%x)\n    output %y\n  }\n  return %y\n}\n";
  IRModule module = RunPasses(ParseModule(text), {"DeadCodeElimination"});
  const auto& blocks = module.GetFunction("main")->body->blocks;
  ASSERT_EQ(blocks.size(), 1u);
  ASSERT_EQ(blocks[0].bindings.size(), 1u);
  EXPECT_EQ(blocks[0].bindings[0].var->name, "y");
}

}  // namespace
}  // namespace rxt
