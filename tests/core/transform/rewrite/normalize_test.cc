// Normalize on functions built by hand (the parser only produces normal functions).
#include <gtest/gtest.h>

#include "rxt/ir/equality.h"
#include "rxt/ir/parser.h"
#include "rxt/ir/printer.h"
#include "rxt/ir/well_formed.h"
#include "rxt/ir/op.h"
#include "rxt/transform/passes.h"

namespace rxt {
namespace {

TEST(Normalize, FillsStructInfoBindsNestedCallsAndMergesBlocks) {
  StructInfo t = TensorSI({2, 3}, DType::kFloat32);
  Var x = MakeVar("x", t);
  Var a = MakeVar("a", nullptr);  // struct info to be inferred
  Var b = MakeVar("b", t);
  Var c = MakeVar("c", t);
  // a = exp(x) | (empty dataflow block) | b = add(relu(a), a) | c = exp(b); ret unset.
  std::vector<BindingBlock> blocks = {
      BindingBlock{{Binding{a, MakeOpCall("exp", {x}), nullptr}}, false},
      BindingBlock{{}, true},
      BindingBlock{{Binding{b, MakeOpCall("add", {MakeOpCall("nn.relu", {a}), a}), nullptr}}, false},
      BindingBlock{{Binding{c, MakeOpCall("exp", {b}), nullptr}}, false},
  };
  IRModule m;
  m.Add("main", MakeFunction({x}, MakeSeqExpr(blocks, c), nullptr));
  EXPECT_FALSE(CheckWellFormed(m).empty());

  IRModule out = Normalize()(m);
  IRModule expected = ParseModule(R"(
def @main(%x: Tensor((2, 3), float32)) -> Tensor((2, 3), float32) {
  %a: Tensor((2, 3), float32) = exp(%x)
  %lv: Tensor((2, 3), float32) = nn.relu(%a)
  %b: Tensor((2, 3), float32) = add(%lv, %a)
  %c: Tensor((2, 3), float32) = exp(%b)
  return %c
}
)");
  EXPECT_TRUE(StructuralEqual(out, expected)) << PrintModule(out);
  EXPECT_TRUE(CheckWellFormed(out).empty()) << PrintModule(out);
}

TEST(Normalize, BindsANestedResult) {
  StructInfo t = TensorSI(std::vector<int64_t>{4}, DType::kFloat32);
  Var x = MakeVar("x", t);
  IRModule m;
  m.Add("main", MakeFunction({x}, MakeSeqExpr({}, MakeOpCall("nn.relu", {MakeOpCall("exp", {x})})), t));
  IRModule out = Normalize()(m);
  IRModule expected = ParseModule(R"(
def @main(%x: Tensor((4,), float32)) -> Tensor((4,), float32) {
  %lv: Tensor((4,), float32) = exp(%x)
  return nn.relu(%lv)
}
)");
  EXPECT_TRUE(StructuralEqual(out, expected)) << PrintModule(out);
  EXPECT_TRUE(CheckWellFormed(out).empty()) << PrintModule(out);
}

TEST(Normalize, LeavesANormalModuleAsItIs) {
  IRModule m = ParseModule(R"(
def @main(%x: Tensor((4,), float32)) -> Tensor((4,), float32) {
  dataflow {
    %a: Tensor((4,), float32) = exp(%x)
    output %a
  }
  return %a
}
)");
  IRModule out = Normalize()(m);
  EXPECT_EQ(out.GetFunction("main"), m.GetFunction("main"));  // the very same node
}

}  // namespace
}  // namespace rxt
