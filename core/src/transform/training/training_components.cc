// Losses and optimizers by name (transform/training/training_components.h).
#include "rxt/transform/training/training_components.h"

#include "rxt/support/message_text.h"

namespace rxt {

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

Function MakeLossFunction(const LossSpec& loss, const StructInfo& prediction, const PluginHost* plugins) {
  return BuildLossFunction(FindTrainingItem(PluginItemKind::kLoss, loss.name, plugins), loss.options, prediction);
}

OptimizerInstance MakeOptimizer(const OptimizerSpec& optimizer, const std::vector<StructInfo>& params,
                                const PluginHost* plugins) {
  PluginItem item = FindTrainingItem(PluginItemKind::kOptimizer, optimizer.name, plugins);
  OptimizerFunction built = BuildOptimizerFunction(item, optimizer.options, params);
  OptimizerInstance out;
  out.function = built.function;
  for (const OptimizerStateSpec& s : built.states) out.state_names.push_back(s.name);
  try {
    out.state = InitialOptimizerState(built.states);
  } catch (const Error& e) {
    Throw(e.code(), DescribeItem(item), ": ", e.what());
  }
  return out;
}

std::vector<Tensor> InitialOptimizerState(const std::vector<OptimizerStateSpec>& states) {
  std::vector<Tensor> out;
  for (const OptimizerStateSpec& s : states) {
    const auto* t = s.sinfo->As<TensorSINode>();
    if (t == nullptr || !t->IsStatic() || t->dtype == DType::kUnknown) {
      Throw(ErrorCode::kInvalidArgument, "optimizer state '", s.name, "' must be a tensor of static shape and known dtype, got ",
            ToString(s.sinfo));
    }
    Tensor value = Tensor::Empty(t->StaticShape(), t->dtype);
    for (int64_t i = 0; i < value.numel(); ++i) value.SetFromDouble(i, s.init);
    out.push_back(std::move(value));
  }
  return out;
}

}  // namespace rxt
