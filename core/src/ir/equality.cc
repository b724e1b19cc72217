// Structural equality modulo variable names (see equality.h). One comparer walks both
// sides in lockstep, pairing variables, scalar variables and buffers at first encounter;
// hash.cc walks in the same order so that equal IR hashes equally.
#include "rxt/ir/equality.h"

#include <bit>
#include <unordered_map>
#include <unordered_set>

namespace rxt {
namespace {

/// A one-to-one pairing of nodes from the left side with nodes from the right side.
template <typename Node>
class Bijection {
 public:
  enum class Result { kPaired, kNew, kMismatch };
  /// kPaired if already paired with each other, kNew if neither was paired (they are now),
  /// kMismatch if either is paired with something else.
  Result Match(const Node* a, const Node* b) {
    auto it = left_.find(a);
    if (it != left_.end()) return it->second == b ? Result::kPaired : Result::kMismatch;
    if (right_.count(b)) return Result::kMismatch;
    left_[a] = b;
    right_[b] = a;
    return Result::kNew;
  }

 private:
  std::unordered_map<const Node*, const Node*> left_, right_;
};

bool SameDouble(double a, double b) { return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b); }

bool SameTensor(const Tensor& a, const Tensor& b) {
  if (a.defined() != b.defined()) return false;
  return !a.defined() || a.BitwiseEqual(b);
}

bool EqualAttrValue(const AttrValue& a, const AttrValue& b) {
  if (a.value.index() != b.value.index()) return false;
  if (a.is<double>()) return SameDouble(a.get<double>(), b.get<double>());
  if (a.is<Tensor>()) return SameTensor(a.get<Tensor>(), b.get<Tensor>());
  if (a.is<AttrArray>()) {
    const AttrArray& x = a.get<AttrArray>();
    const AttrArray& y = b.get<AttrArray>();
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!EqualAttrValue(x[i], y[i])) return false;
    }
    return true;
  }
  return a.value == b.value;
}

bool EqualAttrs(const Attrs& a, const Attrs& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const auto& [name_a, value_a] = a.entries()[i];
    const auto& [name_b, value_b] = b.entries()[i];
    if (name_a != name_b || !EqualAttrValue(value_a, value_b)) return false;
  }
  return true;
}

class StructuralComparer {
 public:
  bool Module(const IRModule& a, const IRModule& b) {
    if (!EqualAttrs(a.attrs, b.attrs) || a.entries().size() != b.entries().size()) return false;
    for (size_t i = 0; i < a.entries().size(); ++i) {
      const IRModule::Entry& x = a.entries()[i];
      const IRModule::Entry& y = b.entries()[i];
      if (x.name != y.name) return false;
      if (!Function(x.function, y.function) || !Kernel(x.kernel, y.kernel)) return false;
    }
    return true;
  }

  bool Function(const rxt::Function& a, const rxt::Function& b) {
    if (a == nullptr || b == nullptr) return a == b;
    if (a->params.size() != b->params.size() || a->is_pure != b->is_pure) return false;
    for (size_t i = 0; i < a->params.size(); ++i) {
      if (!VarRef(a->params[i], b->params[i])) return false;
    }
    return Seq(a->body, b->body) && SInfo(a->ret_sinfo, b->ret_sinfo) && EqualAttrs(a->attrs, b->attrs);
  }

  bool Kernel(const KernelFunction& a, const KernelFunction& b) {
    if (a == nullptr || b == nullptr) return a == b;
    if (a->params.size() != b->params.size()) return false;
    for (size_t i = 0; i < a->params.size(); ++i) {
      const KernelParam& x = a->params[i];
      const KernelParam& y = b->params[i];
      if (!BufferRef(x.buffer, y.buffer) || !PrimVarRef(x.scalar, y.scalar)) return false;
    }
    return Statement(a->body, b->body) && EqualAttrs(a->attrs, b->attrs);
  }

  bool Expression(const Expr& a, const Expr& b) {
    if (a == nullptr || b == nullptr) return a == b;
    if (a->kind != b->kind) return false;
    switch (a->kind) {
      case ExprKind::kVar:
        return VarRef(std::static_pointer_cast<const VarNode>(a), std::static_pointer_cast<const VarNode>(b));
      case ExprKind::kConstant: return SameTensor(a->As<ConstantNode>()->data, b->As<ConstantNode>()->data);
      case ExprKind::kTuple: return Exprs(a->As<TupleNode>()->fields, b->As<TupleNode>()->fields);
      case ExprKind::kTupleGetItem: {
        auto* x = a->As<TupleGetItemNode>();
        auto* y = b->As<TupleGetItemNode>();
        return x->index == y->index && Expression(x->tuple, y->tuple);
      }
      case ExprKind::kCall: {
        auto* x = a->As<CallNode>();
        auto* y = b->As<CallNode>();
        if (!Expression(x->callee, y->callee) || !Exprs(x->args, y->args)) return false;
        if (!EqualAttrs(x->attrs, y->attrs) || x->sinfo_args.size() != y->sinfo_args.size()) return false;
        for (size_t i = 0; i < x->sinfo_args.size(); ++i) {
          if (!SInfo(x->sinfo_args[i], y->sinfo_args[i])) return false;
        }
        return true;
      }
      case ExprKind::kShapeExpr: return Prims(a->As<ShapeExprNode>()->values, b->As<ShapeExprNode>()->values);
      case ExprKind::kPrimValue: return Prim(a->As<PrimValueNode>()->value, b->As<PrimValueNode>()->value);
      case ExprKind::kStringImm: return a->As<StringImmNode>()->value == b->As<StringImmNode>()->value;
      case ExprKind::kIf: {
        auto* x = a->As<IfNode>();
        auto* y = b->As<IfNode>();
        return Expression(x->cond, y->cond) && Seq(x->then_branch, y->then_branch) &&
               Seq(x->else_branch, y->else_branch);
      }
      case ExprKind::kOp: return a->As<OpNode>()->def == b->As<OpNode>()->def;
      case ExprKind::kGlobalVar: return a->As<GlobalVarNode>()->name == b->As<GlobalVarNode>()->name;
      case ExprKind::kExternFunc: return a->As<ExternFuncNode>()->name == b->As<ExternFuncNode>()->name;
    }
    return false;
  }

  bool SInfo(const StructInfo& a, const StructInfo& b) {
    if (a == nullptr || b == nullptr) return a == b;
    if (a->kind != b->kind) return false;
    if (a->kind == StructInfoKind::kTuple || a->kind == StructInfoKind::kFunc) {
      // Struct info is shared (a tuple may hold one sub-type twice, at every level): a pair
      // of nodes found equal once is equal again (its variables are paired by now), so each
      // pair is compared once, not once per path to it. A mismatch ends the whole comparison.
      if (equal_sinfo_.count({a.get(), b.get()})) return true;
      if (!CompositeSInfo(a, b)) return false;
      equal_sinfo_.insert({a.get(), b.get()});
      return true;
    }
    switch (a->kind) {
      case StructInfoKind::kObject: return true;
      case StructInfoKind::kPrim: {
        auto* x = a->As<PrimSINode>();
        auto* y = b->As<PrimSINode>();
        return x->dtype == y->dtype && Prim(x->value, y->value);
      }
      case StructInfoKind::kShape: {
        auto* x = a->As<ShapeSINode>();
        auto* y = b->As<ShapeSINode>();
        return x->ndim == y->ndim && OptionalPrims(x->values, y->values);
      }
      case StructInfoKind::kTensor: {
        auto* x = a->As<TensorSINode>();
        auto* y = b->As<TensorSINode>();
        return x->dtype == y->dtype && x->ndim == y->ndim && OptionalPrims(x->shape, y->shape);
      }
      case StructInfoKind::kTuple:
      case StructInfoKind::kFunc: break;  // above
    }
    return false;
  }

  bool Prim(const PrimExpr& a, const PrimExpr& b) {
    if (a == nullptr || b == nullptr) return a == b;
    if (a->kind != b->kind || a->dtype != b->dtype) return false;
    switch (a->kind) {
      case PrimKind::kIntImm: return a->As<IntImmNode>()->value == b->As<IntImmNode>()->value;
      case PrimKind::kFloatImm: return SameDouble(a->As<FloatImmNode>()->value, b->As<FloatImmNode>()->value);
      case PrimKind::kVar:
        return PrimVarRef(std::static_pointer_cast<const PrimVarNode>(a),
                          std::static_pointer_cast<const PrimVarNode>(b));
      case PrimKind::kBinary: {
        auto* x = a->As<BinaryNode>();
        auto* y = b->As<BinaryNode>();
        return x->op == y->op && Prim(x->a, y->a) && Prim(x->b, y->b);
      }
      case PrimKind::kNot: return Prim(a->As<NotNode>()->value, b->As<NotNode>()->value);
      case PrimKind::kSelect: {
        auto* x = a->As<SelectNode>();
        auto* y = b->As<SelectNode>();
        return Prim(x->cond, y->cond) && Prim(x->if_true, y->if_true) && Prim(x->if_false, y->if_false);
      }
      case PrimKind::kCast: return Prim(a->As<CastNode>()->value, b->As<CastNode>()->value);
      case PrimKind::kIntrinsic: {
        auto* x = a->As<IntrinsicNode>();
        auto* y = b->As<IntrinsicNode>();
        return x->name == y->name && Prims(x->args, y->args);
      }
      case PrimKind::kLoad: {
        auto* x = a->As<LoadNode>();
        auto* y = b->As<LoadNode>();
        return BufferRef(x->buffer, y->buffer) && Prims(x->indices, y->indices);
      }
    }
    return false;
  }

 private:
  struct NodePairHash {
    size_t operator()(const std::pair<const void*, const void*>& p) const {
      return std::hash<const void*>()(p.first) * 31 + std::hash<const void*>()(p.second);
    }
  };

  /// Tuples and function signatures, field by field.
  bool CompositeSInfo(const StructInfo& a, const StructInfo& b) {
    if (const auto* x = a->As<TupleSINode>()) {
      const auto* y = b->As<TupleSINode>();
      if (x->fields.size() != y->fields.size()) return false;
      for (size_t i = 0; i < x->fields.size(); ++i) {
        if (!SInfo(x->fields[i], y->fields[i])) return false;
      }
      return true;
    }
    auto* x = a->As<FuncSINode>();
    auto* y = b->As<FuncSINode>();
    if (x->is_pure != y->is_pure || x->params.size() != y->params.size()) return false;
    for (size_t i = 0; i < x->params.size(); ++i) {
      if (!SInfo(x->params[i], y->params[i])) return false;
    }
    return SInfo(x->ret, y->ret);
  }

  bool Seq(const SeqExpr& a, const SeqExpr& b) {
    if (a == nullptr || b == nullptr) return a == b;
    if (a->blocks.size() != b->blocks.size()) return false;
    for (size_t i = 0; i < a->blocks.size(); ++i) {
      const BindingBlock& x = a->blocks[i];
      const BindingBlock& y = b->blocks[i];
      if (x.is_dataflow != y.is_dataflow || x.bindings.size() != y.bindings.size()) return false;
      for (size_t j = 0; j < x.bindings.size(); ++j) {
        if (!BindingEq(x.bindings[j], y.bindings[j])) return false;
      }
    }
    return Expression(a->body, b->body);
  }

  bool BindingEq(const Binding& a, const Binding& b) {
    return a.is_match_cast() == b.is_match_cast() && Expression(a.value, b.value) &&
           SInfo(a.match_sinfo, b.match_sinfo) && VarRef(a.var, b.var);
  }

  bool Statement(const Stmt& a, const Stmt& b) {
    if (a == nullptr || b == nullptr) return a == b;
    if (a->kind != b->kind) return false;
    switch (a->kind) {
      case StmtKind::kSeq: {
        const auto& x = a->As<SeqStmtNode>()->stmts;
        const auto& y = b->As<SeqStmtNode>()->stmts;
        if (x.size() != y.size()) return false;
        for (size_t i = 0; i < x.size(); ++i) {
          if (!Statement(x[i], y[i])) return false;
        }
        return true;
      }
      case StmtKind::kFor: {
        auto* x = a->As<ForNode>();
        auto* y = b->As<ForNode>();
        return x->loop_kind == y->loop_kind && Prim(x->extent, y->extent) && PrimVarRef(x->var, y->var) &&
               Statement(x->body, y->body);
      }
      case StmtKind::kStore: {
        auto* x = a->As<StoreNode>();
        auto* y = b->As<StoreNode>();
        return BufferRef(x->buffer, y->buffer) && Prims(x->indices, y->indices) && Prim(x->value, y->value);
      }
      case StmtKind::kIf: {
        auto* x = a->As<IfStmtNode>();
        auto* y = b->As<IfStmtNode>();
        return Prim(x->cond, y->cond) && Statement(x->then_case, y->then_case) && Statement(x->else_case, y->else_case);
      }
      case StmtKind::kAllocate: {
        auto* x = a->As<AllocateNode>();
        auto* y = b->As<AllocateNode>();
        return BufferRef(x->buffer, y->buffer) && Statement(x->body, y->body);
      }
      case StmtKind::kBlock: {
        auto* x = a->As<BlockNode>();
        auto* y = b->As<BlockNode>();
        if (x->name != y->name || x->iter_vars.size() != y->iter_vars.size()) return false;
        for (size_t i = 0; i < x->iter_vars.size(); ++i) {
          const IterVar& p = x->iter_vars[i];
          const IterVar& q = y->iter_vars[i];
          if (p.kind != q.kind || !Prim(p.value, q.value) || !PrimVarRef(p.var, q.var)) return false;
        }
        return Statement(x->init, y->init) && Statement(x->body, y->body);
      }
    }
    return false;
  }

  bool VarRef(const Var& a, const Var& b) {
    if (a == nullptr || b == nullptr) return a == b;
    switch (vars_.Match(a.get(), b.get())) {
      case Bijection<VarNode>::Result::kPaired: return true;
      case Bijection<VarNode>::Result::kMismatch: return false;
      case Bijection<VarNode>::Result::kNew: break;
    }
    return a->is_dataflow == b->is_dataflow && SInfo(a->struct_info, b->struct_info);
  }

  bool PrimVarRef(const PrimVar& a, const PrimVar& b) {
    if (a == nullptr || b == nullptr) return a == b;
    if (a->dtype != b->dtype) return false;
    return prim_vars_.Match(a.get(), b.get()) != Bijection<PrimVarNode>::Result::kMismatch;
  }

  bool BufferRef(const Buffer& a, const Buffer& b) {
    if (a == nullptr || b == nullptr) return a == b;
    switch (buffers_.Match(a.get(), b.get())) {
      case Bijection<BufferNode>::Result::kPaired: return true;
      case Bijection<BufferNode>::Result::kMismatch: return false;
      case Bijection<BufferNode>::Result::kNew: break;
    }
    return a->dtype == b->dtype && Prims(a->shape, b->shape) && Prims(a->strides, b->strides);
  }

  bool Exprs(const std::vector<Expr>& a, const std::vector<Expr>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!Expression(a[i], b[i])) return false;
    }
    return true;
  }

  bool Prims(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!Prim(a[i], b[i])) return false;
    }
    return true;
  }

  bool OptionalPrims(const std::optional<std::vector<PrimExpr>>& a, const std::optional<std::vector<PrimExpr>>& b) {
    if (a.has_value() != b.has_value()) return false;
    return !a || Prims(*a, *b);
  }

  Bijection<VarNode> vars_;
  Bijection<PrimVarNode> prim_vars_;
  Bijection<BufferNode> buffers_;
  std::unordered_set<std::pair<const void*, const void*>, NodePairHash> equal_sinfo_;
};

}  // namespace

bool StructuralEqual(const IRModule& a, const IRModule& b) { return StructuralComparer().Module(a, b); }
bool StructuralEqual(const Function& a, const Function& b) { return StructuralComparer().Function(a, b); }
bool StructuralEqual(const KernelFunction& a, const KernelFunction& b) { return StructuralComparer().Kernel(a, b); }
bool StructuralEqual(const Expr& a, const Expr& b) { return StructuralComparer().Expression(a, b); }
bool StructuralEqual(const StructInfo& a, const StructInfo& b) { return StructuralComparer().SInfo(a, b); }
bool StructuralEqual(const PrimExpr& a, const PrimExpr& b) { return StructuralComparer().Prim(a, b); }

}  // namespace rxt
