// Structural hashing modulo variable names (see equality.h). A variable, scalar variable or
// buffer hashes as the order in which the walk first met it (plus, that first time, what
// equality compares about it), so renaming changes nothing and equal IR hashes equally.
#include <bit>
#include <cstring>
#include <functional>
#include <string_view>
#include <unordered_map>

#include "rxt/ir/equality.h"

namespace rxt {
namespace {

class StructuralHasher {
 public:
  size_t result() const { return hash_; }

  void Module(const IRModule& m) {
    Attributes(m.attrs);
    Mix(m.entries().size());
    for (const IRModule::Entry& entry : m.entries()) {
      String(entry.name);
      Function(entry.function);
      Kernel(entry.kernel);
    }
  }

  void Function(const rxt::Function& f) {
    Mix(f != nullptr);
    if (!f) return;
    Mix(f->params.size());
    Mix(f->is_pure);
    for (const Var& param : f->params) VarRef(param);
    Seq(f->body);
    SInfo(f->ret_sinfo);
    Attributes(f->attrs);
  }

  void Kernel(const KernelFunction& k) {
    Mix(k != nullptr);
    if (!k) return;
    Mix(k->params.size());
    for (const KernelParam& param : k->params) {
      BufferRef(param.buffer);
      PrimVarRef(param.scalar);
    }
    Statement(k->body);
    Attributes(k->attrs);
  }

  void Expression(const Expr& e) {
    Mix(e != nullptr);
    if (!e) return;
    Mix(static_cast<int>(e->kind));
    switch (e->kind) {
      case ExprKind::kVar: return VarRef(std::static_pointer_cast<const VarNode>(e));
      case ExprKind::kConstant: return TensorData(e->As<ConstantNode>()->data);
      case ExprKind::kTuple: return Exprs(e->As<TupleNode>()->fields);
      case ExprKind::kTupleGetItem:
        Mix(e->As<TupleGetItemNode>()->index);
        return Expression(e->As<TupleGetItemNode>()->tuple);
      case ExprKind::kCall: {
        auto* call = e->As<CallNode>();
        Expression(call->callee);
        Exprs(call->args);
        Attributes(call->attrs);
        Mix(call->sinfo_args.size());
        for (const StructInfo& s : call->sinfo_args) SInfo(s);
        return;
      }
      case ExprKind::kShapeExpr: return Prims(e->As<ShapeExprNode>()->values);
      case ExprKind::kPrimValue: return Prim(e->As<PrimValueNode>()->value);
      case ExprKind::kStringImm: return String(e->As<StringImmNode>()->value);
      case ExprKind::kIf: {
        auto* node = e->As<IfNode>();
        Expression(node->cond);
        Seq(node->then_branch);
        return Seq(node->else_branch);
      }
      case ExprKind::kOp: return String(e->As<OpNode>()->name());
      case ExprKind::kGlobalVar: return String(e->As<GlobalVarNode>()->name);
      case ExprKind::kExternFunc: return String(e->As<ExternFuncNode>()->name);
    }
  }

  void SInfo(const StructInfo& s) {
    Mix(s != nullptr);
    if (!s) return;
    Mix(static_cast<int>(s->kind));
    switch (s->kind) {
      case StructInfoKind::kObject: return;
      case StructInfoKind::kPrim:
        Mix(static_cast<int>(s->As<PrimSINode>()->dtype));
        return Prim(s->As<PrimSINode>()->value);
      case StructInfoKind::kShape: Mix(s->As<ShapeSINode>()->ndim); return OptionalPrims(s->As<ShapeSINode>()->values);
      case StructInfoKind::kTensor:
        Mix(static_cast<int>(s->As<TensorSINode>()->dtype));
        Mix(s->As<TensorSINode>()->ndim);
        return OptionalPrims(s->As<TensorSINode>()->shape);
      case StructInfoKind::kTuple:
      case StructInfoKind::kFunc: return Mix(CompositeSInfo(s));
    }
  }

  void Prim(const PrimExpr& e) {
    Mix(e != nullptr);
    if (!e) return;
    Mix(static_cast<int>(e->kind));
    Mix(static_cast<int>(e->dtype));
    switch (e->kind) {
      case PrimKind::kIntImm: return Mix(static_cast<uint64_t>(e->As<IntImmNode>()->value));
      case PrimKind::kFloatImm: return Mix(std::bit_cast<uint64_t>(e->As<FloatImmNode>()->value));
      case PrimKind::kVar: return PrimVarRef(std::static_pointer_cast<const PrimVarNode>(e));
      case PrimKind::kBinary:
        Mix(static_cast<int>(e->As<BinaryNode>()->op));
        Prim(e->As<BinaryNode>()->a);
        return Prim(e->As<BinaryNode>()->b);
      case PrimKind::kNot: return Prim(e->As<NotNode>()->value);
      case PrimKind::kSelect:
        Prim(e->As<SelectNode>()->cond);
        Prim(e->As<SelectNode>()->if_true);
        return Prim(e->As<SelectNode>()->if_false);
      case PrimKind::kCast: return Prim(e->As<CastNode>()->value);
      case PrimKind::kIntrinsic: String(e->As<IntrinsicNode>()->name); return Prims(e->As<IntrinsicNode>()->args);
      case PrimKind::kLoad: BufferRef(e->As<LoadNode>()->buffer); return Prims(e->As<LoadNode>()->indices);
    }
  }

 private:
  /// The hash of a tuple or function signature on its own, mixed in as one value. Struct
  /// info is shared (a tuple may hold one sub-type twice, at every level), so each node is
  /// hashed once and remembered: its scalar variables got their ordinals the first time,
  /// which is what a second walk over it would mix in again.
  uint64_t CompositeSInfo(const StructInfo& s) {
    if (auto it = sinfo_hashes_.find(s.get()); it != sinfo_hashes_.end()) return it->second;
    const uint64_t outer = hash_;
    hash_ = 0;
    if (const auto* tuple = s->As<TupleSINode>()) {
      Mix(tuple->fields.size());
      for (const StructInfo& field : tuple->fields) SInfo(field);
    } else {
      auto* func = s->As<FuncSINode>();
      Mix(func->is_pure);
      Mix(func->params.size());
      for (const StructInfo& p : func->params) SInfo(p);
      SInfo(func->ret);
    }
    const uint64_t own = hash_;
    hash_ = outer;
    sinfo_hashes_[s.get()] = own;
    return own;
  }

  void Mix(uint64_t v) {
    // boost::hash_combine with a 64-bit golden-ratio constant.
    hash_ ^= std::hash<uint64_t>()(v) + 0x9e3779b97f4a7c15ULL + (hash_ << 6) + (hash_ >> 2);
  }
  void String(std::string_view s) {
    Mix(s.size());
    Mix(std::hash<std::string_view>()(s));
  }

  void TensorData(const Tensor& t) {
    Mix(t.defined());
    if (!t.defined()) return;
    Mix(static_cast<int>(t.dtype()));
    Mix(t.shape().size());
    for (int64_t d : t.shape()) Mix(static_cast<uint64_t>(d));
    String(std::string_view(static_cast<const char*>(t.data()), t.nbytes()));
  }

  void AttrVal(const AttrValue& v) {
    Mix(v.value.index());
    if (v.is<bool>()) return Mix(v.get<bool>());
    if (v.is<int64_t>()) return Mix(static_cast<uint64_t>(v.get<int64_t>()));
    if (v.is<double>()) return Mix(std::bit_cast<uint64_t>(v.get<double>()));
    if (v.is<std::string>()) return String(v.get<std::string>());
    if (v.is<DType>()) return Mix(static_cast<int>(v.get<DType>()));
    if (v.is<Tensor>()) return TensorData(v.get<Tensor>());
    if (v.is<AttrArray>()) {
      Mix(v.get<AttrArray>().size());
      for (const AttrValue& item : v.get<AttrArray>()) AttrVal(item);
    }
  }

  void Attributes(const Attrs& attrs) {
    Mix(attrs.size());
    for (const auto& [name, value] : attrs.entries()) {
      String(name);
      AttrVal(value);
    }
  }

  void Seq(const SeqExpr& seq) {
    Mix(seq != nullptr);
    if (!seq) return;
    Mix(seq->blocks.size());
    for (const BindingBlock& block : seq->blocks) {
      Mix(block.is_dataflow);
      Mix(block.bindings.size());
      for (const Binding& binding : block.bindings) {
        Mix(binding.is_match_cast());
        Expression(binding.value);
        SInfo(binding.match_sinfo);
        VarRef(binding.var);
      }
    }
    Expression(seq->body);
  }

  void Statement(const Stmt& s) {
    Mix(s != nullptr);
    if (!s) return;
    Mix(static_cast<int>(s->kind));
    switch (s->kind) {
      case StmtKind::kSeq:
        Mix(s->As<SeqStmtNode>()->stmts.size());
        for (const Stmt& child : s->As<SeqStmtNode>()->stmts) Statement(child);
        return;
      case StmtKind::kFor: {
        auto* node = s->As<ForNode>();
        Mix(static_cast<int>(node->loop_kind));
        Prim(node->extent);
        PrimVarRef(node->var);
        return Statement(node->body);
      }
      case StmtKind::kStore:
        BufferRef(s->As<StoreNode>()->buffer);
        Prims(s->As<StoreNode>()->indices);
        return Prim(s->As<StoreNode>()->value);
      case StmtKind::kIf:
        Prim(s->As<IfStmtNode>()->cond);
        Statement(s->As<IfStmtNode>()->then_case);
        return Statement(s->As<IfStmtNode>()->else_case);
      case StmtKind::kAllocate: BufferRef(s->As<AllocateNode>()->buffer); return Statement(s->As<AllocateNode>()->body);
      case StmtKind::kBlock: {
        auto* node = s->As<BlockNode>();
        String(node->name);
        Mix(node->iter_vars.size());
        for (const IterVar& iter : node->iter_vars) {
          Mix(static_cast<int>(iter.kind));
          Prim(iter.value);
          PrimVarRef(iter.var);
        }
        Statement(node->init);
        return Statement(node->body);
      }
    }
  }

  /// Mixes the first-encounter ordinal of |node|; returns true on that first encounter.
  template <typename Node>
  bool Ordinal(std::unordered_map<const Node*, uint64_t>& seen, const Node* node) {
    auto [it, inserted] = seen.emplace(node, seen.size());
    Mix(it->second);
    return inserted;
  }

  void VarRef(const Var& v) {
    Mix(v != nullptr);
    if (!v || !Ordinal(vars_, v.get())) return;
    Mix(v->is_dataflow);
    SInfo(v->struct_info);
  }

  void PrimVarRef(const PrimVar& v) {
    Mix(v != nullptr);
    if (!v) return;
    Mix(static_cast<int>(v->dtype));
    Ordinal(prim_vars_, v.get());
  }

  void BufferRef(const Buffer& b) {
    Mix(b != nullptr);
    if (!b || !Ordinal(buffers_, b.get())) return;
    Mix(static_cast<int>(b->dtype));
    Prims(b->shape);
    Prims(b->strides);
  }

  void Exprs(const std::vector<Expr>& exprs) {
    Mix(exprs.size());
    for (const Expr& e : exprs) Expression(e);
  }

  void Prims(const std::vector<PrimExpr>& values) {
    Mix(values.size());
    for (const PrimExpr& v : values) Prim(v);
  }

  void OptionalPrims(const std::optional<std::vector<PrimExpr>>& values) {
    Mix(values.has_value());
    if (values) Prims(*values);
  }

  uint64_t hash_ = 0;
  std::unordered_map<const VarNode*, uint64_t> vars_;
  std::unordered_map<const PrimVarNode*, uint64_t> prim_vars_;
  std::unordered_map<const BufferNode*, uint64_t> buffers_;
  std::unordered_map<const StructInfoNode*, uint64_t> sinfo_hashes_;
};

template <typename T, typename Walk>
size_t HashWith(const T& value, Walk walk) {
  StructuralHasher hasher;
  (hasher.*walk)(value);
  return hasher.result();
}

}  // namespace

size_t StructuralHash(const IRModule& m) { return HashWith(m, &StructuralHasher::Module); }
size_t StructuralHash(const Function& f) { return HashWith(f, &StructuralHasher::Function); }
size_t StructuralHash(const KernelFunction& k) { return HashWith(k, &StructuralHasher::Kernel); }
size_t StructuralHash(const Expr& e) { return HashWith(e, &StructuralHasher::Expression); }
size_t StructuralHash(const StructInfo& s) { return HashWith(s, &StructuralHasher::SInfo); }
size_t StructuralHash(const PrimExpr& e) { return HashWith(e, &StructuralHasher::Prim); }

}  // namespace rxt
