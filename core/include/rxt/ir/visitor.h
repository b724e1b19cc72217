// Read-only walks over the IR: ExprVisitor for Relax functions, PrimExprVisitor and
// StmtVisitor for kernel functions. Subclass, override the cases you care about and call the
// base method to keep descending.
//
//   class CallCounter : public ExprVisitor {
//     void VisitCall(const CallNode& call) override { ++count; ExprVisitor::VisitCall(call); }
//    public:
//     int count = 0;
//   };
#pragma once

#include <unordered_set>

#include "rxt/ir/expr.h"
#include "rxt/ir/kernel.h"

namespace rxt {

/// Walks a Relax function. Variables are met twice: once where they are defined
/// (VisitVarDef: parameters, binding variables) and at every use (VisitVar).
class ExprVisitor {
 public:
  virtual ~ExprVisitor() = default;

  /// Parameters (as definitions), then the body, then the return struct info.
  virtual void VisitFunction(const FunctionNode& function);
  /// Dispatches on e->kind to the Visit<Kind> method below.
  virtual void VisitExpr(const Expr& e);
  virtual void VisitSeqExpr(const SeqExprNode& seq);
  virtual void VisitBindingBlock(const BindingBlock& block);
  /// The value first, then match_sinfo (for a match_cast), then the variable's definition.
  virtual void VisitBinding(const Binding& binding);
  /// A parameter or a binding variable, where it is defined. Visits its struct info.
  virtual void VisitVarDef(const Var& var);
  /// Every struct info the walk meets: of defined variables, match_cast targets, call
  /// sinfo_args and the function's return. Visits the scalar expressions inside it. A tuple
  /// or function signature node is descended into once per visitor: struct info is shared
  /// (a tuple may hold one sub-type twice, at every level), and walking it once per path
  /// would take exponential time; every scalar expression is still met at least once.
  virtual void VisitStructInfo(const StructInfo& sinfo);
  /// Scalar expressions inside struct info, ShapeExpr and PrimValue. Does nothing by default.
  virtual void VisitPrimExpr(const PrimExpr& e);

  // ---- One method per expression kind; the defaults visit the children.
  virtual void VisitVar(const Var& var);
  virtual void VisitConstant(const ConstantNode& node);
  virtual void VisitTuple(const TupleNode& node);
  virtual void VisitTupleGetItem(const TupleGetItemNode& node);
  /// The callee, the arguments, then the sinfo_args.
  virtual void VisitCall(const CallNode& node);
  virtual void VisitShapeExpr(const ShapeExprNode& node);
  virtual void VisitPrimValue(const PrimValueNode& node);
  virtual void VisitStringImm(const StringImmNode& node);
  /// The condition, then each branch as a SeqExpr.
  virtual void VisitIf(const IfNode& node);
  virtual void VisitOp(const OpNode& node);
  virtual void VisitGlobalVar(const GlobalVarNode& node);
  virtual void VisitExternFunc(const ExternFuncNode& node);

 private:
  std::unordered_set<StructInfo> visited_composites_;  // holds them: an address is never reused
};

/// Walks a scalar expression tree. Buffers met in loads go through VisitBufferUse.
class PrimExprVisitor {
 public:
  virtual ~PrimExprVisitor() = default;

  /// Dispatches on e->kind.
  virtual void VisitPrimExpr(const PrimExpr& e);
  /// A buffer referenced by a load or a store (not its declaration). Does nothing by default.
  virtual void VisitBufferUse(const Buffer& buffer);

  virtual void VisitIntImm(const IntImmNode& node);
  virtual void VisitFloatImm(const FloatImmNode& node);
  virtual void VisitPrimVar(const PrimVar& var);
  virtual void VisitBinary(const BinaryNode& node);
  virtual void VisitNot(const NotNode& node);
  virtual void VisitSelect(const SelectNode& node);
  virtual void VisitCast(const CastNode& node);
  virtual void VisitIntrinsic(const IntrinsicNode& node);
  /// VisitBufferUse, then the indices.
  virtual void VisitLoad(const LoadNode& node);
};

/// Walks a kernel function: parameters and local allocations are buffer declarations
/// (VisitBufferDef), loop variables and block iterators are scalar definitions
/// (VisitPrimVarDef); every other occurrence is a use.
class StmtVisitor : public PrimExprVisitor {
 public:
  /// Parameters (buffers and scalars, as definitions), then the body.
  virtual void VisitKernel(const KernelFunctionNode& kernel);
  /// Dispatches on s->kind.
  virtual void VisitStmt(const Stmt& s);
  /// A buffer where it is declared (kernel parameter, alloc): visits its shape and strides.
  virtual void VisitBufferDef(const Buffer& buffer);
  /// A loop variable, block iterator or scalar parameter where it is defined.
  virtual void VisitPrimVarDef(const PrimVar& var);

  virtual void VisitSeqStmt(const SeqStmtNode& node);
  /// The extent, then the loop variable's definition, then the body.
  virtual void VisitFor(const ForNode& node);
  /// VisitBufferUse, the indices, then the value.
  virtual void VisitStore(const StoreNode& node);
  virtual void VisitIfStmt(const IfStmtNode& node);
  virtual void VisitAllocate(const AllocateNode& node);
  /// Each iterator's binding value, then its definition, then init and body.
  virtual void VisitBlock(const BlockNode& node);
};

}  // namespace rxt
