// Legalized kernels whose loops ParallelizeLoops marked parallel, with just enough work to use
// the pool (the backend's threshold is 2^17 iterations): each has a parallel loop and equals the reference interpreter bit for bit on one and
// on two threads (the ops of the training steps of the MLP and of LeNet-5).
#include "cpu_test_util.h"
#include "rxt/ir/parser.h"
#include "rxt/ir/printer.h"
#include "rxt/ir/visitor.h"
#include "rxt/transform/passes.h"

namespace rxt::backend_cpu::testing {
namespace {

class ParallelLoopCounter : public StmtVisitor {
 public:
  void VisitFor(const ForNode& node) override {
    count += node.loop_kind == LoopKind::kParallel;
    StmtVisitor::VisitFor(node);
  }
  int count = 0;
};

struct Case {
  std::string signature;  // "%x: Tensor((64, 128), float32)) -> Tensor(...)"
  std::string call;
  std::vector<std::vector<int64_t>> shapes;  // every kernel parameter: inputs, then the output
};

void ExpectParallelAndAgreeing(const Case& c) {
  SCOPED_TRACE(c.call);
  std::string text = "def @main(" + c.signature + " {\n  %r = " + c.call + "\n  return %r\n}\n";
  IRModule module = RunPasses(ParseModule(text), {"LegalizeOps", "ParallelizeLoops"}, PassContext());
  std::string kernel_name;
  for (const IRModule::Entry& entry : module.entries()) {
    if (!entry.kernel) continue;
    kernel_name = entry.name;
    ParallelLoopCounter counter;
    counter.VisitKernel(*entry.kernel);
    EXPECT_GE(counter.count, 1) << PrintModule(module);
  }
  ASSERT_FALSE(kernel_name.empty());
  std::vector<ArgSpec> args;
  for (const auto& shape : c.shapes) args.push_back(ArgSpec::Tensor(shape, kF32));
  for (int threads : {1, 2}) {
    AgreeOptions options;
    options.threads = threads;
    ExpectAgree(PrintModule(module), kernel_name, args, options);
  }
}

TEST(ParallelizedOps, AgreeWithTheReferenceOnOneAndTwoThreads) {
  std::vector<Case> cases = {
      {"%a: Tensor((32, 64, 64), float32), %b: Tensor((64,), float32)) -> Tensor((32, 64, 64), float32)",
       "add(%a, %b)",
       {{32, 64, 64}, {64}, {32, 64, 64}}},
      {"%x: Tensor((128, 1024), float32)) -> Tensor((1024, 128), float32)",
       "permute_dims(%x, axes=[1, 0])",
       {{128, 1024}, {1024, 128}}},
      {"%x: Tensor((32, 6, 28, 28), float32)) -> Tensor((32, 6, 14, 14), float32)",
       "nn.max_pool2d(%x, pool_size=[2, 2], strides=[2, 2])",
       {{32, 6, 28, 28}, {32, 6, 14, 14}}},
      {"%dy: Tensor((32, 6, 14, 14), float32), %x: Tensor((32, 6, 28, 28), float32)) -> "
       "Tensor((32, 6, 28, 28), float32)",
       "nn.max_pool2d_backward(%dy, %x, pool_size=[2, 2], strides=[2, 2])",
       {{32, 6, 14, 14}, {32, 6, 28, 28}, {32, 6, 28, 28}}},
      {"%x: Tensor((32, 1024, 4), float32)) -> Tensor((32, 4), float32)",
       "sum(%x, axis=[1])",
       {{32, 1024, 4}, {32, 4}}},
      // Per-channel statistics (batch normalization's): the channel loop directly around the
      // reduction runs interchanged with it in tiles of 8 channels on each thread's share;
      // 37 channels leave a partial tile.
      {"%x: Tensor((32, 37, 8, 8), float32)) -> Tensor((37,), float32)",
       "sum(%x, axis=[0, 2, 3])",
       {{32, 37, 8, 8}, {37}}},
      {"%x: Tensor((32, 64, 8, 8), float32)) -> Tensor((64,), float32)",
       "variance(%x, axis=[0, 2, 3])",
       {{32, 64, 8, 8}, {64}}},
  };
  for (const Case& c : cases) ExpectParallelAndAgreeing(c);
}

}  // namespace
}  // namespace rxt::backend_cpu::testing
