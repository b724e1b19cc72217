#include "purity.h"

#include "rxt/ir/op.h"

namespace rxt {
namespace {

bool IsPureSeq(const SeqExprNode& seq, const IRModule& module) {
  for (const BindingBlock& block : seq.blocks) {
    for (const Binding& binding : block.bindings) {
      if (!IsPure(binding.value, module)) return false;
    }
  }
  return IsPure(seq.body, module);
}

bool IsPureCall(const CallNode& call, const IRModule& module) {
  if (const OpDef* op = AsOp(call.callee)) return op->pure();
  if (auto* gv = call.callee->As<GlobalVarNode>()) {
    Function callee = module.FindFunction(gv->name);
    return callee != nullptr && callee->is_pure;
  }
  const StructInfo& sinfo = call.callee->struct_info;
  auto* signature = sinfo ? sinfo->As<FuncSINode>() : nullptr;
  return signature != nullptr && signature->is_pure;
}

}  // namespace

bool IsPure(const Expr& value, const IRModule& module) {
  switch (value->kind) {
    case ExprKind::kCall: return IsPureCall(*value->As<CallNode>(), module);
    case ExprKind::kIf: {
      auto* node = value->As<IfNode>();
      return IsPureSeq(*node->then_branch, module) && IsPureSeq(*node->else_branch, module);
    }
    default: return true;  // leaves, tuples and tuple items have no effects (arguments are leaves)
  }
}

}  // namespace rxt
