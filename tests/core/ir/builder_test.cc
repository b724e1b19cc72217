#include "rxt/ir/builder.h"

#include <gtest/gtest.h>

#include "rxt/ir/op.h"

namespace rxt {
namespace {

StructInfo F32(std::vector<int64_t> shape) { return TensorSI(shape, DType::kFloat32); }

TEST(BlockBuilderTest, EmitInfersStructInfoAndMakesDataflowVars) {
  Var x = MakeVar("x", F32({2, 3}));
  Var w = MakeVar("w", F32({3, 4}));
  BlockBuilder bb;
  bb.BeginDataflowBlock();
  Var y = bb.Emit(MakeOpCall("matmul", {x, w}), "y");
  Var out = bb.EmitOutput(MakeOpCall("nn.relu", {y}), "out");
  BindingBlock block = bb.EndBlock();
  EXPECT_TRUE(block.is_dataflow);
  ASSERT_EQ(block.bindings.size(), 2u);
  EXPECT_TRUE(y->is_dataflow);
  EXPECT_FALSE(out->is_dataflow);
  EXPECT_TRUE(IsBaseOf(F32({2, 4}), GetStructInfo(out)));
  EXPECT_TRUE(IsBaseOf(GetStructInfo(out), F32({2, 4})));
}

TEST(BlockBuilderTest, NestedCallsAreBoundFirst) {
  Var x = MakeVar("x", F32({2, 3}));
  Var w = MakeVar("w", F32({3, 4}));
  Var b = MakeVar("b", F32({4}));
  BlockBuilder bb;
  bb.BeginBindingBlock();
  bb.Emit(MakeOpCall("add", {MakeOpCall("matmul", {x, w}), b}), "y");
  BindingBlock block = bb.EndBlock();
  ASSERT_EQ(block.bindings.size(), 2u);  // the matmul got its own binding
  const auto* add = block.bindings[1].value->As<CallNode>();
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->args[0], block.bindings[0].var);
}

TEST(BlockBuilderTest, AnnotationMustBeCompatible) {
  Var x = MakeVar("x", F32({2, 3}));
  BlockBuilder bb;
  bb.BeginBindingBlock();
  EXPECT_NO_THROW(bb.Emit(MakeOpCall("nn.relu", {x}), "a", TensorSI(DType::kFloat32, 2)));
  try {
    bb.Emit(MakeOpCall("nn.relu", {x}), "b", F32({3, 2}));
    FAIL() << "expected a type error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("type error"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("%b"), std::string::npos) << e.what();
  }
}

TEST(BlockBuilderTest, MatchCastRefinesButNeverChangesKind) {
  Var x = MakeVar("x", TensorSI(DType::kFloat32, 2));
  PrimVar n = MakePrimVar("n");
  BlockBuilder bb;
  bb.BeginBindingBlock();
  Var y = bb.EmitMatchCast(x, TensorSI(std::vector<PrimExpr>{n, IntImm(4)}, DType::kFloat32), "y");
  EXPECT_TRUE(bb.EndBlock().bindings[0].is_match_cast());
  EXPECT_EQ(GetStructInfo(y)->As<TensorSINode>()->ndim, 2);
  bb.BeginBindingBlock();
  EXPECT_THROW(bb.EmitMatchCast(x, ShapeSI(2), "z"), Error);
  EXPECT_THROW(bb.EmitMatchCast(x, TensorSI(DType::kInt64, 2), "z"), Error);
}

TEST(BlockBuilderTest, CallsToModuleFunctionsInstantiateSymbolicDims) {
  // f(a: Tensor((n, 4), float32)) -> Tensor((n, 4), float32)
  PrimVar n = MakePrimVar("n");
  StructInfo sym = TensorSI(std::vector<PrimExpr>{n, IntImm(4)}, DType::kFloat32);
  Var a = MakeVar("a", sym);
  IRModule module;
  module.Add("f", MakeFunction({a}, MakeSeqExpr({}, a), sym));

  BlockBuilder bb(&module);
  bb.BeginBindingBlock();
  Var r = bb.Emit(MakeCall(MakeGlobalVar("f"), {MakeVar("x", F32({8, 4}))}), "r");
  EXPECT_TRUE(IsBaseOf(F32({8, 4}), GetStructInfo(r)));
  EXPECT_THROW(bb.Emit(MakeCall(MakeGlobalVar("f"), {MakeVar("x", F32({8, 5}))}), "bad"), Error);
  EXPECT_THROW(bb.Emit(MakeCall(MakeGlobalVar("missing"), {}), "bad"), Error);
  EXPECT_THROW(bb.Emit(MakeCall(MakeGlobalVar("f"), {}), "bad"), Error);
}

TEST(BlockBuilderTest, TupleIndexIsChecked) {
  Var t = MakeVar("t", TupleSI({F32({1}), F32({2})}));
  BlockBuilder bb;
  bb.BeginBindingBlock();
  Var second = bb.Emit(MakeTupleGetItem(t, 1), "s");
  EXPECT_TRUE(IsBaseOf(F32({2}), GetStructInfo(second)));
  EXPECT_THROW(bb.Emit(MakeTupleGetItem(t, 2), "bad"), Error);
  EXPECT_THROW(bb.Emit(MakeTupleGetItem(MakeVar("x", F32({1})), 0), "bad"), Error);
}

TEST(BlockBuilderTest, ArityIsCheckedForEveryOp) {
  BlockBuilder bb;
  bb.BeginBindingBlock();
  try {
    bb.Emit(MakeOpCall("add", {MakeVar("x", F32({1}))}), "bad");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("add: expects 2 argument(s)"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace rxt
