// Internal to the plugin host: what the host keeps for one plugin library.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <boost/dll/shared_library.hpp>

#include "abi2.h"
#include "abi2_adapters.h"
#include "rxt/plugin.h"
#include "rxt/plugin/plugin_host.h"

namespace rxt::plugin_detail {
struct PluginRecord;
}

/// What a plugin sees as its opaque rxt_host_t*.
struct rxt_host_s {
  rxt::plugin_detail::PluginRecord* record;
};

namespace rxt::plugin_detail {

/// One opened plugin library. Allocated once and never moved: the plugin holds pointers to
/// |api| and |handle|. Destroying it closes the library, so everything the plugin provides
/// holds the record (PluginItem::keep_alive).
struct PluginRecord {
  std::string path;
  boost::dll::shared_library library;
  rxt_plugin_entry_fn_t entry = nullptr;
  rxt_host_s handle{this};
  rxt_host_api_t api{};
  PluginInfo info;
  std::string log_name;  // the file name until the plugin has told its name
  PluginLogSink sink;

  // Registration state, used only while the entry point runs.
  bool registering = false;
  std::function<std::string(PluginItemKind, const std::string&)> owner_of;  // "" if free
  /// An item to register. |abi2| holds the raw item of a plugin of version 1 or 2, adapted when
  /// the load commits (the version the plugin speaks, known only then, decides how).
  struct StagedItem {
    PluginItem item;
    std::optional<abi2::Item> abi2;
  };
  std::vector<StagedItem> staged;
  /// External functions to register, committed with the items.
  struct StagedExtern {
    std::string name;
    const rxt_extern_t* vtable;
  };
  std::vector<StagedExtern> staged_externs;
  /// The host's extern registry: a name it has itself is taken.
  const ExternRegistry* extern_registry = nullptr;
  /// The names it registered in the ExternRegistry (which keeps the library loaded).
  std::vector<std::string> externs;
  std::vector<std::pair<ErrorCode, std::string>> errors;
  std::string last_log;
  /// The vtables that stand in for the items of a plugin of version 1 or 2.
  Abi2Adapters abi2_adapters;
};

/// Opens |path| (absolute) as a plugin library and finds its entry point. Throws rxt::Error
/// naming the file: missing file, not a regular file, not a shared library, no entry point.
std::shared_ptr<PluginRecord> OpenPluginLibrary(const std::string& path);

/// Fills record.api with the host's functions (log, statuses, register_*).
void InitHostApi(PluginRecord& record);

/// Check an item and stage it (rejecting bad items and taken names, recording the error in
/// record.errors); shared by the register functions and the descriptor's lists. Version 3: a
/// vtable of its kind; the status is the plugin's to free. Versions 1 and 2: an rxt_plugin_item_t.
rxt_status_t StageOptimizer(PluginRecord& record, const rxt_optimizer_t* optimizer);
rxt_status_t StageLoss(PluginRecord& record, const rxt_loss_t* loss);
rxt_status_t StageGradientRule(PluginRecord& record, const rxt_gradient_rule_t* rule);
rxt_status_t StageBackend(PluginRecord& record, const rxt_backend_t* backend);
rxt_status_t StageExtern(PluginRecord& record, const rxt_extern_t* function);
rxt_status_t StageOp(PluginRecord& record, const rxt_op_t* op);
rxt_status_t StageLibrary(PluginRecord& record, const rxt_library_t* library);
rxt_status_t StageImporter(PluginRecord& record, const rxt_importer_t* importer);
rxt_status_t StageExporter(PluginRecord& record, const rxt_exporter_t* exporter);
rxt_status_t StageCollective(PluginRecord& record, const rxt_collective_t* collective);
rxt_code_t StageAbi2Item(PluginRecord& record, PluginItemKind kind, const abi2::Item* item);

/// Gives a staged item of a plugin of version 1 or 2 the vtable that stands in for it (none for
/// one known by name only; for a backend that cannot run kernels, the reason in item.unusable).
/// item.plugin and item.abi_version must be set.
void AdaptAbi2Item(PluginRecord& record, PluginItem& item, const abi2::Item& raw);

}  // namespace rxt::plugin_detail
