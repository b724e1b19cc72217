/// LegalizeOps: replaces every op call of every Relax function by what the op's FLegalize
/// attribute (transform/legalize/legalize.h) gives, usually a call_kernel of a kernel generated from
/// a tensor-expression definition (transform/legalize/tensor_expr.h). Kernels join the module after
/// its functions; structurally equal ones are shared. Symbolic dims stay symbolic: a kernel
/// binds them from its arguments' shapes at run time.
///
/// Calls that cannot be legalized (no FLegalize, or a legalization that gives up, e.g. on an
/// unknown output shape) are all reported in one error naming each op, the reason and the
/// functions, unless the option LegalizeOps.allow_missing leaves them as they are.

#include "rxt/ir/mutator.h"
#include "rxt/transform/legalize/legalize.h"
#include "rxt/support/message_text.h"
#include "rxt/transform/passes.h"

namespace rxt {
namespace {

/// A call left as it is, and why.
struct Unlegalized {
  std::string op;
  std::string reason;
  std::vector<std::string> functions;
  int calls = 0;
};

class OpLegalizer : public ExprMutator {
 public:
  OpLegalizer(IRModule& module, std::string function, std::vector<Unlegalized>& unlegalized)
      : ExprMutator(&module), context_(module, builder_), function_(std::move(function)), unlegalized_(unlegalized) {}

  // Variables bound to constants, for legalizations that specialise on known values.
  void VisitBinding(const Binding& binding) override {
    ExprMutator::VisitBinding(binding);
    const auto* constant = binding.is_match_cast() ? nullptr : binding.value->As<ConstantNode>();
    if (constant == nullptr) return;
    context_.RecordConstant(binding.var, constant);
    auto remapped = var_remap_.find(binding.var.get());
    if (remapped != var_remap_.end() && remapped->second->As<VarNode>() != nullptr) {
      context_.RecordConstant(std::static_pointer_cast<const VarNode>(remapped->second), constant);
    }
  }

  Expr VisitCall(const Expr& e, const CallNode& node) override {
    Expr visited = ExprMutator::VisitCall(e, node);
    const OpDef* op = AsOp(node.callee);
    if (op == nullptr) return visited;
    Expr call = builder_.Normalize(visited);
    const FLegalize* legalize = op->Get<FLegalize>();
    if (legalize == nullptr) {
      Report(op->name(), "no legalization is registered");
      return call;
    }
    try {
      Expr replacement = (*legalize)(context_, *call->As<CallNode>());
      return replacement ? replacement : call;
    } catch (const Error& error) {
      if (error.code() != ErrorCode::kUnimplemented) {
        Throw(error.code(), "LegalizeOps: ", op->name(), " in @", function_, ": ", error.what());
      }
      Report(op->name(), error.what());
      return call;
    }
  }

 private:
  void Report(const std::string& op, const std::string& reason) {
    for (Unlegalized& u : unlegalized_) {
      if (u.op != op || u.reason != reason) continue;
      if (u.functions.back() != function_) u.functions.push_back(function_);
      ++u.calls;
      return;
    }
    unlegalized_.push_back({op, reason, {function_}, 1});
  }

  LegalizeContext context_;
  std::string function_;
  std::vector<Unlegalized>& unlegalized_;
};

std::string Describe(const std::vector<Unlegalized>& unlegalized) {
  int calls = 0;
  for (const Unlegalized& u : unlegalized) calls += u.calls;
  std::string message = StrCat("LegalizeOps: ", calls, " op call(s) cannot be legalized (the option ",
                               "LegalizeOps.allow_missing leaves them as they are): ");
  std::vector<std::string> items;
  for (const Unlegalized& u : unlegalized) {
    std::string functions;
    for (size_t i = 0; i < u.functions.size() && i < 3; ++i) functions += StrCat(i == 0 ? "" : ", ", "@", u.functions[i]);
    if (u.functions.size() > 3) functions += StrCat(" and ", u.functions.size() - 3, " more");
    items.push_back(StrCat(u.op, " (", u.calls, u.calls == 1 ? " call" : " calls", ") in ", functions, ": ", u.reason));
  }
  return message + JoinForMessage(items);
}

IRModule LegalizeModule(IRModule module, const PassContext& context) {
  bool allow_missing = context.GetOption<bool>("LegalizeOps.allow_missing", false);
  const IRModule input = module;
  std::vector<Unlegalized> unlegalized;
  for (const IRModule::Entry& entry : input.entries()) {
    if (!entry.function) continue;
    OpLegalizer legalizer(module, entry.name, unlegalized);
    Function rewritten = legalizer.VisitFunction(entry.function);
    if (rewritten != entry.function) module.Add(entry.name, rewritten);
  }
  if (!unlegalized.empty() && !allow_missing) Throw(ErrorCode::kUnimplemented, Describe(unlegalized));
  return module;
}

}  // namespace

Pass LegalizeOps() {
  return CreateModulePass(LegalizeModule, "LegalizeOps");
}

}  // namespace rxt
