/// SimplifyTransposes: removes the transposes that differentiation leaves behind. The gradient
/// of z = matmul(a, b) is da = dz bᵀ, db = aᵀ dz, so a forward pass that already transposes
/// (a linear layer with PyTorch's (out, in) weights: matmul(x, permute_dims(w))) gets
/// transposes of transposes and transposed products in its backward pass. Three rewrites,
/// each never adding work:
///
///   permute_dims(permute_dims(x, p), q)  ->  permute_dims(x, p∘q), or x when that is the identity
///   permute_dims(matmul(a, b))           ->  matmul(bᵀ, aᵀ)   (ᵀ: swap the last two axes; a
///        transposed operand loses its transpose; only when the product is used once and fewer
///        transposes remain)
///   matmul(aᵀ, bᵀ)                       ->  permute_dims(matmul(b, a))  (both transposes used
///        only here)
///
/// Bindings left unused are removed (DeadCodeElimination), and the rewrites repeat until
/// nothing changes.
#include <numeric>

#include "rxt/ir/mutator.h"
#include "rxt/ir/visitor.h"
#include "rxt/ir/op.h"
#include "rxt/transform/training/gradient.h"
#include "rxt/transform/passes.h"

namespace rxt {
namespace {

using UseCounts = std::unordered_map<const VarNode*, int>;

class UseCounter : public ExprVisitor {
 public:
  void VisitVar(const Var& var) override { ++uses[var.get()]; }
  UseCounts uses;
};

const CallNode* AsOpCall(const Expr& e, const char* name) {
  const auto* call = e ? e->As<CallNode>() : nullptr;
  const OpDef* op = call ? AsOp(call->callee) : nullptr;
  return op != nullptr && op->name() == name ? call : nullptr;
}

int NDim(const Expr& e) {
  const auto* t = e->struct_info ? e->struct_info->As<TensorSINode>() : nullptr;
  return t ? t->ndim : -1;
}

/// The permutation of a permute_dims call (none: reversed), or empty if the rank is unknown.
std::vector<int64_t> Permutation(const CallNode& call) {
  int ndim = NDim(call.args[0]);
  if (ndim < 0) return {};
  if (auto axes = call.attrs.Get("axes").AsIntList()) {
    for (int64_t& a : *axes) a = a < 0 ? a + ndim : a;
    return *axes;
  }
  std::vector<int64_t> reversed(ndim);
  std::iota(reversed.rbegin(), reversed.rend(), 0);
  return reversed;
}

/// [0, 1, ..., n-3, n-1, n-2]: swaps the last two axes (a matrix transpose, batched).
std::vector<int64_t> SwapLastTwo(int ndim) {
  std::vector<int64_t> axes(ndim);
  std::iota(axes.begin(), axes.end(), 0);
  std::swap(axes[ndim - 2], axes[ndim - 1]);
  return axes;
}

bool IsIdentity(const std::vector<int64_t>& axes) {
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

Expr PermuteDims(const Expr& x, const std::vector<int64_t>& axes) {
  Attrs attrs;
  attrs.Set("axes", AttrValue::IntList(axes));
  return MakeOpCall("permute_dims", {x}, attrs);
}

class TransposeSimplifier : public ExprMutator {
 public:
  TransposeSimplifier(const IRModule& module, UseCounts uses) : ExprMutator(&module), uses_(std::move(uses)) {}

  void VisitBinding(const Binding& binding) override {
    if (binding.is_match_cast()) {
      ExprMutator::VisitBinding(binding);
      return;
    }
    Expr value = VisitExpr(binding.value);
    Expr simpler = Simplify(value);
    if (simpler != nullptr) {
      ++rewrites;
      // An identity: uses of a dataflow variable take the value directly; an output keeps a binding.
      if (simpler->kind == ExprKind::kVar && binding.var->is_dataflow) {
        var_remap_[binding.var.get()] = simpler;
        return;
      }
      value = simpler;
    }
    ReEmitBinding(binding, value);
    Expr bound = VisitVar(binding.var);
    if (bound->kind == ExprKind::kVar) values_[bound.get()] = value;
  }

  int rewrites = 0;

 private:
  /// The value bound to |e| if it is a variable bound earlier in this function.
  Expr ValueOf(const Expr& e) const {
    auto it = values_.find(e.get());
    return it == values_.end() ? nullptr : it->second;
  }
  bool UsedOnce(const Expr& var) const {
    auto it = uses_.find(static_cast<const VarNode*>(var.get()));
    return var->kind == ExprKind::kVar && it != uses_.end() && it->second == 1;
  }
  /// The untransposed operand if |e| is bound to a swap of its last two axes.
  Expr Untransposed(const Expr& e) const {
    const CallNode* call = AsOpCall(ValueOf(e), "permute_dims");
    int ndim = NDim(e);
    if (call == nullptr || ndim < 2 || Permutation(*call) != SwapLastTwo(ndim)) return nullptr;
    return call->args[0];
  }

  /// A simpler equivalent of |value| (emitting helper bindings), or null.
  Expr Simplify(const Expr& value) {
    if (const CallNode* outer = AsOpCall(value, "permute_dims")) {
      if (Expr r = ComposePermutes(*outer)) return r;
      return TransposeProduct(*outer);
    }
    if (const CallNode* product = AsOpCall(value, "matmul")) return ProductOfTransposes(*product, NDim(value));
    return nullptr;
  }

  Expr ComposePermutes(const CallNode& outer) {
    const CallNode* inner = AsOpCall(ValueOf(outer.args[0]), "permute_dims");
    if (inner == nullptr) return nullptr;
    std::vector<int64_t> p = Permutation(*inner), q = Permutation(outer);
    if (p.empty() || p.size() != q.size()) return nullptr;
    std::vector<int64_t> composed;
    for (int64_t axis : q) composed.push_back(p[axis]);
    if (IsIdentity(composed)) return inner->args[0];
    return builder_.Normalize(PermuteDims(inner->args[0], composed));
  }

  Expr TransposeProduct(const CallNode& outer) {
    const Expr& z = outer.args[0];
    const CallNode* product = AsOpCall(ValueOf(z), "matmul");
    int ndim = NDim(z);
    if (product == nullptr || !UsedOnce(z) || ndim < 2 || Permutation(outer) != SwapLastTwo(ndim)) return nullptr;
    const Expr &a = product->args[0], &b = product->args[1];
    if (NDim(a) < 2 || NDim(b) < 2) return nullptr;
    Expr a0 = Untransposed(a), b0 = Untransposed(b);
    // Transposes removed (this one, operands' used only here) against transposes added.
    int removed = 1 + (a0 && UsedOnce(a)) + (b0 && UsedOnce(b));
    int added = !a0 + !b0;
    if (removed <= added) return nullptr;
    Expr bt = b0 ? b0 : Expr(builder_.Emit(PermuteDims(b, SwapLastTwo(NDim(b))), "bt"));
    Expr at = a0 ? a0 : Expr(builder_.Emit(PermuteDims(a, SwapLastTwo(NDim(a))), "at"));
    return builder_.Normalize(MakeCall(product->callee, {bt, at}, product->attrs));
  }

  Expr ProductOfTransposes(const CallNode& product, int ndim) {
    const Expr &a = product.args[0], &b = product.args[1];
    Expr a0 = Untransposed(a), b0 = Untransposed(b);
    if (!a0 || !b0 || !UsedOnce(a) || !UsedOnce(b) || ndim < 2) return nullptr;
    Var ba = builder_.Emit(MakeCall(product.callee, {b0, a0}, product.attrs), "ba");
    return builder_.Normalize(PermuteDims(ba, SwapLastTwo(ndim)));
  }

  UseCounts uses_;
  std::unordered_map<const ExprNode*, Expr> values_;
};

}  // namespace

IRModule SimplifyTransposes(IRModule module) {
  for (int round = 0; round < 8; ++round) {
    int rewrites = 0;
    for (size_t i = 0; i < module.entries().size(); ++i) {
      const IRModule::Entry entry = module.entries()[i];
      if (!entry.function) continue;
      UseCounter counter;
      counter.VisitFunction(*entry.function);
      TransposeSimplifier simplifier(module, std::move(counter.uses));
      Function rewritten = simplifier.VisitFunction(entry.function);
      rewrites += simplifier.rewrites;
      if (rewritten != entry.function) module.Add(entry.name, rewritten);
    }
    if (rewrites == 0) break;
    module = DeadCodeElimination()(std::move(module));
  }
  return module;
}

Pass SimplifyTransposes() {
  return CreateModulePass([](IRModule m) { return SimplifyTransposes(std::move(m)); }, "SimplifyTransposes");
}

}  // namespace rxt
