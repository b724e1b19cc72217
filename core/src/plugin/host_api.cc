// The host API table handed to plugins: C functions that forward to the plugin's record
// (item_staging.cc checks and stages what they register). Nothing thrown may escape into plugin
// code, so every function of the table is noexcept.
#include <cstring>

#include "plugin_record.h"
#include "rxt/runtime/thread_pool.h"
#include "rxt/support/c_status.h"

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

// ---- Registration, version 3.

/// Runs a registration; nothing thrown reaches the plugin.
template <typename Body>
rxt_status_t Guarded(rxt_host_t* host, Body&& body) noexcept {
  if (host == nullptr) return MakeCStatus(ErrorCode::kInvalidArgument, "no host (rxt_host_api_t.host) given");
  try {
    return body(*host->record);
  } catch (const std::exception& e) {
    return MakeCStatus(ErrorCode::kInternal, e.what());
  } catch (...) {
    return MakeCStatus(ErrorCode::kInternal, "unknown error");
  }
}

rxt_status_t RegisterOptimizer(rxt_host_t* host, const rxt_optimizer_t* optimizer) noexcept {
  return Guarded(host, [&](PluginRecord& record) { return StageOptimizer(record, optimizer); });
}
rxt_status_t RegisterLoss(rxt_host_t* host, const rxt_loss_t* loss) noexcept {
  return Guarded(host, [&](PluginRecord& record) { return StageLoss(record, loss); });
}
rxt_status_t RegisterGradientRule(rxt_host_t* host, const rxt_gradient_rule_t* rule) noexcept {
  return Guarded(host, [&](PluginRecord& record) { return StageGradientRule(record, rule); });
}
rxt_status_t RegisterBackend(rxt_host_t* host, const rxt_backend_t* backend) noexcept {
  return Guarded(host, [&](PluginRecord& record) { return StageBackend(record, backend); });
}
rxt_status_t RegisterExtern(rxt_host_t* host, const rxt_extern_t* function) noexcept {
  return Guarded(host, [&](PluginRecord& record) { return StageExtern(record, function); });
}
rxt_status_t RegisterOp(rxt_host_t* host, const rxt_op_t* op) noexcept {
  return Guarded(host, [&](PluginRecord& record) { return StageOp(record, op); });
}
rxt_status_t RegisterLibrary(rxt_host_t* host, const rxt_library_t* library) noexcept {
  return Guarded(host, [&](PluginRecord& record) { return StageLibrary(record, library); });
}
rxt_status_t RegisterImporter(rxt_host_t* host, const rxt_importer_t* importer) noexcept {
  return Guarded(host, [&](PluginRecord& record) { return StageImporter(record, importer); });
}
rxt_status_t RegisterExporter(rxt_host_t* host, const rxt_exporter_t* exporter) noexcept {
  return Guarded(host, [&](PluginRecord& record) { return StageExporter(record, exporter); });
}
rxt_status_t RegisterCollective(rxt_host_t* host, const rxt_collective_t* collective) noexcept {
  return Guarded(host, [&](PluginRecord& record) { return StageCollective(record, collective); });
}

// ---- Registration, versions 1 and 2 (the abi2_* slots).

template <PluginItemKind kKind>
rxt_code_t Abi2Register(rxt_host_t* host, const abi2::Item* item) noexcept {
  if (host == nullptr) return RXT_INVALID_ARGUMENT;
  try {
    return StageAbi2Item(*host->record, kKind, item);
  } catch (...) {
    return RXT_INTERNAL;
  }
}

rxt_code_t Abi2RegisterExtern(rxt_host_t* host, const char* name, abi2::ExternFn function, void* user_data) noexcept {
  if (host == nullptr) return RXT_INVALID_ARGUMENT;
  try {
    PluginRecord& record = *host->record;
    if (!record.registering) return RXT_FAILED_PRECONDITION;
    if (name == nullptr || name[0] == '\0') {
      record.errors.emplace_back(ErrorCode::kInvalidArgument, "registers an extern function without a name");
      return RXT_INVALID_ARGUMENT;
    }
    if (function == nullptr) {
      record.errors.emplace_back(ErrorCode::kInvalidArgument,
                                 StrCat("registers extern function '", name, "' without a function"));
      return RXT_INVALID_ARGUMENT;
    }
    CStatusPtr status(StageExtern(record, record.abi2_adapters.Extern(name, function, user_data)));
    return status == nullptr ? RXT_OK : status->code;
  } catch (...) {
    return RXT_INTERNAL;
  }
}

template <typename Fn>
rxt_abi2_fn_t Slot(Fn function) {
  return reinterpret_cast<rxt_abi2_fn_t>(function);
}

}  // namespace

void InitHostApi(PluginRecord& record) {
  record.api.struct_size = sizeof(rxt_host_api_t);
  record.api.abi_version = RXT_PLUGIN_ABI_VERSION;
  record.api.host = &record.handle;
  record.api.log = &Log;
  record.api.abi2_register_optimizer = Slot<abi2::RegisterItemFn>(&Abi2Register<PluginItemKind::kOptimizer>);
  record.api.abi2_register_loss = Slot<abi2::RegisterItemFn>(&Abi2Register<PluginItemKind::kLoss>);
  record.api.abi2_register_gradient = Slot<abi2::RegisterItemFn>(&Abi2Register<PluginItemKind::kGradient>);
  record.api.abi2_register_backend = Slot<abi2::RegisterItemFn>(&Abi2Register<PluginItemKind::kBackend>);
  record.api.abi2_register_extern = Slot<abi2::RegisterExternFn>(&Abi2RegisterExtern);
  record.api.kernel_runtime = &KernelRuntime();
  record.api.status_create = &HostStatusCreate;
  record.api.status_code = &HostStatusCode;
  record.api.status_message = &HostStatusMessage;
  record.api.status_free = &HostStatusFree;
  record.api.register_optimizer = &RegisterOptimizer;
  record.api.register_loss = &RegisterLoss;
  record.api.register_gradient_rule = &RegisterGradientRule;
  record.api.register_backend = &RegisterBackend;
  record.api.register_extern = &RegisterExtern;
  record.api.register_op = &RegisterOp;
  record.api.register_library = &RegisterLibrary;
  record.api.register_importer = &RegisterImporter;
  record.api.register_exporter = &RegisterExporter;
  record.api.register_collective = &RegisterCollective;
}

}  // namespace rxt::plugin_detail
