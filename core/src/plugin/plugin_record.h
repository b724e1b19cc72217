// Internal to the plugin host: what the host keeps for one plugin library.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <boost/dll/shared_library.hpp>

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
  std::vector<PluginItem> staged;
  /// External functions registered with host_api->register_extern, committed with the items.
  struct StagedExtern {
    std::string name;
    int (*function)(void* const* args, int num_args, void* user_data, char* error, size_t error_size);
    void* user_data;
  };
  std::vector<StagedExtern> staged_externs;
  /// The names it registered in the ExternRegistry (which keeps the library loaded).
  std::vector<std::string> externs;
  std::vector<std::pair<ErrorCode, std::string>> errors;
  std::string last_log;
};

/// Opens |path| (absolute) as a plugin library and finds its entry point. Throws rxt::Error
/// naming the file: missing file, not a regular file, not a shared library, no entry point.
std::shared_ptr<PluginRecord> OpenPluginLibrary(const std::string& path);

/// Fills record.api with the host's functions (log, register_*).
void InitHostApi(PluginRecord& record);

/// Checks |item| and stages it under |kind| (rejects bad items and taken names, recording the
/// error in record.errors). Shared by the register_* functions and the descriptor's lists.
rxt_code_t StageItem(PluginRecord& record, PluginItemKind kind, const rxt_plugin_item_t* item);

}  // namespace rxt::plugin_detail
