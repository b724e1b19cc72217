#include "rxt/ir/struct_info.h"

#include <gtest/gtest.h>

#include <string>

#include "rxt/ir/parser.h"
#include "rxt/support/error.h"

namespace rxt {
namespace {

TEST(StructInfoTest, TensorSubtyping) {
  StructInfo exact = TensorSI(std::vector<int64_t>{2, 3}, DType::kFloat32);
  EXPECT_TRUE(IsBaseOf(TensorSI(DType::kFloat32, 2), exact));
  EXPECT_TRUE(IsBaseOf(TensorSI(DType::kUnknown, -1), exact));
  EXPECT_TRUE(IsBaseOf(ObjectSI(), exact));
  EXPECT_FALSE(IsBaseOf(exact, TensorSI(DType::kFloat32, 2)));
  EXPECT_FALSE(IsBaseOf(TensorSI(DType::kFloat64, 2), exact));
  EXPECT_FALSE(IsBaseOf(TensorSI(DType::kFloat32, 3), exact));
  EXPECT_FALSE(IsBaseOf(exact, TensorSI(std::vector<int64_t>{2, 4}, DType::kFloat32)));
}

TEST(StructInfoTest, SymbolicDimsNeedProofUnlessAssumed) {
  PrimVar n = MakePrimVar("n");
  PrimVar m = MakePrimVar("m");
  StructInfo a = TensorSI(std::vector<PrimExpr>{n, IntImm(4)}, DType::kFloat32);
  StructInfo b = TensorSI(std::vector<PrimExpr>{m, IntImm(4)}, DType::kFloat32);
  EXPECT_TRUE(IsBaseOf(a, a));
  EXPECT_FALSE(IsBaseOf(a, b));
  EXPECT_TRUE(IsBaseOf(a, b, /*assume_unknown_equal=*/true));
  StructInfo c = TensorSI(std::vector<PrimExpr>{m, IntImm(5)}, DType::kFloat32);
  EXPECT_FALSE(IsBaseOf(a, c, /*assume_unknown_equal=*/true));  // 4 vs 5 is provably different
}

TEST(StructInfoTest, TuplesAndFunctions) {
  StructInfo t = TensorSI(std::vector<int64_t>{2}, DType::kFloat32);
  EXPECT_TRUE(IsBaseOf(TupleSI({TensorSI(DType::kFloat32, 1)}), TupleSI({t})));
  EXPECT_FALSE(IsBaseOf(TupleSI({t, t}), TupleSI({t})));
  StructInfo pure = FuncSI({t}, t, true);
  StructInfo impure = FuncSI({t}, t, false);
  EXPECT_TRUE(IsBaseOf(impure, pure));
  EXPECT_FALSE(IsBaseOf(pure, impure));
}

TEST(StructInfoTest, UnifyKeepsWhatBothAgreeOn) {
  StructInfo a = TensorSI(std::vector<int64_t>{2, 3}, DType::kFloat32);
  StructInfo b = TensorSI(std::vector<int64_t>{2, 4}, DType::kFloat32);
  StructInfo u = Unify(a, b);
  const auto* t = u->As<TensorSINode>();
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->dtype, DType::kFloat32);
  EXPECT_EQ(t->ndim, 2);
  EXPECT_FALSE(t->shape.has_value());
  EXPECT_EQ(Unify(a, ShapeSI(2))->kind, StructInfoKind::kObject);
  EXPECT_TRUE(IsBaseOf(Unify(a, a), a));
}

TEST(StructInfoTest, StaticShape) {
  StructInfo sinfo = TensorSI(std::vector<int64_t>{5, 7}, DType::kInt64);
  const auto* t = sinfo->As<TensorSINode>();
  ASSERT_TRUE(t->IsStatic());
  EXPECT_EQ(t->StaticShape(), (std::vector<int64_t>{5, 7}));
  StructInfo symbolic = TensorSI(std::vector<PrimExpr>{MakePrimVar("n")}, DType::kInt64);
  EXPECT_FALSE(symbolic->As<TensorSINode>()->IsStatic());
}

// A tuple holding the previous one twice, |depth| times: 2^depth paths, depth + 1 nodes.
StructInfo DoubledTuple(int depth, StructInfo leaf) {
  for (int i = 0; i < depth; ++i) leaf = TupleSI({leaf, leaf});
  return leaf;
}

// Struct info shared as a graph is compared once per pair of nodes, not once per path: with
// 2^64 paths, walking them would never end.
TEST(StructInfoTest, SharedTuplesAreComparedPerNodeNotPerPath) {
  PrimVar n = MakePrimVar("n");
  StructInfo a = DoubledTuple(64, TensorSI({n, IntImm(4)}, DType::kFloat32));
  StructInfo b = DoubledTuple(64, TensorSI({n, IntImm(4)}, DType::kFloat32));  // other nodes
  StructInfo general = DoubledTuple(64, TensorSI(DType::kFloat32, 2));
  StructInfo other = DoubledTuple(64, TensorSI({n, IntImm(5)}, DType::kFloat32));
  EXPECT_TRUE(IsBaseOf(a, b));
  EXPECT_TRUE(IsBaseOf(general, a));
  EXPECT_FALSE(IsBaseOf(a, general));
  EXPECT_FALSE(IsBaseOf(a, other));
  EXPECT_TRUE(IsBaseOf(FuncSI({a}, general), FuncSI({general}, b)));  // parameters contravariant
  EXPECT_FALSE(IsBaseOf(FuncSI({general}, a), FuncSI({a}, b)));

  // Unify keeps the sharing: the result is as small as its inputs.
  StructInfo joined = Unify(a, general);
  for (int i = 0; i < 64; ++i) {
    const auto* tuple = joined->As<TupleSINode>();
    ASSERT_NE(tuple, nullptr);
    ASSERT_EQ(tuple->fields[0], tuple->fields[1]);
    joined = tuple->fields[0];
  }
  EXPECT_TRUE(IsBaseOf(joined, TensorSI({IntImm(1), IntImm(4)}, DType::kFloat32)));
  EXPECT_EQ(Unify(a, a), a);
}

}  // namespace
}  // namespace rxt

// Issue 11: a chain of 30,000 bindings `%t_i = (%t_{i-1},)` built a type nested 30,000 deep;
// walking or destroying it overflowed the stack (SIGSEGV). Nesting is bounded where types are
// made, and the parser reports it at the binding.
namespace rxt {
namespace {

TEST(StructInfoTest, NestingIsBoundedWhereTypesAreMade) {
  StructInfo t = TensorSI(std::vector<int64_t>{4}, DType::kFloat32);
  EXPECT_EQ(t->depth, 1);
  for (int i = 1; i < kMaxStructInfoDepth; ++i) t = TupleSI({t});
  EXPECT_EQ(t->depth, kMaxStructInfoDepth);
  EXPECT_EQ(FuncSI({}, TupleSI({}))->depth, 2);
  try {
    TupleSI({t});
    FAIL() << "a type nested too deeply was made";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_EQ(std::string(e.what()), "struct info nested more than 1024 levels deep (a tuple of a tuple of ...)");
  }
  EXPECT_THROW(FuncSI({t}, ObjectSI()), Error);
}

TEST(StructInfoTest, ADeepBindingChainIsAnErrorAtItsLine) {
  std::string text = "def @main(%x: Tensor((4,), float32)) -> Object {\n  dataflow {\n";
  std::string previous = "%x";
  for (int i = 0; i < 30000; ++i) {
    text += "    %t" + std::to_string(i) + " = (" + previous + ",)\n";
    previous = "%t" + std::to_string(i);
  }
  text += "    output " + previous + "\n  }\n  return " + previous + "\n}\n";
  try {
    ParseModule(text, "deep.rxt");
    FAIL() << "parsed a type nested 30000 deep";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("deep.rxt:1026:", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("nested more than 1024 levels"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace rxt
