// Copies a function's body into another function: the training transforms build
// backbone_loss (backbone, then loss), predict (backbone) and train_step (adjoint, then
// optimizer) out of whole functions, so that everything ends up in one function that fusion
// and memory planning see at once.
#pragma once

#include <vector>

#include "rxt/ir/expr.h"
#include "rxt/ir/mutator.h"
#include "rxt/ir/module.h"

namespace rxt::training {

/// A function body copied with fresh variables: its blocks and its result (a leaf, or a tuple
/// literal of leaves).
struct InlinedBody {
  std::vector<BindingBlock> blocks;
  Expr result;
};

/// The body of |callee| with fresh variables, each parameter replaced by args[i] (a variable or
/// another leaf, of a struct info the parameter's describes), and the callee's symbolic dims in
/// |symbols| replaced by their values. |module| resolves calls.
InlinedBody InlineBody(const Function& callee, const std::vector<Expr>& args, const IRModule* module,
                       const PrimVarMap& symbols = {});

/// Adds to |symbols| the values |actual| gives the symbolic dims of |declared| (a parameter's
/// struct info and its argument's): a tensor dim that is a bare symbol maps to the argument's
/// dim at that axis.
void MatchSymbols(const StructInfo& declared, const StructInfo& actual, PrimVarMap& symbols);

/// Appends |blocks| to |into|; a dataflow block right after a dataflow block joins it.
void AppendBlocks(std::vector<BindingBlock>& into, const std::vector<BindingBlock>& blocks);

/// Field |index| of the tuple |value|: the field itself when |value| is a tuple literal or a
/// variable bound to one in |blocks|; otherwise a new binding `%name = value[index]` appended
/// to the last block of |blocks| (a new dataflow block if there is none).
Expr TupleField(std::vector<BindingBlock>& blocks, const Expr& value, int index, const std::string& name);

/// The fields of |value|: TupleField for each field of a tuple, or |value| itself for anything
/// else (a single tensor).
std::vector<Expr> Fields(std::vector<BindingBlock>& blocks, const Expr& value, const std::string& name);

/// A fresh variable of |var|'s name and struct info (never a dataflow variable): for the
/// parameters of a function built from another's.
Var FreshParam(const Var& var, const std::string& name = "");

}  // namespace rxt::training

namespace rxt::training {

/// |value| as a function's result: itself if it is a non-dataflow variable or a constant,
/// else bound to a new non-dataflow variable |name| at the end of |blocks| (a new dataflow
/// block if there is none). |value| must have its struct info.
Expr BindResult(std::vector<BindingBlock>& blocks, const Expr& value, const std::string& name);

/// |value| bound to a new variable |name| at the end of |blocks| (a dataflow variable in a
/// dataflow block), for values that must be leaves (arguments of an inlined function).
Var BindLocal(std::vector<BindingBlock>& blocks, const Expr& value, const std::string& name);

/// The function of |params|, |blocks| and |result|, where each non-dataflow variable of a
/// dataflow block that nothing outside its block uses becomes a dataflow variable (inlining
/// leaves the callees' outputs as ordinary variables; as dataflow variables they stay internal,
/// so fusion and memory planning may treat them as temporaries).
Function MakeInlinedFunction(std::vector<Var> params, std::vector<BindingBlock> blocks, Expr result, bool is_pure,
                             const IRModule* module);

/// A tuple of |fields| (leaves with struct info), its struct info filled in.
Expr MakeTupleOf(std::vector<Expr> fields);

}  // namespace rxt::training
