// Default rewrites of ExprMutator, PrimExprMutator and StmtMutator: visit the children and
// rebuild a node only when one of them changed.
#include "rxt/ir/mutator.h"

#include <functional>

namespace rxt {
namespace {

using PrimRewrite = std::function<PrimExpr(const PrimExpr&)>;

template <typename T>
bool SameNodes(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

std::vector<PrimExpr> RewriteAll(const std::vector<PrimExpr>& values, const PrimRewrite& rewrite) {
  std::vector<PrimExpr> out;
  out.reserve(values.size());
  for (const PrimExpr& v : values) out.push_back(rewrite(v));
  return out;
}

/// Tuples and signatures already rewritten, and their results (the key is held so that its
/// address is not reused while the map lives).
using SInfoMemo = std::unordered_map<StructInfo, StructInfo>;

/// Rebuilds |sinfo| with every scalar expression passed through |rewrite|; returns the
/// same node when nothing changed. Struct info is shared (a tuple may hold one sub-type
/// twice, at every level): |memo| makes each tuple or signature node rewritten once, so the
/// result is shared the same way and the time is linear in the number of distinct nodes.
StructInfo RewriteStructInfo(const StructInfo& sinfo, const PrimRewrite& rewrite, SInfoMemo& memo) {
  if (sinfo == nullptr) return sinfo;
  const bool composite = sinfo->kind == StructInfoKind::kTuple || sinfo->kind == StructInfoKind::kFunc;
  if (composite) {
    if (auto it = memo.find(sinfo); it != memo.end()) return it->second;
    StructInfo result;
    if (const auto* tuple = sinfo->As<TupleSINode>()) {
      std::vector<StructInfo> fields;
      for (const StructInfo& f : tuple->fields) fields.push_back(RewriteStructInfo(f, rewrite, memo));
      result = SameNodes(fields, tuple->fields) ? sinfo : TupleSI(std::move(fields));
    } else {
      auto* func = sinfo->As<FuncSINode>();
      std::vector<StructInfo> params;
      for (const StructInfo& p : func->params) params.push_back(RewriteStructInfo(p, rewrite, memo));
      StructInfo ret = RewriteStructInfo(func->ret, rewrite, memo);
      result = SameNodes(params, func->params) && ret == func->ret ? sinfo
                                                                   : FuncSI(std::move(params), std::move(ret), func->is_pure);
    }
    return memo[sinfo] = result;
  }
  switch (sinfo->kind) {
    case StructInfoKind::kObject: return sinfo;
    case StructInfoKind::kPrim: {
      auto* prim = sinfo->As<PrimSINode>();
      if (!prim->value) return sinfo;
      PrimExpr value = rewrite(prim->value);
      return value == prim->value ? sinfo : PrimSI(prim->dtype, value);
    }
    case StructInfoKind::kShape: {
      auto* shape = sinfo->As<ShapeSINode>();
      if (!shape->values) return sinfo;
      std::vector<PrimExpr> values = RewriteAll(*shape->values, rewrite);
      return SameNodes(values, *shape->values) ? sinfo : ShapeSI(std::move(values));
    }
    case StructInfoKind::kTensor: {
      auto* tensor = sinfo->As<TensorSINode>();
      if (!tensor->shape) return sinfo;
      std::vector<PrimExpr> dims = RewriteAll(*tensor->shape, rewrite);
      return SameNodes(dims, *tensor->shape) ? sinfo : TensorSI(std::move(dims), tensor->dtype);
    }
    case StructInfoKind::kTuple:
    case StructInfoKind::kFunc: break;  // above
  }
  return sinfo;
}

bool SameBlock(const BindingBlock& a, const BindingBlock& b) {
  if (a.is_dataflow != b.is_dataflow || a.bindings.size() != b.bindings.size()) return false;
  for (size_t i = 0; i < a.bindings.size(); ++i) {
    const Binding& x = a.bindings[i];
    const Binding& y = b.bindings[i];
    if (x.var != y.var || x.value != y.value || x.match_sinfo != y.match_sinfo) return false;
  }
  return true;
}

bool IsCallee(ExprKind kind) {
  return kind == ExprKind::kOp || kind == ExprKind::kGlobalVar || kind == ExprKind::kExternFunc;
}

class PrimVarSubstituter : public PrimExprMutator {
 public:
  explicit PrimVarSubstituter(const PrimVarMap& map) : map_(map) {}
  PrimExpr VisitPrimVar(const PrimVar& var) override {
    auto it = map_.find(var.get());
    return it == map_.end() ? var : it->second;
  }

 private:
  const PrimVarMap& map_;
};

}  // namespace

// ---- ExprMutator

IRModule ExprMutator::MutateModule(IRModule module) {
  builder_ = BlockBuilder(&module);
  // Index-based: Add() replaces an entry in place, which keeps positions stable.
  for (size_t i = 0; i < module.entries().size(); ++i) {
    const IRModule::Entry entry = module.entries()[i];
    if (!entry.function) continue;
    Function rewritten = VisitFunction(entry.function);
    if (rewritten != entry.function) module.Add(entry.name, rewritten);
  }
  builder_ = BlockBuilder(nullptr);
  return module;
}

Function ExprMutator::VisitFunction(const Function& function) {
  std::vector<Var> params;
  for (const Var& param : function->params) params.push_back(VisitVarDef(param));
  SeqExpr body = VisitSeqExpr(function->body);
  StructInfo ret = VisitStructInfo(function->ret_sinfo);
  if (SameNodes(params, function->params) && body == function->body && ret == function->ret_sinfo) { return function; }
  return MakeFunction(std::move(params), std::move(body), std::move(ret), function->attrs, function->is_pure,
                      function->span);
}

Expr ExprMutator::VisitExpr(const Expr& e) {
  Expr result;
  switch (e->kind) {
    case ExprKind::kVar: result = VisitVar(std::static_pointer_cast<const VarNode>(e)); break;
    case ExprKind::kConstant: result = VisitConstant(e, static_cast<const ConstantNode&>(*e)); break;
    case ExprKind::kTuple: result = VisitTuple(e, static_cast<const TupleNode&>(*e)); break;
    case ExprKind::kTupleGetItem: result = VisitTupleGetItem(e, static_cast<const TupleGetItemNode&>(*e)); break;
    case ExprKind::kCall: result = VisitCall(e, static_cast<const CallNode&>(*e)); break;
    case ExprKind::kShapeExpr: result = VisitShapeExpr(e, static_cast<const ShapeExprNode&>(*e)); break;
    case ExprKind::kPrimValue: result = VisitPrimValue(e, static_cast<const PrimValueNode&>(*e)); break;
    case ExprKind::kStringImm: result = VisitStringImm(e, static_cast<const StringImmNode&>(*e)); break;
    case ExprKind::kIf: result = VisitIf(e, static_cast<const IfNode&>(*e)); break;
    case ExprKind::kOp: result = VisitOp(e, static_cast<const OpNode&>(*e)); break;
    case ExprKind::kGlobalVar: result = VisitGlobalVar(e, static_cast<const GlobalVarNode&>(*e)); break;
    case ExprKind::kExternFunc: result = VisitExternFunc(e, static_cast<const ExternFuncNode&>(*e)); break;
  }
  // Callees are not values and carry no struct info of their own.
  if (IsCallee(result->kind) || result->struct_info) return result;
  return builder_.Normalize(result);
}

SeqExpr ExprMutator::VisitSeqExpr(const SeqExpr& seq) {
  std::vector<BindingBlock> blocks;
  bool changed = false;
  for (const BindingBlock& block : seq->blocks) {
    BindingBlock rewritten = VisitBindingBlock(block);
    changed |= !SameBlock(rewritten, block) || rewritten.bindings.empty();
    if (!rewritten.bindings.empty()) blocks.push_back(std::move(rewritten));
  }
  // Normalizing the body may bind parts of it: those bindings form a last block.
  builder_.BeginBindingBlock();
  Expr body = VisitExpr(seq->body);
  BindingBlock prologue = builder_.EndBlock();
  if (!prologue.bindings.empty()) {
    blocks.push_back(std::move(prologue));
    changed = true;
  }
  if (!changed && body == seq->body) return seq;
  return MakeSeqFromBlocks(std::move(blocks), std::move(body));
}

BindingBlock ExprMutator::VisitBindingBlock(const BindingBlock& block) {
  if (block.is_dataflow) {
    builder_.BeginDataflowBlock();
  } else {
    builder_.BeginBindingBlock();
  }
  for (const Binding& binding : block.bindings) VisitBinding(binding);
  return builder_.EndBlock();
}

void ExprMutator::VisitBinding(const Binding& binding) {
  Expr value = VisitExpr(binding.value);
  if (!binding.is_match_cast()) {
    ReEmitBinding(binding, value);
    return;
  }
  StructInfo match = VisitStructInfo(binding.match_sinfo);
  Var var = VisitVarDef(binding.var);
  if (value == binding.value && match == binding.match_sinfo && var == binding.var) {
    builder_.AddBinding(binding);
  } else {
    builder_.AddBinding(Binding{var, value, match});
  }
}

void ExprMutator::ReEmitBinding(const Binding& binding, const Expr& new_value) {
  Var var = VisitVarDef(binding.var);
  if (var == binding.var && new_value == binding.value && var->struct_info) {
    builder_.AddBinding(binding);
    return;
  }
  const StructInfo& value_sinfo = GetStructInfo(new_value);
  if (var->struct_info == nullptr || !IsBaseOf(var->struct_info, value_sinfo)) {
    var = CopyVarWithStructInfo(binding.var, value_sinfo);
    var_remap_[binding.var.get()] = var;
  }
  builder_.AddBinding(Binding{var, new_value, nullptr});
}

Var ExprMutator::CopyVarWithStructInfo(const Var& var, StructInfo sinfo) {
  return var->is_dataflow ? MakeDataflowVar(var->name, std::move(sinfo), var->span)
                          : MakeVar(var->name, std::move(sinfo), var->span);
}

Var ExprMutator::VisitVarDef(const Var& var) {
  StructInfo sinfo = VisitStructInfo(var->struct_info);
  if (sinfo == var->struct_info) return var;
  Var fresh = CopyVarWithStructInfo(var, std::move(sinfo));
  var_remap_[var.get()] = fresh;
  return fresh;
}

StructInfo ExprMutator::VisitStructInfo(const StructInfo& sinfo) {
  return RewriteStructInfo(sinfo, [this](const PrimExpr& e) { return VisitPrimExpr(e); }, rewritten_sinfo_);
}

PrimExpr ExprMutator::VisitPrimExpr(const PrimExpr& e) { return e; }

Expr ExprMutator::VisitVar(const Var& var) {
  auto it = var_remap_.find(var.get());
  return it == var_remap_.end() ? var : it->second;
}

Expr ExprMutator::VisitConstant(const Expr& e, const ConstantNode&) { return e; }

Expr ExprMutator::VisitTuple(const Expr& e, const TupleNode& node) {
  std::vector<Expr> fields;
  for (const Expr& field : node.fields) fields.push_back(VisitExpr(field));
  if (SameNodes(fields, node.fields)) return e;
  return MakeTuple(std::move(fields), node.span);
}

Expr ExprMutator::VisitTupleGetItem(const Expr& e, const TupleGetItemNode& node) {
  Expr tuple = VisitExpr(node.tuple);
  if (tuple == node.tuple) return e;
  return MakeTupleGetItem(std::move(tuple), node.index, node.span);
}

Expr ExprMutator::VisitCall(const Expr& e, const CallNode& node) {
  Expr callee = VisitExpr(node.callee);
  std::vector<Expr> args;
  for (const Expr& arg : node.args) args.push_back(VisitExpr(arg));
  std::vector<StructInfo> sinfo_args;
  for (const StructInfo& s : node.sinfo_args) sinfo_args.push_back(VisitStructInfo(s));
  if (callee == node.callee && SameNodes(args, node.args) && SameNodes(sinfo_args, node.sinfo_args)) return e;
  return MakeCall(std::move(callee), std::move(args), node.attrs, std::move(sinfo_args), node.span);
}

Expr ExprMutator::VisitShapeExpr(const Expr& e, const ShapeExprNode& node) {
  std::vector<PrimExpr> values;
  for (const PrimExpr& v : node.values) values.push_back(VisitPrimExpr(v));
  if (SameNodes(values, node.values)) return e;
  return MakeShapeExpr(std::move(values), node.span);
}

Expr ExprMutator::VisitPrimValue(const Expr& e, const PrimValueNode& node) {
  PrimExpr value = VisitPrimExpr(node.value);
  if (value == node.value) return e;
  return MakePrimValue(std::move(value), node.span);
}

Expr ExprMutator::VisitStringImm(const Expr& e, const StringImmNode&) { return e; }

Expr ExprMutator::VisitIf(const Expr& e, const IfNode& node) {
  Expr cond = VisitExpr(node.cond);
  SeqExpr then_branch = VisitSeqExpr(node.then_branch);
  SeqExpr else_branch = VisitSeqExpr(node.else_branch);
  if (cond == node.cond && then_branch == node.then_branch && else_branch == node.else_branch) return e;
  return MakeIf(std::move(cond), std::move(then_branch), std::move(else_branch), node.span);
}

Expr ExprMutator::VisitOp(const Expr& e, const OpNode&) { return e; }
Expr ExprMutator::VisitGlobalVar(const Expr& e, const GlobalVarNode&) { return e; }
Expr ExprMutator::VisitExternFunc(const Expr& e, const ExternFuncNode&) { return e; }

// ---- PrimExprMutator

PrimExpr PrimExprMutator::VisitPrimExpr(const PrimExpr& e) {
  switch (e->kind) {
    case PrimKind::kIntImm:
    case PrimKind::kFloatImm: return e;
    case PrimKind::kVar: return VisitPrimVar(std::static_pointer_cast<const PrimVarNode>(e));
    case PrimKind::kBinary: return VisitBinary(e, static_cast<const BinaryNode&>(*e));
    case PrimKind::kNot: return VisitNot(e, static_cast<const NotNode&>(*e));
    case PrimKind::kSelect: return VisitSelect(e, static_cast<const SelectNode&>(*e));
    case PrimKind::kCast: return VisitCast(e, static_cast<const CastNode&>(*e));
    case PrimKind::kIntrinsic: return VisitIntrinsic(e, static_cast<const IntrinsicNode&>(*e));
    case PrimKind::kLoad: return VisitLoad(e, static_cast<const LoadNode&>(*e));
  }
  return e;
}

Buffer PrimExprMutator::VisitBuffer(const Buffer& buffer) {
  if (auto it = buffer_remap_.find(buffer.get()); it != buffer_remap_.end()) return it->second;
  auto rewrite = [this](const PrimExpr& e) { return VisitPrimExpr(e); };
  std::vector<PrimExpr> shape = RewriteAll(buffer->shape, rewrite);
  std::vector<PrimExpr> strides = RewriteAll(buffer->strides, rewrite);
  Buffer result = buffer;
  if (!SameNodes(shape, buffer->shape) || !SameNodes(strides, buffer->strides)) {
    result = MakeBuffer(buffer->name, buffer->dtype, std::move(shape), std::move(strides));
  }
  buffer_remap_[buffer.get()] = result;
  return result;
}

PrimExpr PrimExprMutator::VisitPrimVar(const PrimVar& var) { return var; }

PrimExpr PrimExprMutator::VisitBinary(const PrimExpr& e, const BinaryNode& node) {
  PrimExpr a = VisitPrimExpr(node.a);
  PrimExpr b = VisitPrimExpr(node.b);
  if (a == node.a && b == node.b) return e;
  return MakeBinary(node.op, std::move(a), std::move(b));
}

PrimExpr PrimExprMutator::VisitNot(const PrimExpr& e, const NotNode& node) {
  PrimExpr value = VisitPrimExpr(node.value);
  return value == node.value ? e : MakeNot(std::move(value));
}

PrimExpr PrimExprMutator::VisitSelect(const PrimExpr& e, const SelectNode& node) {
  PrimExpr cond = VisitPrimExpr(node.cond);
  PrimExpr if_true = VisitPrimExpr(node.if_true);
  PrimExpr if_false = VisitPrimExpr(node.if_false);
  if (cond == node.cond && if_true == node.if_true && if_false == node.if_false) return e;
  return MakeSelect(std::move(cond), std::move(if_true), std::move(if_false));
}

PrimExpr PrimExprMutator::VisitCast(const PrimExpr& e, const CastNode& node) {
  PrimExpr value = VisitPrimExpr(node.value);
  return value == node.value ? e : MakeCast(node.dtype, std::move(value));
}

PrimExpr PrimExprMutator::VisitIntrinsic(const PrimExpr& e, const IntrinsicNode& node) {
  std::vector<PrimExpr> args = RewriteAll(node.args, [this](const PrimExpr& x) { return VisitPrimExpr(x); });
  return SameNodes(args, node.args) ? e : MakeIntrinsic(node.name, std::move(args));
}

PrimExpr PrimExprMutator::VisitLoad(const PrimExpr& e, const LoadNode& node) {
  Buffer buffer = VisitBuffer(node.buffer);
  std::vector<PrimExpr> indices = RewriteAll(node.indices, [this](const PrimExpr& x) { return VisitPrimExpr(x); });
  if (buffer == node.buffer && SameNodes(indices, node.indices)) return e;
  return MakeLoad(std::move(buffer), std::move(indices));
}

// ---- StmtMutator

KernelFunction StmtMutator::VisitKernel(const KernelFunction& kernel) {
  std::vector<KernelParam> params;
  bool changed = false;
  for (const KernelParam& param : kernel->params) {
    KernelParam rewritten{param.buffer ? VisitBuffer(param.buffer) : nullptr,
                          param.scalar ? VisitPrimVarDef(param.scalar) : nullptr};
    changed |= rewritten.buffer != param.buffer || rewritten.scalar != param.scalar;
    params.push_back(std::move(rewritten));
  }
  Stmt body = kernel->body ? VisitStmt(kernel->body) : nullptr;
  if (!changed && body == kernel->body) return kernel;
  return MakeKernelFunction(std::move(params), std::move(body), kernel->attrs);
}

Stmt StmtMutator::VisitStmt(const Stmt& s) {
  switch (s->kind) {
    case StmtKind::kSeq: return VisitSeqStmt(s, static_cast<const SeqStmtNode&>(*s));
    case StmtKind::kFor: return VisitFor(s, static_cast<const ForNode&>(*s));
    case StmtKind::kStore: return VisitStore(s, static_cast<const StoreNode&>(*s));
    case StmtKind::kIf: return VisitIfStmt(s, static_cast<const IfStmtNode&>(*s));
    case StmtKind::kAllocate: return VisitAllocate(s, static_cast<const AllocateNode&>(*s));
    case StmtKind::kBlock: return VisitBlock(s, static_cast<const BlockNode&>(*s));
  }
  return s;
}

PrimVar StmtMutator::VisitPrimVarDef(const PrimVar& var) { return var; }

Stmt StmtMutator::VisitSeqStmt(const Stmt& s, const SeqStmtNode& node) {
  std::vector<Stmt> stmts;
  for (const Stmt& child : node.stmts) stmts.push_back(VisitStmt(child));
  return SameNodes(stmts, node.stmts) ? s : MakeSeq(std::move(stmts));
}

Stmt StmtMutator::VisitFor(const Stmt& s, const ForNode& node) {
  PrimExpr extent = VisitPrimExpr(node.extent);
  PrimVar var = VisitPrimVarDef(node.var);
  Stmt body = VisitStmt(node.body);
  if (extent == node.extent && var == node.var && body == node.body) return s;
  return MakeFor(std::move(var), std::move(extent), std::move(body), node.loop_kind);
}

Stmt StmtMutator::VisitStore(const Stmt& s, const StoreNode& node) {
  Buffer buffer = VisitBuffer(node.buffer);
  std::vector<PrimExpr> indices = RewriteAll(node.indices, [this](const PrimExpr& x) { return VisitPrimExpr(x); });
  PrimExpr value = VisitPrimExpr(node.value);
  if (buffer == node.buffer && SameNodes(indices, node.indices) && value == node.value) return s;
  return MakeStore(std::move(buffer), std::move(indices), std::move(value));
}

Stmt StmtMutator::VisitIfStmt(const Stmt& s, const IfStmtNode& node) {
  PrimExpr cond = VisitPrimExpr(node.cond);
  Stmt then_case = VisitStmt(node.then_case);
  Stmt else_case = node.else_case ? VisitStmt(node.else_case) : nullptr;
  if (cond == node.cond && then_case == node.then_case && else_case == node.else_case) return s;
  return MakeIfStmt(std::move(cond), std::move(then_case), std::move(else_case));
}

Stmt StmtMutator::VisitAllocate(const Stmt& s, const AllocateNode& node) {
  Buffer buffer = VisitBuffer(node.buffer);
  Stmt body = VisitStmt(node.body);
  if (buffer == node.buffer && body == node.body) return s;
  return MakeAllocate(std::move(buffer), std::move(body));
}

Stmt StmtMutator::VisitBlock(const Stmt& s, const BlockNode& node) {
  std::vector<IterVar> iter_vars;
  bool changed = false;
  for (const IterVar& iter : node.iter_vars) {
    IterVar rewritten{nullptr, VisitPrimExpr(iter.value), iter.kind};
    rewritten.var = VisitPrimVarDef(iter.var);
    changed |= rewritten.var != iter.var || rewritten.value != iter.value;
    iter_vars.push_back(std::move(rewritten));
  }
  Stmt init = node.init ? VisitStmt(node.init) : nullptr;
  Stmt body = VisitStmt(node.body);
  if (!changed && init == node.init && body == node.body) return s;
  return MakeBlock(node.name, std::move(iter_vars), std::move(init), std::move(body));
}

// ---- Substitution

PrimExpr Substitute(const PrimExpr& e, const PrimVarMap& map) {
  if (map.empty() || e == nullptr) return e;
  return PrimVarSubstituter(map).VisitPrimExpr(e);
}

StructInfo Substitute(const StructInfo& sinfo, const PrimVarMap& map) {
  if (map.empty()) return sinfo;
  PrimVarSubstituter substituter(map);
  SInfoMemo memo;
  return RewriteStructInfo(sinfo, [&](const PrimExpr& e) { return substituter.VisitPrimExpr(e); }, memo);
}

}  // namespace rxt
