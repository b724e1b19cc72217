// Plugins as the runtime alone loads them (librxt_runtime: no compiler, no plugin host): only
// their extern functions — what kernels compiled ahead of time call, e.g. oneDNN's dnnl.matmul
// — are taken, into an ExternRegistry. What else a plugin offers (kernel-library patterns, ops,
// optimizers, backends) is for the compiler and is left alone. The plugin speaks the same C
// plugin ABI (rxt/plugin.h, version 3) as with the compiler's PluginHost.
//
//   ExternPlugins plugins(registry);
//   plugins.LoadFor(exec.externs, PluginSearchPath());   // rxt_lib_dnnl.so for dnnl.*
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "rxt/runtime/extern.h"

namespace rxt {

class ExternPlugins {
 public:
  /// Registers into |registry|, which must outlive this; each function registered keeps its
  /// library loaded.
  explicit ExternPlugins(ExternRegistry& registry) : registry_(registry) {}
  ExternPlugins(const ExternPlugins&) = delete;
  ExternPlugins& operator=(const ExternPlugins&) = delete;

  /// Loads the plugin at |path| and registers its extern functions; returns the plugin's name.
  /// The same file twice is loaded once. Throws, naming |path|: kNotFound (no file, no entry
  /// point), kInvalidArgument (not a shared library, a malformed descriptor or extern),
  /// kFailedPrecondition (another plugin ABI version, or the plugin declined),
  /// kAlreadyExists (a function name the registry has).
  std::string Load(const std::string& path);

  /// For each library whose functions |externs| names ("dnnl.matmul": library dnnl) and the
  /// registry lacks, loads rxt_lib_<library>.so from the first directory of |search_path| that
  /// has it. Returns what failed, one message each (the caller decides whether a missing
  /// function matters: the VM names it when it loads the program).
  std::vector<std::string> LoadFor(const std::vector<std::string>& externs, const std::vector<std::string>& search_path);

  /// The names of the plugins loaded.
  std::vector<std::string> Names() const;

 private:
  ExternRegistry& registry_;
  mutable std::mutex mutex_;
  std::vector<std::pair<std::string, std::string>> loaded_;  // path, name
};

}  // namespace rxt
