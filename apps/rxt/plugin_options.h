// The plugin options every command that uses plugins takes, and how the listing commands
// (rxt ops, rxt plugins) load them. Building commands hand them to the build session instead.
#pragma once

#include <string>
#include <vector>

#include "command.h"

namespace rxt::cli {

struct PluginOptions {
  std::vector<std::string> paths;  // --plugin PATH...
  bool no_search = false;          // --no-search-path
};

/// Adds --plugin PATH (repeatable) and --no-search-path to |command|.
void AddPluginOptions(CLI::App* command, PluginOptions* options);

/// Loads the search path (unless --no-search-path; a failure is a warning), then each
/// --plugin (a failure ends the command), into the process-wide host.
void LoadAllPlugins(const PluginOptions& options);

}  // namespace rxt::cli
