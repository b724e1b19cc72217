// Plugins as the runtime alone loads them (librxt_runtime: no compiler, no plugin host): only
// their extern functions — what kernels compiled ahead of time call, e.g. oneDNN's dnnl.matmul
// — are taken, into an ExternRegistry, and their collectives (data-parallel training's
// communication, e.g. plugins/ccl_mpi), kept to make communicators from. What else a plugin offers (kernel-library patterns, ops,
// optimizers, backends) is for the compiler and is left alone. The plugin speaks the same C
// plugin ABI (rxt/plugin.h, version 3) as with the compiler's PluginHost.
//
//   ExternPlugins plugins(registry);
//   plugins.LoadFor(exec.externs, PluginSearchPath());   // rxt_lib_dnnl.so for dnnl.*
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "rxt/plugin.h"
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

  /// Loads a plugin linked into the program (tests, the fuzz target extern_plugins): |entry| is
  /// called as a library's entry point would be, and |name| stands for its path in messages and
  /// in "loaded once". Throws as Load does, for the descriptor and its externs.
  std::string LoadLinked(const std::string& name, rxt_plugin_entry_fn_t entry);

  /// For each library whose functions |externs| names ("dnnl.matmul": library dnnl) and the
  /// registry lacks, loads rxt_lib_<library>.so from the first directory of |search_path| that
  /// has it. Returns what failed, one message each (the caller decides whether a missing
  /// function matters: the VM names it when it loads the program).
  std::vector<std::string> LoadFor(const std::vector<std::string>& externs, const std::vector<std::string>& search_path);

  /// The names of the plugins loaded.
  std::vector<std::string> Names() const;

  /// A collective of a loaded plugin: its vtable, which keeps the plugin loaded.
  struct Collective {
    std::shared_ptr<const rxt_collective_t> vtable;
  };
  /// The collective called |name| ("mpi"), or nullopt.
  std::optional<Collective> FindCollective(const std::string& name) const;
  /// The names of the loaded collectives.
  std::vector<std::string> CollectiveNames() const;

 private:
  /// A plugin loaded: its key (path), name, the host API it was given (valid while it is
  /// loaded, as rxt/plugin.h promises) and its library (extern_plugins.cc).
  struct Loaded;

  /// Calls |entry|, checks its descriptor and registers its externs, each keeping the plugin
  /// (its host API and |library|, null for a linked plugin) loaded; records |key| as loaded.
  /// Called with mutex_ held.
  std::string Register(const std::string& key, const std::string& where, rxt_plugin_entry_fn_t entry,
                       std::shared_ptr<void> library);
  /// The name |key| was loaded under, or "". Called with mutex_ held.
  std::string LoadedName(const std::string& key) const;

  ExternRegistry& registry_;
  mutable std::mutex mutex_;
  std::vector<std::shared_ptr<const Loaded>> loaded_;
};

}  // namespace rxt
