#include "plugin_options.h"

#include <iostream>

#include "rxt/plugin/plugin_host.h"

namespace rxt::cli {

void AddPluginOptions(CLI::App* command, PluginOptions* options) {
  command->add_option("--plugin", options->paths, "Also load the plugin library at PATH (repeatable)")
      ->type_name("PATH");
  command->add_flag("--no-search-path", options->no_search,
                    "Do not load the plugins of the search path (RXT_PLUGIN_PATH, then the installation's)");
}

void LoadAllPlugins(const PluginOptions& options) {
  PluginHost& host = PluginHost::Global();
  if (!options.no_search) {
    for (const Error& failure : host.LoadSearchPath()) std::cerr << "rxt: warning: " << failure.what() << "\n";
  }
  for (const std::string& path : options.paths) host.Load(path);
}

}  // namespace rxt::cli
