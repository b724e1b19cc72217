// Default traversals of ExprVisitor, PrimExprVisitor and StmtVisitor.
#include "rxt/ir/visitor.h"

namespace rxt {

// ---- ExprVisitor

void ExprVisitor::VisitFunction(const FunctionNode& function) {
  for (const Var& param : function.params) VisitVarDef(param);
  VisitSeqExpr(*function.body);
  VisitStructInfo(function.ret_sinfo);
}

void ExprVisitor::VisitExpr(const Expr& e) {
  switch (e->kind) {
    case ExprKind::kVar: return VisitVar(std::static_pointer_cast<const VarNode>(e));
    case ExprKind::kConstant: return VisitConstant(static_cast<const ConstantNode&>(*e));
    case ExprKind::kTuple: return VisitTuple(static_cast<const TupleNode&>(*e));
    case ExprKind::kTupleGetItem: return VisitTupleGetItem(static_cast<const TupleGetItemNode&>(*e));
    case ExprKind::kCall: return VisitCall(static_cast<const CallNode&>(*e));
    case ExprKind::kShapeExpr: return VisitShapeExpr(static_cast<const ShapeExprNode&>(*e));
    case ExprKind::kPrimValue: return VisitPrimValue(static_cast<const PrimValueNode&>(*e));
    case ExprKind::kStringImm: return VisitStringImm(static_cast<const StringImmNode&>(*e));
    case ExprKind::kIf: return VisitIf(static_cast<const IfNode&>(*e));
    case ExprKind::kOp: return VisitOp(static_cast<const OpNode&>(*e));
    case ExprKind::kGlobalVar: return VisitGlobalVar(static_cast<const GlobalVarNode&>(*e));
    case ExprKind::kExternFunc: return VisitExternFunc(static_cast<const ExternFuncNode&>(*e));
  }
}

void ExprVisitor::VisitSeqExpr(const SeqExprNode& seq) {
  for (const BindingBlock& block : seq.blocks) VisitBindingBlock(block);
  VisitExpr(seq.body);
}

void ExprVisitor::VisitBindingBlock(const BindingBlock& block) {
  for (const Binding& binding : block.bindings) VisitBinding(binding);
}

void ExprVisitor::VisitBinding(const Binding& binding) {
  VisitExpr(binding.value);
  if (binding.is_match_cast()) VisitStructInfo(binding.match_sinfo);
  VisitVarDef(binding.var);
}

void ExprVisitor::VisitVarDef(const Var& var) { VisitStructInfo(var->struct_info); }

void ExprVisitor::VisitStructInfo(const StructInfo& sinfo) {
  if (sinfo == nullptr) return;
  switch (sinfo->kind) {
    case StructInfoKind::kObject: return;
    case StructInfoKind::kPrim:
      if (auto* prim = sinfo->As<PrimSINode>(); prim->value) VisitPrimExpr(prim->value);
      return;
    case StructInfoKind::kShape:
      if (auto* shape = sinfo->As<ShapeSINode>(); shape->values) {
        for (const PrimExpr& dim : *shape->values) VisitPrimExpr(dim);
      }
      return;
    case StructInfoKind::kTensor:
      if (auto* tensor = sinfo->As<TensorSINode>(); tensor->shape) {
        for (const PrimExpr& dim : *tensor->shape) VisitPrimExpr(dim);
      }
      return;
    case StructInfoKind::kTuple:
      if (!visited_composites_.insert(sinfo).second) return;
      for (const StructInfo& field : sinfo->As<TupleSINode>()->fields) VisitStructInfo(field);
      return;
    case StructInfoKind::kFunc: {
      if (!visited_composites_.insert(sinfo).second) return;
      auto* func = sinfo->As<FuncSINode>();
      for (const StructInfo& param : func->params) VisitStructInfo(param);
      VisitStructInfo(func->ret);
      return;
    }
  }
}

void ExprVisitor::VisitPrimExpr(const PrimExpr&) {}
void ExprVisitor::VisitVar(const Var&) {}
void ExprVisitor::VisitConstant(const ConstantNode&) {}

void ExprVisitor::VisitTuple(const TupleNode& node) {
  for (const Expr& field : node.fields) VisitExpr(field);
}

void ExprVisitor::VisitTupleGetItem(const TupleGetItemNode& node) { VisitExpr(node.tuple); }

void ExprVisitor::VisitCall(const CallNode& node) {
  VisitExpr(node.callee);
  for (const Expr& arg : node.args) VisitExpr(arg);
  for (const StructInfo& sinfo : node.sinfo_args) VisitStructInfo(sinfo);
}

void ExprVisitor::VisitShapeExpr(const ShapeExprNode& node) {
  for (const PrimExpr& value : node.values) VisitPrimExpr(value);
}

void ExprVisitor::VisitPrimValue(const PrimValueNode& node) { VisitPrimExpr(node.value); }
void ExprVisitor::VisitStringImm(const StringImmNode&) {}

void ExprVisitor::VisitIf(const IfNode& node) {
  VisitExpr(node.cond);
  VisitSeqExpr(*node.then_branch);
  VisitSeqExpr(*node.else_branch);
}

void ExprVisitor::VisitOp(const OpNode&) {}
void ExprVisitor::VisitGlobalVar(const GlobalVarNode&) {}
void ExprVisitor::VisitExternFunc(const ExternFuncNode&) {}

// ---- PrimExprVisitor

void PrimExprVisitor::VisitPrimExpr(const PrimExpr& e) {
  switch (e->kind) {
    case PrimKind::kIntImm: return VisitIntImm(static_cast<const IntImmNode&>(*e));
    case PrimKind::kFloatImm: return VisitFloatImm(static_cast<const FloatImmNode&>(*e));
    case PrimKind::kVar: return VisitPrimVar(std::static_pointer_cast<const PrimVarNode>(e));
    case PrimKind::kBinary: return VisitBinary(static_cast<const BinaryNode&>(*e));
    case PrimKind::kNot: return VisitNot(static_cast<const NotNode&>(*e));
    case PrimKind::kSelect: return VisitSelect(static_cast<const SelectNode&>(*e));
    case PrimKind::kCast: return VisitCast(static_cast<const CastNode&>(*e));
    case PrimKind::kIntrinsic: return VisitIntrinsic(static_cast<const IntrinsicNode&>(*e));
    case PrimKind::kLoad: return VisitLoad(static_cast<const LoadNode&>(*e));
  }
}

void PrimExprVisitor::VisitBufferUse(const Buffer&) {}
void PrimExprVisitor::VisitIntImm(const IntImmNode&) {}
void PrimExprVisitor::VisitFloatImm(const FloatImmNode&) {}
void PrimExprVisitor::VisitPrimVar(const PrimVar&) {}

void PrimExprVisitor::VisitBinary(const BinaryNode& node) {
  VisitPrimExpr(node.a);
  VisitPrimExpr(node.b);
}

void PrimExprVisitor::VisitNot(const NotNode& node) { VisitPrimExpr(node.value); }

void PrimExprVisitor::VisitSelect(const SelectNode& node) {
  VisitPrimExpr(node.cond);
  VisitPrimExpr(node.if_true);
  VisitPrimExpr(node.if_false);
}

void PrimExprVisitor::VisitCast(const CastNode& node) { VisitPrimExpr(node.value); }

void PrimExprVisitor::VisitIntrinsic(const IntrinsicNode& node) {
  for (const PrimExpr& arg : node.args) VisitPrimExpr(arg);
}

void PrimExprVisitor::VisitLoad(const LoadNode& node) {
  VisitBufferUse(node.buffer);
  for (const PrimExpr& index : node.indices) VisitPrimExpr(index);
}

// ---- StmtVisitor

void StmtVisitor::VisitKernel(const KernelFunctionNode& kernel) {
  for (const KernelParam& param : kernel.params) {
    if (param.buffer) VisitBufferDef(param.buffer);
    if (param.scalar) VisitPrimVarDef(param.scalar);
  }
  if (kernel.body) VisitStmt(kernel.body);
}

void StmtVisitor::VisitStmt(const Stmt& s) {
  switch (s->kind) {
    case StmtKind::kSeq: return VisitSeqStmt(static_cast<const SeqStmtNode&>(*s));
    case StmtKind::kFor: return VisitFor(static_cast<const ForNode&>(*s));
    case StmtKind::kStore: return VisitStore(static_cast<const StoreNode&>(*s));
    case StmtKind::kIf: return VisitIfStmt(static_cast<const IfStmtNode&>(*s));
    case StmtKind::kAllocate: return VisitAllocate(static_cast<const AllocateNode&>(*s));
    case StmtKind::kBlock: return VisitBlock(static_cast<const BlockNode&>(*s));
  }
}

void StmtVisitor::VisitBufferDef(const Buffer& buffer) {
  for (const PrimExpr& dim : buffer->shape) VisitPrimExpr(dim);
  for (const PrimExpr& stride : buffer->strides) VisitPrimExpr(stride);
}

void StmtVisitor::VisitPrimVarDef(const PrimVar&) {}

void StmtVisitor::VisitSeqStmt(const SeqStmtNode& node) {
  for (const Stmt& s : node.stmts) VisitStmt(s);
}

void StmtVisitor::VisitFor(const ForNode& node) {
  VisitPrimExpr(node.extent);
  VisitPrimVarDef(node.var);
  VisitStmt(node.body);
}

void StmtVisitor::VisitStore(const StoreNode& node) {
  VisitBufferUse(node.buffer);
  for (const PrimExpr& index : node.indices) VisitPrimExpr(index);
  VisitPrimExpr(node.value);
}

void StmtVisitor::VisitIfStmt(const IfStmtNode& node) {
  VisitPrimExpr(node.cond);
  VisitStmt(node.then_case);
  if (node.else_case) VisitStmt(node.else_case);
}

void StmtVisitor::VisitAllocate(const AllocateNode& node) {
  VisitBufferDef(node.buffer);
  VisitStmt(node.body);
}

void StmtVisitor::VisitBlock(const BlockNode& node) {
  for (const IterVar& iter : node.iter_vars) {
    VisitPrimExpr(iter.value);
    VisitPrimVarDef(iter.var);
  }
  if (node.init) VisitStmt(node.init);
  VisitStmt(node.body);
}

}  // namespace rxt
