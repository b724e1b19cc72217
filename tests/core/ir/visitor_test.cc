// Tests of the visitors (visitor.h) and mutators (mutator.h).
#include "rxt/ir/visitor.h"

#include <gtest/gtest.h>

#include <set>

#include "rxt/ir/equality.h"
#include "rxt/ir/mutator.h"
#include "rxt/ir/parser.h"
#include "rxt/ir/printer.h"
#include "rxt/ir/op.h"

namespace rxt {
namespace {

constexpr const char* kRelax = R"(
def @main(%x: Tensor((n, 3), float32), %c: Tensor((), bool)) -> Tensor((n, 3), float32) {
  dataflow {
    %a: Tensor((n, 3), float32) = nn.relu(%x)
    %b: Tensor((n, 3), float32) = add(%a, %x)
    output %b
  }
  %r: Tensor((n, 3), float32) = if %c {
    %t: Tensor((n, 3), float32) = exp(%b)
    yield %t
  } else {
    yield %b
  }
  return %r
}
)";

constexpr const char* kKernel = R"(
kernel @double(X: Buffer((n, 4), float32), Y: Buffer((n, 4), float32)) {
  for i in range(n) {
    for j in range(4) {
      block Y(vi = i, vj = j) {
        Y[vi, vj] = X[vi, vj] * 2f32
      }
    }
  }
}
)";

class Recorder : public ExprVisitor {
 public:
  void VisitCall(const CallNode& call) override {
    if (const OpDef* op = AsOp(call.callee)) ops.push_back(op->name());
    ExprVisitor::VisitCall(call);
  }
  void VisitVarDef(const Var& var) override {
    defs.push_back(var->name);
    ExprVisitor::VisitVarDef(var);
  }
  void VisitVar(const Var& var) override { uses.push_back(var->name); }
  void VisitPrimExpr(const PrimExpr& e) override {
    if (auto* v = e->As<PrimVarNode>()) symbols.insert(v->name);
  }
  void VisitIf(const IfNode& node) override {
    ++ifs;
    ExprVisitor::VisitIf(node);
  }
  std::vector<std::string> ops, defs, uses;
  std::set<std::string> symbols;
  int ifs = 0;
};

TEST(ExprVisitor, VisitsDefinitionsUsesCallsBranchesAndStructInfo) {
  IRModule m = ParseModule(kRelax);
  Recorder r;
  r.VisitFunction(*m.GetFunction("main"));
  EXPECT_EQ(r.ops, (std::vector<std::string>{"nn.relu", "add", "exp"}));
  EXPECT_EQ(r.defs, (std::vector<std::string>{"x", "c", "a", "b", "t", "r"}));
  EXPECT_EQ(r.uses, (std::vector<std::string>{"x", "a", "x", "c", "b", "t", "b", "r"}));
  EXPECT_EQ(r.ifs, 1);
  EXPECT_EQ(r.symbols, (std::set<std::string>{"n"}));
}

// Replaces every nn.relu by nn.silu.
class ReluToSilu : public ExprMutator {
 public:
  using ExprMutator::ExprMutator;
  Expr VisitCall(const Expr& e, const CallNode& call) override {
    Expr visited = ExprMutator::VisitCall(e, call);
    const auto* node = visited->As<CallNode>();
    if (AsOp(node->callee) != &OpRegistry::Global().Get("nn.relu")) return visited;
    return MakeOpCall("nn.silu", node->args, {}, {}, node->span);
  }
};

TEST(ExprMutator, ReturnsTheSameFunctionWhenNothingChanges) {
  IRModule m = ParseModule(R"(
def @f(%x: Tensor((2,), float32)) -> Tensor((2,), float32) {
  %y: Tensor((2,), float32) = exp(%x)
  return %y
})");
  Function f = m.GetFunction("f");
  EXPECT_EQ(ReluToSilu(&m).VisitFunction(f), f);
  IRModule out = ReluToSilu().MutateModule(m);
  EXPECT_EQ(out.GetFunction("f"), f);
}

TEST(ExprMutator, RebuildsOnlyWhatChangedAndReinfersStructInfo) {
  IRModule m = ParseModule(kRelax);
  Function f = m.GetFunction("main");
  IRModule out = ReluToSilu().MutateModule(m);
  Function g = out.GetFunction("main");
  ASSERT_NE(g, f);
  const auto& before = f->body->blocks[0].bindings;
  const auto& after = g->body->blocks[0].bindings;
  ASSERT_EQ(after.size(), 2u);
  EXPECT_EQ(AsOp(after[0].value->As<CallNode>()->callee)->name(), "nn.silu");
  EXPECT_NE(after[0].value->struct_info, nullptr);
  EXPECT_EQ(after[0].var, before[0].var);      // its struct info still fits: kept
  EXPECT_EQ(after[1].value, before[1].value);  // untouched subtrees are shared
  EXPECT_EQ(g->body->blocks[1].bindings[0].value, f->body->blocks[1].bindings[0].value);  // the If
  IRModule expected = ParseModule(std::string(kRelax).replace(std::string(kRelax).find("nn.relu"), 7, "nn.silu"));
  EXPECT_TRUE(StructuralEqual(out, expected)) << PrintModule(out);
}

// Replaces uses of the first parameter by the second one, whose shape differs.
class SwapParam : public ExprMutator {
 public:
  SwapParam(const Var& from, const Var& to) { var_remap_[from.get()] = to; }
};

TEST(ExprMutator, RebindsAVariableWhoseValueNoLongerFitsAndFollowsItsUses) {
  IRModule m = ParseModule(R"(
def @f(%x: Tensor((2, 3), float32), %y: Tensor((4, 3), float32)) -> Tensor(ndim=2, float32) {
  %a: Tensor((2, 3), float32) = nn.relu(%x)
  %b: Tensor((2, 3), float32) = add(%a, %a)
  return %b
})");
  Function f = m.GetFunction("f");
  Function g = SwapParam(f->params[0], f->params[1]).VisitFunction(f);
  IRModule expected = ParseModule(R"(
def @f(%x: Tensor((2, 3), float32), %y: Tensor((4, 3), float32)) -> Tensor(ndim=2, float32) {
  %a: Tensor((4, 3), float32) = nn.relu(%y)
  %b: Tensor((4, 3), float32) = add(%a, %a)
  return %b
})");
  EXPECT_TRUE(StructuralEqual(g, expected.GetFunction("f"))) << PrintFunction(g, "f");
}

// Wraps the argument of every exp in an nn.relu call: the builder must bind it first.
class NestRelu : public ExprMutator {
 public:
  Expr VisitCall(const Expr& e, const CallNode& call) override {
    if (AsOp(call.callee) != &OpRegistry::Global().Get("exp")) return ExprMutator::VisitCall(e, call);
    return MakeOpCall("exp", {MakeOpCall("nn.relu", {call.args[0]})});
  }
};

TEST(ExprMutator, BindsNestedCallsFirst) {
  IRModule m = ParseModule(R"(
def @f(%x: Tensor((2,), float32)) -> Tensor((2,), float32) {
  %y: Tensor((2,), float32) = exp(%x)
  return %y
})");
  Function g = NestRelu().VisitFunction(m.GetFunction("f"));
  IRModule expected = ParseModule(R"(
def @f(%x: Tensor((2,), float32)) -> Tensor((2,), float32) {
  %lv: Tensor((2,), float32) = nn.relu(%x)
  %y: Tensor((2,), float32) = exp(%lv)
  return %y
})");
  EXPECT_TRUE(StructuralEqual(g, expected.GetFunction("f"))) << PrintFunction(g, "f");
}

class KernelRecorder : public StmtVisitor {
 public:
  void VisitBufferDef(const Buffer& buffer) override {
    buffer_defs.push_back(buffer->name);
    StmtVisitor::VisitBufferDef(buffer);
  }
  void VisitBufferUse(const Buffer& buffer) override { buffer_uses.push_back(buffer->name); }
  void VisitPrimVarDef(const PrimVar& var) override { var_defs.push_back(var->name); }
  void VisitPrimVar(const PrimVar& var) override { var_uses.insert(var->name); }
  std::vector<std::string> buffer_defs, buffer_uses, var_defs;
  std::set<std::string> var_uses;
};

TEST(StmtVisitor, SeparatesDeclarationsFromUses) {
  IRModule m = ParseModule(kKernel);
  KernelRecorder r;
  r.VisitKernel(*m.GetKernel("double"));
  EXPECT_EQ(r.buffer_defs, (std::vector<std::string>{"X", "Y"}));
  EXPECT_EQ(r.buffer_uses, (std::vector<std::string>{"Y", "X"}));  // the store, then the load
  EXPECT_EQ(r.var_defs, (std::vector<std::string>{"i", "j", "vi", "vj"}));
  EXPECT_EQ(r.var_uses, (std::set<std::string>{"n", "i", "j", "vi", "vj"}));
}

// Fixes every symbolic dim named n to 8.
class FixN : public StmtMutator {
 public:
  PrimExpr VisitPrimVar(const PrimVar& var) override {
    return var->name == "n" ? IntImm(8) : StmtMutator::VisitPrimVar(var);
  }
};

TEST(StmtMutator, RewritesBufferShapesOnceForEveryUse) {
  IRModule m = ParseModule(kKernel);
  KernelFunction k = m.GetKernel("double");
  KernelFunction fixed = FixN().VisitKernel(k);
  ASSERT_NE(fixed, k);
  const Buffer& y = fixed->params[1].buffer;
  ASSERT_EQ(y->shape.size(), 2u);
  int64_t dim = 0;
  ASSERT_TRUE(GetConstInt(y->shape[0], &dim));
  EXPECT_EQ(dim, 8);
  // Dig to the store: for i { for j { block { store } } }.
  const auto* outer = fixed->body->As<ForNode>();
  ASSERT_NE(outer, nullptr);
  ASSERT_TRUE(GetConstInt(outer->extent, &dim));
  EXPECT_EQ(dim, 8);
  const auto* block = outer->body->As<ForNode>()->body->As<BlockNode>();
  ASSERT_NE(block, nullptr);
  const auto* store = block->body->As<StoreNode>();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->buffer, y);  // the same new buffer node as the parameter
  // Nothing to change: the same kernel comes back.
  EXPECT_EQ(FixN().VisitKernel(fixed), fixed);
}

TEST(Substitute, FoldsAndReachesIntoStructInfo) {
  PrimVar n = MakePrimVar("n");
  PrimVar m = MakePrimVar("m");
  PrimVarMap map{{n.get(), IntImm(4)}};
  int64_t value = 0;
  ASSERT_TRUE(GetConstInt(Substitute(n * IntImm(2), map), &value));
  EXPECT_EQ(value, 8);
  PrimExpr untouched = m * IntImm(2);
  EXPECT_EQ(Substitute(untouched, map), untouched);
  StructInfo sinfo = TupleSI({TensorSI({n, m}, DType::kFloat32), ShapeSI({n + IntImm(1)})});
  StructInfo expected = TupleSI({TensorSI({IntImm(4), m}, DType::kFloat32), ShapeSI({IntImm(5)})});
  EXPECT_TRUE(StructuralEqual(Substitute(sinfo, map), expected));
  StructInfo no_n = TensorSI({m}, DType::kFloat32);
  EXPECT_EQ(Substitute(no_n, map), no_n);
}

}  // namespace
}  // namespace rxt
