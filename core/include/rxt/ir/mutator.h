// Rewriting walks over the IR: ExprMutator for Relax functions, PrimExprMutator and
// StmtMutator for kernel functions. Every Visit method returns the node it was given when
// nothing below it changed, so untouched subtrees are shared, not copied.
//
// ExprMutator rebuilds bindings through a BlockBuilder: a rewritten value gets its struct
// info re-inferred, nested non-leaf arguments are bound to fresh variables (A-normal form),
// and a binding variable whose value's struct info no longer fits its own is replaced by a
// fresh variable of the same name (every later use follows through var_remap_).
#pragma once

#include <unordered_map>

#include "rxt/ir/builder.h"
#include "rxt/ir/expr.h"
#include "rxt/ir/kernel.h"
#include "rxt/ir/module.h"

namespace rxt {

class ExprMutator {
 public:
  /// |module| (may be null) resolves calls to module functions while re-inferring struct info.
  explicit ExprMutator(const IRModule* module = nullptr) : builder_(module) {}
  virtual ~ExprMutator() = default;

  /// Rewrites every Relax function of |module| with VisitFunction; kernels and attributes
  /// are kept. The builder resolves calls against the module being rewritten.
  IRModule MutateModule(IRModule module);

  /// Parameters (VisitVarDef), body, return struct info. Returns |function| if unchanged.
  virtual Function VisitFunction(const Function& function);
  /// Dispatches on e->kind, then normalizes the result through the builder.
  virtual Expr VisitExpr(const Expr& e);
  /// Visits every block, then the body inside a fresh binding block whose bindings (from
  /// normalizing the body) are appended. Empty blocks are dropped.
  virtual SeqExpr VisitSeqExpr(const SeqExpr& seq);
  /// Opens a block of the same kind in the builder, visits each binding, returns the block.
  virtual BindingBlock VisitBindingBlock(const BindingBlock& block);
  /// Emits the rewritten binding into the builder's current block (or nothing, to drop it).
  virtual void VisitBinding(const Binding& binding);
  /// A parameter or binding variable where it is defined: rewrites its struct info; if that
  /// changes, returns a fresh variable and records it in var_remap_.
  virtual Var VisitVarDef(const Var& var);
  /// Rewrites the scalar expressions inside |sinfo| with VisitPrimExpr. Struct info is
  /// shared (a tuple may hold one sub-type twice, at every level), so each tuple or function
  /// signature node is rewritten once per mutator and its result remembered.
  virtual StructInfo VisitStructInfo(const StructInfo& sinfo);
  /// Scalar expressions in struct info, ShapeExpr and PrimValue; identity by default. Must
  /// give the same result for the same expression for the life of the mutator (struct info
  /// rewritten once is not rewritten again).
  virtual PrimExpr VisitPrimExpr(const PrimExpr& e);

  // ---- One method per expression kind; |e| is the node itself, as an Expr.
  /// Follows var_remap_.
  virtual Expr VisitVar(const Var& var);
  virtual Expr VisitConstant(const Expr& e, const ConstantNode& node);
  virtual Expr VisitTuple(const Expr& e, const TupleNode& node);
  virtual Expr VisitTupleGetItem(const Expr& e, const TupleGetItemNode& node);
  virtual Expr VisitCall(const Expr& e, const CallNode& node);
  virtual Expr VisitShapeExpr(const Expr& e, const ShapeExprNode& node);
  virtual Expr VisitPrimValue(const Expr& e, const PrimValueNode& node);
  virtual Expr VisitStringImm(const Expr& e, const StringImmNode& node);
  virtual Expr VisitIf(const Expr& e, const IfNode& node);
  virtual Expr VisitOp(const Expr& e, const OpNode& node);
  virtual Expr VisitGlobalVar(const Expr& e, const GlobalVarNode& node);
  virtual Expr VisitExternFunc(const Expr& e, const ExternFuncNode& node);

 protected:
  /// Emits |binding| with |new_value| (already visited): keeps the variable when its struct
  /// info still describes the value, else binds a fresh variable and remaps the old one.
  void ReEmitBinding(const Binding& binding, const Expr& new_value);
  /// A variable like |var| (name, dataflow-ness, span) with struct info |sinfo|.
  static Var CopyVarWithStructInfo(const Var& var, StructInfo sinfo);

  BlockBuilder builder_;
  /// Uses of a variable (key) are replaced by the value: a variable or another leaf.
  std::unordered_map<const VarNode*, Expr> var_remap_;

 private:
  /// Tuples and signatures VisitStructInfo has rewritten, and their results.
  std::unordered_map<StructInfo, StructInfo> rewritten_sinfo_;
};

/// Rewrites scalar expressions. Rebuilt nodes go through the Make* constructors, so
/// substituting 4 for n turns n * 2 into 8.
class PrimExprMutator {
 public:
  virtual ~PrimExprMutator() = default;

  /// Dispatches on e->kind.
  virtual PrimExpr VisitPrimExpr(const PrimExpr& e);
  /// A buffer used by a load or store. By default rewrites its shape and strides; a
  /// rewritten buffer is remembered so that every use maps to the same new node.
  virtual Buffer VisitBuffer(const Buffer& buffer);

  virtual PrimExpr VisitPrimVar(const PrimVar& var);
  virtual PrimExpr VisitBinary(const PrimExpr& e, const BinaryNode& node);
  virtual PrimExpr VisitNot(const PrimExpr& e, const NotNode& node);
  virtual PrimExpr VisitSelect(const PrimExpr& e, const SelectNode& node);
  virtual PrimExpr VisitCast(const PrimExpr& e, const CastNode& node);
  virtual PrimExpr VisitIntrinsic(const PrimExpr& e, const IntrinsicNode& node);
  virtual PrimExpr VisitLoad(const PrimExpr& e, const LoadNode& node);

 protected:
  std::unordered_map<const BufferNode*, Buffer> buffer_remap_;
};

/// Rewrites kernel functions. Loop variables and block iterators go through
/// VisitPrimVarDef (identity by default): to rename one, return a new variable there and
/// map uses in VisitPrimVar.
class StmtMutator : public PrimExprMutator {
 public:
  /// Parameters, then the body. Returns |kernel| if unchanged.
  virtual KernelFunction VisitKernel(const KernelFunction& kernel);
  /// Dispatches on s->kind.
  virtual Stmt VisitStmt(const Stmt& s);
  virtual PrimVar VisitPrimVarDef(const PrimVar& var);

  virtual Stmt VisitSeqStmt(const Stmt& s, const SeqStmtNode& node);
  virtual Stmt VisitFor(const Stmt& s, const ForNode& node);
  virtual Stmt VisitStore(const Stmt& s, const StoreNode& node);
  virtual Stmt VisitIfStmt(const Stmt& s, const IfStmtNode& node);
  virtual Stmt VisitAllocate(const Stmt& s, const AllocateNode& node);
  virtual Stmt VisitBlock(const Stmt& s, const BlockNode& node);
};

/// Replaces the given scalar variables (by node) everywhere in |e| and folds the result.
using PrimVarMap = std::unordered_map<const PrimVarNode*, PrimExpr>;
PrimExpr Substitute(const PrimExpr& e, const PrimVarMap& map);
/// The same inside struct info (shapes, prim values, nested tuples and signatures).
StructInfo Substitute(const StructInfo& sinfo, const PrimVarMap& map);

}  // namespace rxt
