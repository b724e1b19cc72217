//go:build !rxt_runtime

/* The C helpers of listings (rxt_go.h): they call rxt functions librxt_runtime does not export,
 * so the build tag rxt_runtime leaves this file out (cgo.go), as it does visit.go. */
#include "rxt_go.h"

#include "_cgo_export.h" /* visit.go's Go functions, which the visitors call back */

static int visit_plugin(void* user_data, const rxt_plugin_info_t* info) {
  return rxtGoVisitPlugin((uintptr_t)user_data, (rxt_plugin_info_t*)info);
}

static int visit_pair(void* user_data, const char* first, const char* second) {
  return rxtGoVisitPair((uintptr_t)user_data, (char*)first, (char*)second);
}

rxt_status_t rxt_go_plugins_list(const rxt_context_t* context, uintptr_t handle) {
  if (context == NULL) return rxt_plugins_list(visit_plugin, (void*)handle);
  return rxt_context_plugins_list(context, visit_plugin, (void*)handle);
}

rxt_status_t rxt_go_plugin_items_list(rxt_plugin_item_kind_t kind, uintptr_t handle) {
  return rxt_plugin_items_list(kind, visit_pair, (void*)handle);
}

rxt_status_t rxt_go_function_params(const rxt_module_t* module, const char* function, uintptr_t handle) {
  return rxt_module_function_params(module, function, visit_pair, (void*)handle);
}
