// Internal to the plugin host: the checks every item passes before it is staged for
// registration (whether registered by a call or listed in the descriptor), and the adapters
// that items of plugins of versions 1 and 2 get when the load commits.
#include <algorithm>

#include "plugin_record.h"
#include "rxt/runtime/extern.h"
#include "rxt/support/c_status.h"

namespace rxt::plugin_detail {
namespace {

/// Records |message| as an error of the load and returns it as a status for the plugin.
rxt_status_t Reject(PluginRecord& record, ErrorCode code, std::string message) {
  rxt_status_t status = MakeCStatus(code, message);
  record.errors.emplace_back(code, std::move(message));
  return status;
}

/// "" if |name| is free for an item of |kind|, else why not.
std::string NameTaken(const PluginRecord& record, PluginItemKind kind, const std::string& name) {
  const char* kind_name = PluginItemKindName(kind);
  bool twice = std::any_of(record.staged.begin(), record.staged.end(), [&](const PluginRecord::StagedItem& staged) {
    return staged.item.kind == kind && staged.item.name == name;
  });
  if (twice) return StrCat("registers ", kind_name, " '", name, "' twice");
  if (record.owner_of) {
    std::string owner = record.owner_of(kind, name);
    if (!owner.empty()) return StrCat(kind_name, " '", name, "' is already provided by plugin ", owner);
  }
  return "";
}

/// What every vtable of version 3 shares: struct_size, name, summary, state, then functions.
template <typename VTable>
rxt_status_t CheckVTable(PluginRecord& record, const char* kind_name, const VTable* vtable, size_t required_size) {
  if (vtable == nullptr) return Reject(record, ErrorCode::kInvalidArgument, StrCat("registers a null ", kind_name));
  if (vtable->struct_size < required_size) {
    return Reject(record, ErrorCode::kInvalidArgument,
                  StrCat("registers a ", kind_name, " whose struct_size (", vtable->struct_size,
                         ") is too small (at least ", required_size, ")"));
  }
  if (vtable->name == nullptr || vtable->name[0] == '\0') {
    return Reject(record, ErrorCode::kInvalidArgument, StrCat("registers a ", kind_name, " without a name"));
  }
  return nullptr;
}

/// Stages a vtable of version 3 whose required functions are |missing| (the name of the first
/// that is NULL, or nullptr).
template <typename VTable>
rxt_status_t StageVTable(PluginRecord& record, PluginItemKind kind, const VTable* vtable, size_t required_size,
                         const char* (*missing)(const VTable&), const VTable* PluginItem::*slot) {
  if (!record.registering) {
    // Not an error of the load (it is over): the plugin only learns from the returned status.
    return MakeCStatus(ErrorCode::kFailedPrecondition, "items are registered only during rxt_plugin_entry");
  }
  const char* kind_name = PluginItemKindName(kind);
  if (rxt_status_t bad = CheckVTable(record, kind_name, vtable, required_size)) return bad;
  if (const char* function = missing(*vtable)) {
    return Reject(record, ErrorCode::kInvalidArgument,
                  StrCat("registers ", kind_name, " '", vtable->name, "' without ", function));
  }
  std::string taken = NameTaken(record, kind, vtable->name);
  if (!taken.empty()) return Reject(record, ErrorCode::kAlreadyExists, std::move(taken));
  PluginRecord::StagedItem staged;
  staged.item.kind = kind;
  staged.item.name = vtable->name;
  staged.item.summary = vtable->summary != nullptr ? vtable->summary : "";
  staged.item.*slot = vtable;
  record.staged.push_back(std::move(staged));
  return nullptr;
}

/// The bytes a vtable of |type| needs to reach |member|.
#define RXT_SIZE_THROUGH(type, member) (offsetof(type, member) + sizeof(type::member))

/// What is wrong with a library's patterns ("" if nothing): each needs a name, an anchor op and
/// a rewrite function.
std::string PatternProblem(const rxt_library_t& library) {
  if (library.num_patterns > 0 && library.patterns == nullptr) {
    return StrCat("lists ", library.num_patterns, " pattern(s) but no array");
  }
  for (size_t i = 0; i < library.num_patterns; ++i) {
    const rxt_library_pattern_t* p = library.patterns[i];
    if (p == nullptr) return StrCat("has a null pattern (#", i, ")");
    if (p->struct_size < RXT_SIZE_THROUGH(rxt_library_pattern_t, rewrite)) {
      return StrCat("has a pattern (#", i, ") whose struct_size (", p->struct_size, ") is too small (at least ",
                    RXT_SIZE_THROUGH(rxt_library_pattern_t, rewrite), ")");
    }
    if (p->name == nullptr || p->name[0] == '\0') return StrCat("has a pattern (#", i, ") without a name");
    if (p->anchor == nullptr || p->anchor[0] == '\0') return StrCat("has pattern '", p->name, "' without an anchor op");
    if (p->rewrite == nullptr) return StrCat("has pattern '", p->name, "' without rewrite");
  }
  return "";
}

bool HasV1Fields(const abi2::Item& item) {
  return item.struct_size >= offsetof(abi2::Item, user_data) + sizeof(item.user_data);
}

}  // namespace

rxt_status_t StageOptimizer(PluginRecord& record, const rxt_optimizer_t* optimizer) {
  return StageVTable<rxt_optimizer_t>(
      record, PluginItemKind::kOptimizer, optimizer, RXT_SIZE_THROUGH(rxt_optimizer_t, build),
      [](const rxt_optimizer_t& v) -> const char* { return v.build == nullptr ? "build" : nullptr; },
      &PluginItem::optimizer);
}

rxt_status_t StageLoss(PluginRecord& record, const rxt_loss_t* loss) {
  return StageVTable<rxt_loss_t>(
      record, PluginItemKind::kLoss, loss, RXT_SIZE_THROUGH(rxt_loss_t, build),
      [](const rxt_loss_t& v) -> const char* { return v.build == nullptr ? "build" : nullptr; }, &PluginItem::loss);
}

rxt_status_t StageGradientRule(PluginRecord& record, const rxt_gradient_rule_t* rule) {
  return StageVTable<rxt_gradient_rule_t>(
      record, PluginItemKind::kGradient, rule, RXT_SIZE_THROUGH(rxt_gradient_rule_t, build),
      [](const rxt_gradient_rule_t& v) -> const char* { return v.build == nullptr ? "build" : nullptr; },
      &PluginItem::gradient_rule);
}

rxt_status_t StageBackend(PluginRecord& record, const rxt_backend_t* backend) {
  return StageVTable<rxt_backend_t>(
      record, PluginItemKind::kBackend, backend, RXT_SIZE_THROUGH(rxt_backend_t, free_kernel),
      [](const rxt_backend_t& v) -> const char* {
        return v.load_kernel == nullptr ? "load_kernel" : v.call_kernel == nullptr ? "call_kernel"
                                                        : v.free_kernel == nullptr ? "free_kernel"
                                                                                   : nullptr;
      },
      &PluginItem::backend);
}

rxt_status_t StageExtern(PluginRecord& record, const rxt_extern_t* function) {
  if (!record.registering) {
    return MakeCStatus(ErrorCode::kFailedPrecondition, "extern functions are registered only during rxt_plugin_entry");
  }
  if (rxt_status_t bad = CheckVTable(record, "extern function", function, RXT_SIZE_THROUGH(rxt_extern_t, function))) {
    return bad;
  }
  std::string name = function->name;
  if (function->function == nullptr) {
    return Reject(record, ErrorCode::kInvalidArgument, StrCat("registers extern function '", name, "' without a function"));
  }
  bool twice = std::any_of(record.staged_externs.begin(), record.staged_externs.end(),
                           [&](const PluginRecord::StagedExtern& e) { return e.name == name; });
  if (twice) return Reject(record, ErrorCode::kAlreadyExists, StrCat("registers extern function '", name, "' twice"));
  if (record.extern_registry != nullptr && record.extern_registry->HasOwn(name)) {
    return Reject(record, ErrorCode::kAlreadyExists, StrCat("extern function '", name, "' is already registered"));
  }
  record.staged_externs.push_back({std::move(name), function});
  return nullptr;
}

rxt_status_t StageOp(PluginRecord& record, const rxt_op_t* op) {
  // The op itself (schema, defaults, whether its name is free) is checked when the plugin's
  // name is known, before the load commits (PluginHost::CheckOps).
  return StageVTable<rxt_op_t>(
      record, PluginItemKind::kOp, op, RXT_SIZE_THROUGH(rxt_op_t, legalize),
      [](const rxt_op_t& v) -> const char* {
        return v.infer_struct_info == nullptr ? "infer_struct_info" : v.legalize == nullptr ? "legalize" : nullptr;
      },
      &PluginItem::op);
}

rxt_status_t StageLibrary(PluginRecord& record, const rxt_library_t* library) {
  if (!record.registering) {
    return MakeCStatus(ErrorCode::kFailedPrecondition, "items are registered only during rxt_plugin_entry");
  }
  if (rxt_status_t bad = CheckVTable(record, "library", library, RXT_SIZE_THROUGH(rxt_library_t, num_patterns))) {
    return bad;
  }
  std::string problem = PatternProblem(*library);
  if (!problem.empty()) {
    return Reject(record, ErrorCode::kInvalidArgument, StrCat("library '", library->name, "' ", problem));
  }
  std::string taken = NameTaken(record, PluginItemKind::kLibrary, library->name);
  if (!taken.empty()) return Reject(record, ErrorCode::kAlreadyExists, std::move(taken));
  PluginRecord::StagedItem staged;
  staged.item.kind = PluginItemKind::kLibrary;
  staged.item.name = library->name;
  staged.item.summary = library->summary != nullptr ? library->summary : "";
  staged.item.library = library;
  record.staged.push_back(std::move(staged));
  return nullptr;
}

rxt_status_t StageImporter(PluginRecord& record, const rxt_importer_t* importer) {
  return StageVTable<rxt_importer_t>(
      record, PluginItemKind::kImporter, importer, RXT_SIZE_THROUGH(rxt_importer_t, import),
      [](const rxt_importer_t& v) -> const char* {
        bool no_extensions = v.extensions == nullptr || v.extensions[0] == '\0';
        return no_extensions ? "extensions" : v.import == nullptr ? "import" : nullptr;
      },
      &PluginItem::importer);
}

rxt_status_t StageExporter(PluginRecord& record, const rxt_exporter_t* exporter) {
  return StageVTable<rxt_exporter_t>(
      record, PluginItemKind::kExporter, exporter, RXT_SIZE_THROUGH(rxt_exporter_t, export_graph),
      [](const rxt_exporter_t& v) -> const char* {
        bool no_extensions = v.extensions == nullptr || v.extensions[0] == '\0';
        return no_extensions ? "extensions" : v.export_graph == nullptr ? "export_graph" : nullptr;
      },
      &PluginItem::exporter);
}

/// Whether a collective has both or neither of allreduce_start and wait.
bool StartsAndWaits(const rxt_collective_t& v) {
  bool start = RXT_VTABLE_HAS(rxt_collective_t, &v, allreduce_start) && v.allreduce_start != nullptr;
  bool wait = RXT_VTABLE_HAS(rxt_collective_t, &v, wait) && v.wait != nullptr;
  return start == wait;
}

rxt_status_t StageCollective(PluginRecord& record, const rxt_collective_t* collective) {
  return StageVTable<rxt_collective_t>(
      record, PluginItemKind::kCollective, collective, RXT_SIZE_THROUGH(rxt_collective_t, barrier),
      [](const rxt_collective_t& v) -> const char* {
        return v.create == nullptr      ? "create"
               : v.destroy == nullptr   ? "destroy"
               : v.rank == nullptr      ? "rank"
               : v.size == nullptr      ? "size"
               : v.allreduce == nullptr ? "allreduce"
               : v.broadcast == nullptr ? "broadcast"
               : v.barrier == nullptr   ? "barrier"
               : !StartsAndWaits(v)     ? "allreduce_start and wait together (one of them is NULL)"
                                        : nullptr;
      },
      &PluginItem::collective);
}

rxt_code_t StageAbi2Item(PluginRecord& record, PluginItemKind kind, const abi2::Item* item) {
  const char* kind_name = PluginItemKindName(kind);
  auto reject = [&](ErrorCode code, std::string message) {
    record.errors.emplace_back(code, std::move(message));
    return static_cast<rxt_code_t>(code);
  };
  if (!record.registering) return RXT_FAILED_PRECONDITION;  // the load is over: only the plugin learns
  if (item == nullptr) return reject(ErrorCode::kInvalidArgument, StrCat("registers a null ", kind_name));
  if (!HasV1Fields(*item)) {
    return reject(ErrorCode::kInvalidArgument,
                  StrCat("registers a ", kind_name, " whose struct_size (", item->struct_size, ") is too small"));
  }
  if (item->name == nullptr || item->name[0] == '\0') {
    return reject(ErrorCode::kInvalidArgument, StrCat("registers a ", kind_name, " without a name"));
  }
  std::string taken = NameTaken(record, kind, item->name);
  if (!taken.empty()) return reject(ErrorCode::kAlreadyExists, std::move(taken));
  PluginRecord::StagedItem staged;
  staged.item.kind = kind;
  staged.item.name = item->name;
  staged.item.summary = item->summary != nullptr ? item->summary : "";
  staged.abi2 = *item;
  record.staged.push_back(std::move(staged));
  return RXT_OK;
}

void AdaptAbi2Item(PluginRecord& record, PluginItem& item, const abi2::Item& raw) {
  Abi2Adapters& adapters = record.abi2_adapters;
  if (item.kind == PluginItemKind::kBackend) {
    try {
      item.backend = adapters.Backend(raw, StrCat("backend '", item.name, "' (plugin '", item.plugin, "')"));
    } catch (const Error& e) {
      item.unusable = e;
    }
    return;
  }
  // Version 1's callbacks are untyped, and an item without one is known by name only.
  if (item.abi_version < 2 || raw.callback == nullptr) return;
  switch (item.kind) {
    case PluginItemKind::kOptimizer: item.optimizer = adapters.Optimizer(raw); return;
    case PluginItemKind::kLoss: item.loss = adapters.Loss(raw); return;
    case PluginItemKind::kGradient: item.gradient_rule = adapters.GradientRule(raw); return;
    case PluginItemKind::kBackend:
    case PluginItemKind::kOp:
    case PluginItemKind::kLibrary:
    case PluginItemKind::kImporter:
    case PluginItemKind::kExporter:
    case PluginItemKind::kCollective: return;
  }
}

}  // namespace rxt::plugin_detail
