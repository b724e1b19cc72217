// FuseOps and FuseKernels on values used more than once, at a size where merging them without
// a bound cannot finish. What fuses with what is in the pass cases (tests/data/passes/FuseOps/
// and FuseKernels/); numeric checks of merged kernels in tests/plugins/backend_cpu/.
#include <gtest/gtest.h>

#include <string>

#include "rxt/ir/parser.h"
#include "rxt/ir/visitor.h"
#include "rxt/ir/op.h"
#include "rxt/transform/passes.h"

namespace rxt {
namespace {

// %a0 = add(%x, %x), %a1 = add(%a0, %a0)...: every value is used twice.
std::string SharedAddChain(int n) {
  std::string text = "def @main(%x: Tensor((4, 4), float32)) -> Tensor((4, 4), float32) {\n  dataflow {\n";
  std::string previous = "%x";
  for (int i = 0; i < n; ++i) {
    text += "    %a" + std::to_string(i) + " = add(" + previous + ", " + previous + ")\n";
    previous = "%a" + std::to_string(i);
  }
  return text + "    output " + previous + "\n  }\n  return " + previous + "\n}\n";
}

/// Counts the loads of a kernel as a tree (a load reached by two paths counts twice), giving
/// up past |limit|: an unbounded merge would make this walk exponential too.
class LoadCounter : public StmtVisitor {
 public:
  explicit LoadCounter(int limit) : limit_(limit) {}
  void VisitLoad(const LoadNode& node) override {
    if (++loads > limit_) throw std::runtime_error("too many loads");
    StmtVisitor::VisitLoad(node);
  }
  int loads = 0;

 private:
  int limit_;
};

/// The number of call bindings of @main.
size_t MainCalls(const IRModule& module) {
  size_t calls = 0;
  for (const BindingBlock& block : module.GetFunction("main")->body->blocks) {
    for (const Binding& binding : block.bindings) calls += binding.value->kind == ExprKind::kCall;
  }
  return calls;
}

// Each member read its producer twice and the producer was inlined at both loads: the merged
// expression doubled per member (22 members: 9 s and 2.4 GB; 256: out of memory). Now a group
// holds at most 128 kernel instances, so the chain becomes groups of 8 calls sharing one kernel.
TEST(FuseOps, SharedChainIsGroupedInBoundedGroups) {
  const int n = 256;
  PassContext context;
  context.verify_well_formed_after_each = true;
  IRModule module = RunPasses(ParseModule(SharedAddChain(n)), {"LegalizeOps", "FuseOps", "FuseKernels"}, context);
  EXPECT_LE(MainCalls(module), static_cast<size_t>(n / 4));  // fused
  EXPECT_GT(MainCalls(module), 1u);                           // in bounded groups
  for (const IRModule::Entry& entry : module.entries()) {
    if (!entry.kernel) continue;
    LoadCounter counter(1000);
    EXPECT_NO_THROW(counter.VisitKernel(*entry.kernel)) << entry.name;
    EXPECT_LE(counter.loads, 256) << entry.name;  // 128 instances of add, two loads each
  }
}

// A long chain of single-use values is cut into groups of at most 128 kernels too (one
// merged expression per group, not one 4096 levels deep).
TEST(FuseOps, LongChainIsCutIntoBoundedGroups) {
  std::string text = "def @main(%x: Tensor((4, 4), float32)) -> Tensor((4, 4), float32) {\n  dataflow {\n";
  std::string previous = "%x";
  const int n = 4096;
  for (int i = 0; i < n; ++i) {
    text += "    %a" + std::to_string(i) + " = add(" + previous + ", %x)\n";
    previous = "%a" + std::to_string(i);
  }
  text += "    output " + previous + "\n  }\n  return " + previous + "\n}\n";
  IRModule module = RunPasses(ParseModule(text), {"LegalizeOps", "FuseOps", "FuseKernels"});
  EXPECT_EQ(MainCalls(module), static_cast<size_t>(n / 128));
}

}  // namespace
}  // namespace rxt
