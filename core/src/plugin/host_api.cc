// The host API table handed to plugins: C functions that forward to the plugin's record.
// Nothing thrown may escape into plugin code, so every function here is noexcept.
#include <algorithm>
#include <cstring>

#include "plugin_record.h"
#include "rxt/runtime/extern.h"
#include "rxt/runtime/thread_pool.h"

namespace rxt::plugin_detail {
namespace {

void Log(rxt_host_t* host, rxt_log_level_t raw_level, const char* message) noexcept {
  if (host == nullptr || message == nullptr) return;
  try {
    PluginRecord& record = *host->record;
    // A plugin in C may pass any number. Read it as an int: in C++ an enum value outside
    // 0..3 is undefined behaviour, and the range check could be optimized away.
    int number = 0;
    static_assert(sizeof number == sizeof raw_level);
    std::memcpy(&number, &raw_level, sizeof number);
    rxt_log_level_t level = number < RXT_LOG_DEBUG || number > RXT_LOG_ERROR ? RXT_LOG_ERROR
                                                                             : static_cast<rxt_log_level_t>(number);
    if (record.registering) record.last_log = message;
    const std::string& who = record.info.name.empty() ? record.log_name : record.info.name;
    if (record.sink) record.sink(level, who, message);
  } catch (...) {
    // A failing sink must not take the plugin down.
  }
}

template <PluginItemKind kKind>
rxt_code_t Register(rxt_host_t* host, const rxt_plugin_item_t* item) noexcept {
  if (host == nullptr) return RXT_INVALID_ARGUMENT;
  try {
    return StageItem(*host->record, kKind, item);
  } catch (...) {
    return RXT_INTERNAL;
  }
}

rxt_code_t RegisterExtern(rxt_host_t* host, const char* name,
                          int (*function)(void* const*, int, void*, char*, size_t), void* user_data) noexcept {
  if (host == nullptr) return RXT_INVALID_ARGUMENT;
  try {
    PluginRecord& record = *host->record;
    if (!record.registering) return RXT_FAILED_PRECONDITION;
    auto reject = [&](rxt_code_t code, std::string message) {
      record.errors.emplace_back(static_cast<ErrorCode>(code), std::move(message));
      return code;
    };
    if (name == nullptr || name[0] == '\0') return reject(RXT_INVALID_ARGUMENT, "registers an extern function without a name");
    if (function == nullptr) return reject(RXT_INVALID_ARGUMENT, StrCat("registers extern function '", name, "' without a function"));
    bool twice = std::any_of(record.staged_externs.begin(), record.staged_externs.end(),
                             [&](const PluginRecord::StagedExtern& e) { return e.name == name; });
    if (twice) return reject(RXT_ALREADY_EXISTS, StrCat("registers extern function '", name, "' twice"));
    if (ExternRegistry::Global().Find(name)) {
      return reject(RXT_ALREADY_EXISTS, StrCat("extern function '", name, "' is already registered"));
    }
    record.staged_externs.push_back({name, function, user_data});
    return RXT_OK;
  } catch (...) {
    return RXT_INTERNAL;
  }
}

bool HasV1Fields(const rxt_plugin_item_t& item) {
  return item.struct_size >= offsetof(rxt_plugin_item_t, user_data) + sizeof(item.user_data);
}

}  // namespace

void InitHostApi(PluginRecord& record) {
  record.api.struct_size = sizeof(rxt_host_api_t);
  record.api.abi_version = RXT_PLUGIN_ABI_VERSION;
  record.api.host = &record.handle;
  record.api.log = &Log;
  record.api.register_optimizer = &Register<PluginItemKind::kOptimizer>;
  record.api.register_loss = &Register<PluginItemKind::kLoss>;
  record.api.register_gradient = &Register<PluginItemKind::kGradient>;
  record.api.register_backend = &Register<PluginItemKind::kBackend>;
  record.api.register_extern = &RegisterExtern;
  record.api.kernel_runtime = &KernelRuntime();
}

rxt_code_t StageItem(PluginRecord& record, PluginItemKind kind, const rxt_plugin_item_t* item) {
  const char* kind_name = PluginItemKindName(kind);
  auto reject = [&](rxt_code_t code, std::string message) {
    record.errors.emplace_back(static_cast<ErrorCode>(code), std::move(message));
    return code;
  };
  if (!record.registering) {
    // Not an error of the load (it is over): the plugin only learns from the returned code.
    return RXT_FAILED_PRECONDITION;
  }
  if (item == nullptr) return reject(RXT_INVALID_ARGUMENT, StrCat("registers a null ", kind_name));
  if (!HasV1Fields(*item)) {
    return reject(RXT_INVALID_ARGUMENT, StrCat("registers a ", kind_name, " whose struct_size (",
                                               item->struct_size, ") is too small"));
  }
  if (item->name == nullptr || item->name[0] == '\0') {
    return reject(RXT_INVALID_ARGUMENT, StrCat("registers a ", kind_name, " without a name"));
  }
  std::string name = item->name;
  bool twice = std::any_of(record.staged.begin(), record.staged.end(),
                           [&](const PluginItem& staged) { return staged.kind == kind && staged.name == name; });
  if (twice) return reject(RXT_ALREADY_EXISTS, StrCat("registers ", kind_name, " '", name, "' twice"));
  if (record.owner_of) {
    std::string owner = record.owner_of(kind, name);
    if (!owner.empty()) {
      return reject(RXT_ALREADY_EXISTS,
                    StrCat(kind_name, " '", name, "' is already provided by plugin ", owner));
    }
  }
  PluginItem staged;
  staged.kind = kind;
  staged.name = std::move(name);
  staged.summary = item->summary != nullptr ? item->summary : "";
  staged.callback = item->callback;
  staged.user_data = item->user_data;
  record.staged.push_back(std::move(staged));
  return RXT_OK;
}

}  // namespace rxt::plugin_detail
