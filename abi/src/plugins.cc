// The plugin hosts across the ABI: the default context's (rxt_plugin_*), and a context's list.
#include "api.h"
#include "context_handle.h"
#include "rxt/plugin/plugin_host.h"

namespace {

rxt::PluginItemKind CheckedKind(rxt_plugin_item_kind_t kind) {
  switch (kind) {
    case RXT_PLUGIN_OPTIMIZER: return rxt::PluginItemKind::kOptimizer;
    case RXT_PLUGIN_LOSS: return rxt::PluginItemKind::kLoss;
    case RXT_PLUGIN_GRADIENT: return rxt::PluginItemKind::kGradient;
    case RXT_PLUGIN_BACKEND: return rxt::PluginItemKind::kBackend;
  }
  rxt::Throw(rxt::ErrorCode::kInvalidArgument, "rxt_plugin_items_list: ", static_cast<int>(kind),
             " is not a plugin item kind");
}

size_t CountOf(const rxt::PluginInfo& info, rxt::PluginItemKind kind) {
  return info.items[static_cast<size_t>(kind)].size();
}

void VisitPlugins(const rxt::PluginHost& host, rxt_plugin_visitor_t visit, void* user_data) {
  for (const rxt::PluginInfo& plugin : host.Plugins()) {
    rxt_plugin_info_t info{};
    info.struct_size = sizeof(info);
    info.name = plugin.name.c_str();
    info.version = plugin.version.c_str();
    info.path = plugin.path.c_str();
    info.abi_version = plugin.abi_version;
    info.num_optimizers = CountOf(plugin, rxt::PluginItemKind::kOptimizer);
    info.num_losses = CountOf(plugin, rxt::PluginItemKind::kLoss);
    info.num_gradients = CountOf(plugin, rxt::PluginItemKind::kGradient);
    info.num_backends = CountOf(plugin, rxt::PluginItemKind::kBackend);
    if (visit(user_data, &info) != 0) break;
  }
}

}  // namespace

extern "C" {

rxt_status_t rxt_plugin_load(const char* path) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(path);
  rxt::PluginHost::Global().Load(path);
  RXT_API_END();
}

rxt_status_t rxt_plugins_load_search_path(void) {
  RXT_API_BEGIN();
  std::vector<rxt::Error> failures = rxt::PluginHost::Global().LoadSearchPath();
  if (!failures.empty()) {
    std::string message;
    for (const rxt::Error& failure : failures) message += (message.empty() ? "" : "\n") + std::string(failure.what());
    return rxt::abi_impl::MakeStatus(failures.front().code(), message);
  }
  RXT_API_END();
}

rxt_status_t rxt_plugins_list(rxt_plugin_visitor_t visit, void* user_data) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(visit);
  VisitPlugins(rxt::PluginHost::Global(), visit, user_data);
  RXT_API_END();
}

rxt_status_t rxt_context_plugins_list(const rxt_context_t* context, rxt_plugin_visitor_t visit, void* user_data) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(context);
  RXT_CHECK_ARG(visit);
  VisitPlugins(context->context->plugins(), visit, user_data);
  RXT_API_END();
}

rxt_status_t rxt_plugin_items_list(rxt_plugin_item_kind_t kind, rxt_name_visitor_t visit, void* user_data) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(visit);
  for (const rxt::PluginItem& item : rxt::PluginHost::Global().Items(CheckedKind(kind))) {
    if (visit(user_data, item.name.c_str(), item.summary.c_str()) != 0) break;
  }
  RXT_API_END();
}

}  // extern "C"
