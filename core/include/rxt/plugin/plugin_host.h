// The plugin host: loads plugin libraries (abi/include/rxt/plugin.h), negotiates the ABI
// version, and keeps the registry of what they provide (optimizers, losses, gradient rules,
// backends, kernel libraries). Gradient rules become their ops' FGradient attribute, owned by
// the host that loaded them; a rule or a library pattern naming an op the registry does not
// know is refused. A plugin's library stays loaded while anything it provides is still held.
//
//   PluginHost& host = PluginHost::Global();
//   host.Load("build/lib/rxt/plugins/optim_std.so");   // throws rxt::Error naming file + problem
//   std::optional<PluginItem> sgd = host.Find(PluginItemKind::kOptimizer, "sgd");
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "rxt/plugin.h"
#include "rxt/runtime/extern.h"
#include "rxt/support/error.h"
#include "rxt/transform/legalize/library_patterns.h"
#include "rxt/transform/training/providers.h"

namespace rxt {

enum class PluginItemKind : uint8_t {
  kOptimizer, kLoss, kGradient, kBackend, kOp, kLibrary, kImporter, kExporter, kCollective
};
inline constexpr std::array<PluginItemKind, 9> kAllPluginItemKinds = {
    PluginItemKind::kOptimizer, PluginItemKind::kLoss,     PluginItemKind::kGradient,
    PluginItemKind::kBackend,   PluginItemKind::kOp,       PluginItemKind::kLibrary,
    PluginItemKind::kImporter,  PluginItemKind::kExporter, PluginItemKind::kCollective};
/// Per-kind tables are indexed by the kind.
template <typename T>
using PerPluginItemKind = std::array<T, kAllPluginItemKinds.size()>;
/// "optimizer", "loss", "gradient", "backend", "op", "library", "importer", "exporter", "collective".
const char* PluginItemKindName(PluginItemKind kind);

/// One thing a plugin provides. Holding a copy keeps the plugin's library loaded, so its
/// vtable stays callable even after the host that loaded it is gone.
struct PluginItem {
  PluginItemKind kind = PluginItemKind::kOptimizer;
  std::string name;
  std::string summary;
  /// The vtable of its kind (rxt/plugin.h); for a plugin of ABI version 1 or 2, the host's
  /// adapter that stands in for its item. Null for an item known by name only: an optimizer,
  /// loss or gradient rule of version 1 (untyped callbacks) or of version 2 without a callback,
  /// a backend that cannot run kernels (|unusable| says why).
  const rxt_optimizer_t* optimizer = nullptr;
  const rxt_loss_t* loss = nullptr;
  const rxt_gradient_rule_t* gradient_rule = nullptr;
  const rxt_backend_t* backend = nullptr;
  const rxt_op_t* op = nullptr;
  const rxt_library_t* library = nullptr;  // a kernel library (plugins of version 3 only)
  const rxt_importer_t* importer = nullptr;  // an importer (plugins of version 3 only)
  const rxt_exporter_t* exporter = nullptr;  // an exporter (plugins of version 3 only)
  const rxt_collective_t* collective = nullptr;  // a collective (plugins of version 3 only)
  /// What using a backend of ABI version 1 or 2 throws when its table cannot run kernels.
  std::optional<Error> unusable;
  std::string plugin;                      // the name of the plugin that provides it
  /// The plugin ABI version the plugin speaks (1 to RXT_PLUGIN_ABI_VERSION).
  uint32_t abi_version = 0;
  std::shared_ptr<const void> keep_alive;  // owns the plugin's library
};

/// The op attribute of an op a plugin defined (rxt_op_t): which plugin, for `rxt ops` and for
/// loading the same plugin again (the op stays defined for the life of the process).
struct FPluginOp {
  std::string plugin;
};

/// A loaded plugin.
struct PluginInfo {
  std::string name;
  std::string version;
  std::string summary;
  std::string path;  // absolute, as loaded
  uint32_t abi_version = 0;
  /// The names it provides, per kind (indexed by PluginItemKind), in registration order.
  PerPluginItemKind<std::vector<std::string>> items;
};

/// Receives what plugins log: level, plugin name, message.
using PluginLogSink = std::function<void(rxt_log_level_t, const std::string&, const std::string&)>;

namespace plugin_detail {
struct PluginRecord;
}

/// Also the TrainingProvider of the training transforms (its losses and optimizers by name,
/// and the FGradient attributes its gradient rules became) and the LibraryProvider of
/// LegalizeLibraryCalls (its kernel libraries).
class PluginHost : public TrainingProvider, public LibraryProvider {
 public:
  /// A host of its own: its plugins' extern functions go to a registry of its own, whose
  /// parent is the process registry (ExternRegistry::Global()).
  PluginHost();
  /// The ops forget the gradient rules this host attached.
  ~PluginHost() override;
  PluginHost(const PluginHost&) = delete;
  PluginHost& operator=(const PluginHost&) = delete;

  /// The process-wide host (the default context's: used by the rxt command and the C ABI's
  /// calls without a context). Its plugins' extern functions go to the process registry. Never
  /// destroyed, so no plugin is unloaded while static destructors run.
  static PluginHost& Global();

  /// Where its plugins' extern functions are registered, and where the VMs it serves look them
  /// up (its own first, then the process registry's).
  const ExternRegistry& externs() const { return *externs_; }

  /// Loads the plugin at |path|. A file already loaded is not loaded again (its info is
  /// returned). Throws rxt::Error naming the file and the problem: kNotFound (no such file),
  /// kInvalidArgument (not a shared library, bad descriptor), kNotFound (no entry point),
  /// kFailedPrecondition (ABI version not supported, plugin declined), kAlreadyExists (a
  /// plugin or item name already taken, or an item registered twice). On error nothing of the
  /// plugin stays registered and the host works as before.
  PluginInfo Load(const std::string& path);

  /// Registers a plugin linked into the program, which has no library to open: calls |entry|
  /// and checks what it returns exactly as Load does for a library's entry point (the fuzz
  /// target tests/fuzz/plugin_descriptor.cc hands it descriptors this way). |name| stands for
  /// the file in messages and in PluginInfo::path; a second call with it returns the first's info.
  PluginInfo LoadLinked(const std::string& name, rxt_plugin_entry_fn_t entry);

  /// Loads every "*.so" file of every directory of SearchPath() (missing directories are
  /// skipped), in directory order then file name order. Returns the failures; the plugins
  /// that loaded stay loaded.
  std::vector<Error> LoadSearchPath();

  /// RXT_PLUGIN_PATH's directories (colon-separated, empty entries ignored), then the
  /// installation's plugin directory (found relative to the binary holding this code).
  static std::vector<std::string> SearchPath();

  /// Loaded plugins, in load order.
  std::vector<PluginInfo> Plugins() const;
  std::optional<PluginItem> Find(PluginItemKind kind, const std::string& name) const;
  /// Every item of |kind|, sorted by name.
  std::vector<PluginItem> Items(PluginItemKind kind) const;

  /// Where plugin log messages go; by default warnings and errors go to stderr. The sink may
  /// run while the host loads a plugin: it must not call back into the host.
  void SetLogSink(PluginLogSink sink);

  // TrainingProvider: kNotFound naming the loaded items of the kind (FindTrainingItem).
  Function BuildLoss(const std::string& name, const std::string& options, const StructInfo& prediction) const override;
  OptimizerFunction BuildOptimizer(const std::string& name, const std::string& options,
                                   const std::vector<StructInfo>& params) const override;
  // LibraryProvider: the kernel libraries of the loaded plugins.
  std::vector<KernelLibrary> Libraries() const override;
  /// The libraries the loaded backend |backend| prefers (its preferred_libraries), in order;
  /// none for a backend that names none or is not loaded.
  std::vector<std::string> PreferredLibraries(const std::string& backend) const;

 private:
  std::shared_ptr<plugin_detail::PluginRecord> Open(const std::string& path) const;
  /// Calls the record's entry point, checks the descriptor and registers it (mutex_ held).
  PluginInfo Negotiate(const std::shared_ptr<plugin_detail::PluginRecord>& record);
  void Register(const std::shared_ptr<plugin_detail::PluginRecord>& record);
  /// Records an error for each staged op that is malformed or whose name is taken.
  void CheckOps(plugin_detail::PluginRecord& record) const;
  /// Records an error for each gradient rule, and each library pattern naming an op, that
  /// neither the registry nor the plugin's own ops know.
  void CheckItemsNameOps(plugin_detail::PluginRecord& record) const;

  struct UseProcessExterns {};
  explicit PluginHost(UseProcessExterns);

  std::unique_ptr<ExternRegistry> own_externs_;  // null for the global host
  ExternRegistry* externs_;
  mutable std::mutex mutex_;  // loading is serialized; the entry point runs under it
  std::vector<std::shared_ptr<plugin_detail::PluginRecord>> plugins_;
  PerPluginItemKind<std::vector<PluginItem>> items_;
  PluginLogSink sink_;
};

}  // namespace rxt
