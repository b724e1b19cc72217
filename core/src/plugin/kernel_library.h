// Internal to the plugin host: a plugin's kernel library (an rxt_library_t item) as the
// KernelLibrary that LegalizeLibraryCalls takes (transform/legalize/library_patterns.h).
#pragma once

#include "rxt/plugin/plugin_host.h"

namespace rxt::plugin_detail {

/// |item| (a kLibrary item with its vtable) with each pattern's rewrite calling the plugin's
/// callback over an IRBuilderHost. The rewrites hold the item, so the plugin stays loaded.
KernelLibrary KernelLibraryOf(const PluginItem& item);

}  // namespace rxt::plugin_detail
