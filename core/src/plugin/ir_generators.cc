// Calling plugins' IR generators from C++ (rxt/plugin/ir_generators.h): one IRBuilderHost per
// call, the callback's result checked, every failure an rxt::Error naming item and plugin.
#include "rxt/plugin/ir_generators.h"

#include "ir_api_internal.h"
#include "rxt/ir/printer.h"
#include "rxt/support/c_status.h"
#include "rxt/support/message_text.h"

namespace rxt {
namespace {

/// The item's vtable; throws if the plugin cannot provide one (an item known by name only).
template <typename VTable>
const VTable& UsableVTable(const PluginItem& item, const VTable* vtable) {
  if (item.abi_version < 2) {
    Throw(ErrorCode::kFailedPrecondition, DescribeItem(item), " comes from a plugin of ABI version ",
          item.abi_version, ", whose callbacks are not typed IR generators (they are from version 2): rebuild the "
          "plugin against rxt/plugin.h");
  }
  if (vtable == nullptr) Throw(ErrorCode::kFailedPrecondition, DescribeItem(item), " has no callback");
  return *vtable;
}

void CheckOutcome(const PluginItem& item, const IRBuilderHost& host, rxt_status_t status) {
  ThrowIfGeneratorFailed(DescribeItem(item), host, status);
}

/// Whether an adjoint of struct info |grad| can stand for a value of struct info |value|: same
/// kind and dtype, shapes that may be equal.
bool Fits(const StructInfo& value, const StructInfo& grad) {
  return IsBaseOf(value, grad, /*assume_unknown_equal=*/true) || IsBaseOf(grad, value, /*assume_unknown_equal=*/true);
}

}  // namespace

void ThrowIfGeneratorFailed(const std::string& who, const IRBuilderHost& host, rxt_status_t status) {
  CStatusPtr failure(status);
  if (failure != nullptr) {
    ErrorCode code = ErrorCodeFromC(failure->code);
    if (code == ErrorCode::kOk) code = ErrorCode::kUnknown;
    const std::string& message = !failure->message.empty() ? failure->message
                                 : host.failed()            ? host.error()
                                                            : StrCat("failed with ", ErrorCodeName(code), " without a message");
    Throw(code, who, ": ", message);
  }
  if (host.failed()) Throw(ErrorCode::kInvalidArgument, who, ": ", host.error());
}

std::string DescribeItem(const PluginItem& item) {
  const char* kind = item.kind == PluginItemKind::kGradient ? "gradient rule" : PluginItemKindName(item.kind);
  return StrCat(kind, " '", item.name, "' (plugin ", item.plugin.empty() ? "?" : item.plugin, ")");
}

PluginItem FindTrainingItem(PluginItemKind kind, const std::string& name, const PluginHost* plugins) {
  const PluginHost& host = plugins != nullptr ? *plugins : PluginHost::Global();
  if (std::optional<PluginItem> item = host.Find(kind, name)) return *item;
  std::vector<PluginItem> known = host.Items(kind);
  const char* what = PluginItemKindName(kind);
  if (known.empty()) {
    Throw(ErrorCode::kNotFound, "no ", what, " named ", Quoted(name), ": no loaded plugin provides any ", what,
          " (load one, e.g. rxt_", kind == PluginItemKind::kLoss ? "loss" : "optim",
          "_std, with --plugin or from RXT_PLUGIN_PATH)");
  }
  std::string names;
  for (const PluginItem& item : known) names += (names.empty() ? "" : ", ") + item.name;
  Throw(ErrorCode::kNotFound, "no ", what, " named ", Quoted(name), " is loaded (known: ", names, ")");
}

FGradient GradientAttribute(const PluginItem& rule) {
  FGradient attribute;
  attribute.origin = DescribeItem(rule);
  attribute.plugin = rule.plugin;
  if (rule.abi_version < 2 || rule.gradient_rule == nullptr) {
    attribute.unusable = StrCat("has no typed callback: a plugin of ABI version ", rule.abi_version);
    return attribute;
  }
  attribute.emit = [rule](BlockBuilder& builder, const Expr& call, const Expr& output, const Expr& output_grad,
                          bool bind_outputs) {
    return CallGradientRule(rule, builder, call, output, output_grad, {.bind_outputs = bind_outputs});
  };
  return attribute;
}

std::vector<Expr> CallGradientRule(const PluginItem& rule, BlockBuilder& builder, const Expr& call,
                                   const Expr& output, const Expr& output_grad, IRBuilderHost::Options options) {
  const rxt_gradient_rule_t& vtable = UsableVTable(rule, rule.gradient_rule);
  const auto* call_node = call->As<CallNode>();
  RXT_CHECK(call_node != nullptr, "a gradient rule is called for a call");
  const std::vector<Expr>& args = ir_api::CallArgs(*call_node);
  IRBuilderHost host(builder, options);
  std::vector<rxt_ir_expr_t> grads(args.size(), nullptr);
  rxt_status_t status = vtable.build(vtable.state, IRBuilderHost::Api(), host.handle(), host.Wrap(call),
                                     host.Wrap(output), host.Wrap(output_grad), grads.data());
  CheckOutcome(rule, host, status);
  std::vector<Expr> result;
  for (size_t i = 0; i < args.size(); ++i) {
    if (grads[i] == nullptr) {
      result.push_back(nullptr);
      continue;
    }
    Expr grad = host.Unwrap(grads[i]);
    if (grad == nullptr) {
      Throw(ErrorCode::kInvalidArgument, DescribeItem(rule), ": the adjoint of argument ", i,
            " is not a handle of the builder");
    }
    if (!Fits(GetStructInfo(args[i]), GetStructInfo(grad))) {
      Throw(ErrorCode::kInvalidArgument, DescribeItem(rule), ": the adjoint of argument ", i, " (",
            PrintExpr(args[i]), ": ", ToString(GetStructInfo(args[i])), ") is ", ToString(GetStructInfo(grad)));
    }
    result.push_back(std::move(grad));
  }
  return result;
}

GeneratedLoss CallLoss(const PluginItem& loss, BlockBuilder& builder, const std::string& options,
                       const Expr& prediction) {
  const rxt_loss_t& vtable = UsableVTable(loss, loss.loss);
  IRBuilderHost host(builder, {.allow_params = true});
  host.AddSymbols(GetStructInfo(prediction));
  rxt_ir_expr_t result = nullptr;
  rxt_status_t status =
      vtable.build(vtable.state, IRBuilderHost::Api(), host.handle(), options.c_str(), host.Wrap(prediction), &result);
  CheckOutcome(loss, host, status);
  Expr value = host.Unwrap(result);
  if (value == nullptr) Throw(ErrorCode::kInvalidArgument, DescribeItem(loss), ": returned no loss");
  const auto* tensor = GetStructInfo(value)->As<TensorSINode>();
  if (tensor == nullptr || !IsFloat(tensor->dtype)) {
    Throw(ErrorCode::kInvalidArgument, DescribeItem(loss), ": the loss must be a float tensor, got ",
          ToString(GetStructInfo(value)));
  }
  return GeneratedLoss{host.params(), value};
}

GeneratedUpdate CallOptimizer(const PluginItem& optimizer, BlockBuilder& builder, const std::string& options,
                              const std::vector<Expr>& params, const std::vector<Expr>& grads) {
  const rxt_optimizer_t& vtable = UsableVTable(optimizer, optimizer.optimizer);
  RXT_CHECK(params.size() == grads.size(), "one gradient per parameter");
  IRBuilderHost host(builder, {.allow_states = true});
  std::vector<rxt_ir_expr_t> param_handles, grad_handles;
  for (size_t i = 0; i < params.size(); ++i) {
    host.AddSymbols(GetStructInfo(params[i]));
    param_handles.push_back(host.Wrap(params[i]));
    grad_handles.push_back(host.Wrap(grads[i]));
  }
  std::vector<rxt_ir_expr_t> updated(params.size(), nullptr);
  rxt_status_t status = vtable.build(vtable.state, IRBuilderHost::Api(), host.handle(), options.c_str(),
                                     param_handles.data(), grad_handles.data(), static_cast<int>(params.size()),
                                     updated.data());
  CheckOutcome(optimizer, host, status);
  GeneratedUpdate update;
  for (size_t i = 0; i < params.size(); ++i) {
    Expr value = host.Unwrap(updated[i]);
    if (value == nullptr) {
      Throw(ErrorCode::kInvalidArgument, DescribeItem(optimizer), ": gave no updated value for parameter ", i);
    }
    if (!IsBaseOf(GetStructInfo(params[i]), GetStructInfo(value), /*assume_unknown_equal=*/true)) {
      Throw(ErrorCode::kInvalidArgument, DescribeItem(optimizer), ": parameter ", i, " is ",
            ToString(GetStructInfo(params[i])), " but its updated value is ", ToString(GetStructInfo(value)));
    }
    update.new_params.push_back(std::move(value));
  }
  update.states = host.states();
  return update;
}

Function BuildLossFunction(const PluginItem& loss, const std::string& options, const StructInfo& prediction) {
  BlockBuilder builder;
  Var predictions = MakeVar("predictions", prediction);
  builder.BeginDataflowBlock();
  GeneratedLoss generated = CallLoss(loss, builder, options, predictions);
  BindingBlock block = builder.EndBlock();
  // The function returns the loss: bound last, its binding becomes the block's output.
  Var result;
  if (!block.bindings.empty() && block.bindings.back().var == generated.loss && !block.bindings.back().is_match_cast()) {
    result = MakeVar("loss", generated.loss->struct_info);
    block.bindings.back().var = result;
  } else {
    result = MakeVar("loss", GetStructInfo(generated.loss));
    block.bindings.push_back(Binding{result, generated.loss, nullptr});
  }
  std::vector<Var> params = {predictions};
  params.insert(params.end(), generated.targets.begin(), generated.targets.end());
  return MakeFunction(std::move(params), MakeSeqFromBlocks({std::move(block)}, result), GetStructInfo(result));
}

OptimizerFunction BuildOptimizerFunction(const PluginItem& optimizer, const std::string& options,
                                         const std::vector<StructInfo>& params) {
  BlockBuilder builder;
  Var params_var = MakeVar("params", TupleSI(params));
  Var grads_var = MakeVar("gradients", TupleSI(params));
  builder.BeginDataflowBlock();
  std::vector<Expr> param_values, grad_values;
  for (size_t i = 0; i < params.size(); ++i) {
    param_values.push_back(builder.Emit(MakeTupleGetItem(params_var, static_cast<int>(i)), "param"));
    grad_values.push_back(builder.Emit(MakeTupleGetItem(grads_var, static_cast<int>(i)), "grad"));
  }
  GeneratedUpdate update = CallOptimizer(optimizer, builder, options, param_values, grad_values);

  OptimizerFunction out;
  out.origin = DescribeItem(optimizer);
  std::vector<StructInfo> state_sinfos;
  std::vector<Expr> next_states;
  for (const IRBuilderHost::State& s : update.states) {
    out.states.push_back({s.name, s.var->struct_info, s.init});
    state_sinfos.push_back(s.var->struct_info);
    next_states.push_back(s.next ? s.next : Expr(s.var));
  }
  Var result = builder.EmitOutput(MakeTuple({MakeTuple(update.new_params), MakeTuple(next_states)}), "result");
  BindingBlock built = builder.EndBlock();

  // The states' current values come from the state tuple: bind them before everything else.
  Var states_var = MakeVar("optim_states", TupleSI(state_sinfos));
  BindingBlock block;
  block.is_dataflow = true;
  for (size_t i = 0; i < update.states.size(); ++i) {
    Expr item = MakeTupleGetItem(states_var, static_cast<int>(i));
    InferStructInfo(item, nullptr);
    block.bindings.push_back(Binding{update.states[i].var, item, nullptr});
  }
  block.bindings.insert(block.bindings.end(), built.bindings.begin(), built.bindings.end());
  out.function = MakeFunction({params_var, grads_var, states_var}, MakeSeqFromBlocks({std::move(block)}, result),
                              GetStructInfo(result));
  return out;
}

}  // namespace rxt
