// The plugin search path: the directories of RXT_PLUGIN_PATH (colon-separated), then the
// installation's plugin directory (lib/rxt/plugins beside the binary holding this code). The
// compiler's plugin host and the runtime's loader of extern plugins both look there.
#pragma once

#include <string>
#include <vector>

namespace rxt {

/// The directories, in order, each once.
std::vector<std::string> PluginSearchPath();

}  // namespace rxt
