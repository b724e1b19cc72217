// rxt plugins [--plugin PATH]...: load plugins (the search path, then explicit files) and list
// them with what they provide.
#include <iostream>
#include <memory>

#include "command.h"
#include "plugin_options.h"
#include "rxt/plugin/plugin_host.h"
#include "table.h"

namespace rxt::cli {
namespace {

void PrintPlugin(const PluginHost& host, const PluginInfo& plugin) {
  std::cout << plugin.name << (plugin.version.empty() ? "" : " " + plugin.version) << "  (" << plugin.path
            << ", plugin ABI " << plugin.abi_version << ")\n";
  if (!plugin.summary.empty()) std::cout << "  " << plugin.summary << "\n";
  std::vector<std::pair<std::string, std::string>> rows;
  for (PluginItemKind kind : kAllPluginItemKinds) {
    for (const std::string& name : plugin.items[static_cast<size_t>(kind)]) {
      std::optional<PluginItem> item = host.Find(kind, name);
      rows.emplace_back(std::string(PluginItemKindName(kind)) + " " + name, item ? item->summary : "");
    }
  }
  if (rows.empty()) rows.emplace_back("(provides nothing)", "");
  PrintTable(std::cout, rows, "  ");
}

}  // namespace

void AddPluginsCommand(CLI::App& app, CommandResult& result) {
  auto options = std::make_shared<PluginOptions>();
  CLI::App* plugins = app.add_subcommand(
      "plugins",
      "Load plugins and list them with what they provide (optimizers, losses, gradient rules, backends, kernel "
      "libraries).");
  AddPluginOptions(plugins, options.get());
  plugins->footer("Search path: the directories of RXT_PLUGIN_PATH (colon-separated), then the installation's\n"
                  "plugin directory. Problems with plugins found there are warnings; with --plugin, errors.");
  plugins->callback([options, &result] {
    if (!options->no_search) {
      std::cout << "search path:\n";
      for (const std::string& dir : PluginHost::SearchPath()) std::cout << "  " << dir << "\n";
    }
    LoadAllPlugins(*options);
    const PluginHost& host = PluginHost::Global();
    std::vector<PluginInfo> loaded = host.Plugins();
    std::cout << loaded.size() << (loaded.size() == 1 ? " plugin" : " plugins") << " loaded\n";
    for (const PluginInfo& plugin : loaded) PrintPlugin(host, plugin);
    result.exit_code = 0;
  });
}

}  // namespace rxt::cli
