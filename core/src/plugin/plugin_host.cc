// The plugin host: load, negotiate, validate, then register everything at once (or nothing).
#include "rxt/plugin/plugin_host.h"

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "plugin_ops.h"
#include "kernel_library.h"
#include "plugin_record.h"
#include "rxt/ir/op.h"
#include "rxt/runtime/plugin_search_path.h"
#include "rxt/plugin/ir_generators.h"
#include "rxt/support/c_status.h"
#include "rxt/support/message_text.h"
#include "rxt/runtime/extern.h"

namespace rxt {

namespace abi2 = plugin_detail::abi2;
using plugin_detail::PluginRecord;

namespace {

namespace fs = std::filesystem;

size_t KindIndex(PluginItemKind kind) { return static_cast<size_t>(kind); }

void LogToStderr(rxt_log_level_t level, const std::string& plugin, const std::string& message) {
  if (level < RXT_LOG_WARNING) return;
  std::cerr << "rxt: plugin " << plugin << ": " << (level == RXT_LOG_ERROR ? "error" : "warning") << ": "
            << message << "\n";
}

/// A descriptor's fields are read only once its struct_size shows they are there.
template <typename Descriptor, typename Field>
bool DescriptorHas(const Descriptor& d, const Field& field) {
  auto offset = reinterpret_cast<const char*>(&field) - reinterpret_cast<const char*>(&d);
  return d.struct_size >= static_cast<size_t>(offset) + sizeof(Field);
}

/// Records an error for a list that has a count but no array.
bool HasArray(PluginRecord& record, const void* array, size_t count, const char* kind_name) {
  if (count == 0 || array != nullptr) return true;
  record.errors.emplace_back(ErrorCode::kInvalidArgument,
                             StrCat("descriptor lists ", count, " ", kind_name, "(s) but no array"));
  return false;
}

/// Stages one list of vtables (version 3); statuses are errors already recorded.
template <typename VTable>
void StageList(PluginRecord& record, const VTable* const* list, size_t count, const char* kind_name,
               rxt_status_t (*stage)(PluginRecord&, const VTable*)) {
  if (!HasArray(record, list, count, kind_name)) return;
  for (size_t i = 0; i < count; ++i) FreeCStatus(stage(record, list[i]));
}

/// Stages the descriptor's lists after the items the plugin registered by calls (version 3).
void StageDescriptorItems(PluginRecord& record, const rxt_plugin_descriptor_t& d) {
  StageList(record, d.optimizers, d.num_optimizers, "optimizer", &plugin_detail::StageOptimizer);
  StageList(record, d.losses, d.num_losses, "loss", &plugin_detail::StageLoss);
  StageList(record, d.gradient_rules, d.num_gradient_rules, "gradient", &plugin_detail::StageGradientRule);
  StageList(record, d.backends, d.num_backends, "backend", &plugin_detail::StageBackend);
  StageList(record, d.externs, d.num_externs, "extern function", &plugin_detail::StageExtern);
  if (DescriptorHas(d, d.num_ops)) StageList(record, d.ops, d.num_ops, "op", &plugin_detail::StageOp);
  // Appended within version 3: a descriptor compiled before has no such members.
  if (DescriptorHas(d, d.num_libraries)) {
    StageList(record, d.libraries, d.num_libraries, "library", &plugin_detail::StageLibrary);
  }
  if (DescriptorHas(d, d.num_importers)) {
    StageList(record, d.importers, d.num_importers, "importer", &plugin_detail::StageImporter);
  }
  if (DescriptorHas(d, d.num_exporters)) {
    StageList(record, d.exporters, d.num_exporters, "exporter", &plugin_detail::StageExporter);
  }
  if (DescriptorHas(d, d.num_collectives)) {
    StageList(record, d.collectives, d.num_collectives, "collective", &plugin_detail::StageCollective);
  }
}

/// The same for a descriptor of version 1 or 2, whose lists are arrays of items.
void StageAbi2DescriptorItems(PluginRecord& record, const abi2::Descriptor& d) {
  struct List {
    PluginItemKind kind;
    const abi2::Item* items;
    size_t count;
  };
  const List lists[] = {{PluginItemKind::kOptimizer, d.optimizers, d.num_optimizers},
                        {PluginItemKind::kLoss, d.losses, d.num_losses},
                        {PluginItemKind::kGradient, d.gradients, d.num_gradients},
                        {PluginItemKind::kBackend, d.backends, d.num_backends}};
  for (const List& list : lists) {
    if (!HasArray(record, list.items, list.count, PluginItemKindName(list.kind))) continue;
    for (size_t i = 0; i < list.count; ++i) plugin_detail::StageAbi2Item(record, list.kind, &list.items[i]);
  }
}

/// Checks that a descriptor is large enough for its version's lists and has a name, then reads
/// it into record.info; records errors.
template <typename Descriptor, typename LastField>
bool ReadDescriptorInfo(PluginRecord& record, const Descriptor& d, const LastField& last) {
  if (!DescriptorHas(d, last)) {
    record.errors.emplace_back(ErrorCode::kInvalidArgument,
                               StrCat("returned a descriptor of ", d.struct_size, " bytes; ABI version ",
                                      d.abi_version, " needs ", sizeof(Descriptor)));
    return false;
  }
  if (d.name == nullptr || d.name[0] == '\0') {
    record.errors.emplace_back(ErrorCode::kInvalidArgument, "returned a descriptor without a name");
    return false;
  }
  record.info.name = d.name;
  record.info.version = d.version != nullptr ? d.version : "";
  record.info.summary = d.summary != nullptr ? d.summary : "";
  record.info.abi_version = d.abi_version;
  return true;
}

/// Reads and checks the descriptor into record.info and stages its lists; records errors. Its
/// version (at the same place in every version) says how to read the rest.
void ReadDescriptor(PluginRecord& record, const rxt_plugin_descriptor_t& d) {
  if (!DescriptorHas(d, d.abi_version)) {
    record.errors.emplace_back(ErrorCode::kInvalidArgument, "returned a descriptor too small to hold its ABI version");
    return;
  }
  if (d.abi_version < RXT_PLUGIN_ABI_MIN_VERSION || d.abi_version > RXT_PLUGIN_ABI_VERSION) {
    record.errors.emplace_back(ErrorCode::kFailedPrecondition,
                               StrCat("speaks plugin ABI version ", d.abi_version, ", but this host supports ",
                                      RXT_PLUGIN_ABI_MIN_VERSION, " to ", RXT_PLUGIN_ABI_VERSION));
    return;
  }
  if (d.abi_version >= 3) {
    if (ReadDescriptorInfo(record, d, d.num_externs)) StageDescriptorItems(record, d);
    return;
  }
  const auto& old = reinterpret_cast<const abi2::Descriptor&>(d);
  if (ReadDescriptorInfo(record, old, old.num_backends)) StageAbi2DescriptorItems(record, old);
}

}  // namespace

const char* PluginItemKindName(PluginItemKind kind) {
  switch (kind) {
    case PluginItemKind::kOptimizer: return "optimizer";
    case PluginItemKind::kLoss: return "loss";
    case PluginItemKind::kGradient: return "gradient";
    case PluginItemKind::kBackend: return "backend";
    case PluginItemKind::kOp: return "op";
    case PluginItemKind::kLibrary: return "library";
    case PluginItemKind::kImporter: return "importer";
    case PluginItemKind::kExporter: return "exporter";
    case PluginItemKind::kCollective: return "collective";
  }
  return "unknown";
}

PluginHost::PluginHost()
    : own_externs_(std::make_unique<ExternRegistry>(&ExternRegistry::Global())),
      externs_(own_externs_.get()),
      sink_(LogToStderr) {}

PluginHost::PluginHost(UseProcessExterns) : externs_(&ExternRegistry::Global()), sink_(LogToStderr) {}
PluginHost::~PluginHost() {
  // The ops forget this host's gradient rules (the global host is never destroyed).
  const std::vector<PluginItem>& rules = items_[KindIndex(PluginItemKind::kGradient)];
  if (rules.empty()) return;
  OpRegistry::Global().Extend([&](OpRegistry& registry) {
    for (const PluginItem& rule : rules) {
      if (OpDef* op = registry.FindMutable(rule.name)) op->DropOwned<FGradient>(gradient_owner());
    }
  });
}

void PluginHost::CheckOps(PluginRecord& record) const {
  for (const PluginRecord::StagedItem& staged : record.staged) {
    if (staged.item.kind != PluginItemKind::kOp) continue;
    bool reuse = false;
    std::string problem = plugin_detail::CheckPluginOp(*staged.item.op, record.info.name, &reuse);
    if (!problem.empty()) record.errors.emplace_back(ErrorCode::kInvalidArgument, std::move(problem));
  }
}

void PluginHost::CheckItemsNameOps(PluginRecord& record) const {
  const OpRegistry& registry = OpRegistry::Global();
  std::vector<std::string> ops, own_ops;  // the registry's, and those the plugin defines
  for (const OpDef* op : registry.List()) ops.push_back(op->name());
  auto unknown = [&](const std::string& what, const std::string& op) {
    if (registry.Find(op) != nullptr || std::find(own_ops.begin(), own_ops.end(), op) != own_ops.end()) return;
    std::string closest = ClosestName(op, ops);
    std::string hint = closest.empty() ? "" : StrCat(" (did you mean '", closest, "'?)");
    record.errors.emplace_back(ErrorCode::kNotFound, StrCat(what, " ", Quoted(op), hint));
  };
  for (const PluginRecord::StagedItem& staged : record.staged) {
    if (staged.item.kind == PluginItemKind::kOp) own_ops.push_back(staged.item.name);
  }
  ops.insert(ops.end(), own_ops.begin(), own_ops.end());
  for (const PluginRecord::StagedItem& staged : record.staged) {
    const PluginItem& item = staged.item;
    if (item.kind == PluginItemKind::kGradient) unknown("gradient rule for an unknown op", item.name);
    if (item.kind != PluginItemKind::kLibrary) continue;
    for (const LibraryPattern& pattern : plugin_detail::KernelLibraryOf(item).patterns) {
      std::string what =
          StrCat("library ", Quoted(item.name), ": pattern ", Quoted(pattern.name), " names an unknown op");
      unknown(what, pattern.anchor);
      for (const auto* list : {&pattern.epilogue, &pattern.input_ops, &pattern.sibling_ops}) {
        for (const std::string& op : *list) unknown(what, op);
      }
    }
  }
}

Function PluginHost::BuildLoss(const std::string& name, const std::string& options,
                               const StructInfo& prediction) const {
  return BuildLossFunction(FindTrainingItem(PluginItemKind::kLoss, name, this), options, prediction);
}

OptimizerFunction PluginHost::BuildOptimizer(const std::string& name, const std::string& options,
                                             const std::vector<StructInfo>& params) const {
  return BuildOptimizerFunction(FindTrainingItem(PluginItemKind::kOptimizer, name, this), options, params);
}

std::vector<KernelLibrary> PluginHost::Libraries() const {
  std::vector<KernelLibrary> libraries;
  for (const PluginItem& item : Items(PluginItemKind::kLibrary)) {
    libraries.push_back(plugin_detail::KernelLibraryOf(item));
  }
  return libraries;
}

std::vector<std::string> PluginHost::PreferredLibraries(const std::string& backend) const {
  std::optional<PluginItem> item = Find(PluginItemKind::kBackend, backend);
  std::vector<std::string> names;
  if (!item || item->backend == nullptr || !RXT_VTABLE_HAS(rxt_backend_t, item->backend, preferred_libraries)) {
    return names;
  }
  for (const char* const* name = item->backend->preferred_libraries; name != nullptr && *name != nullptr; ++name) {
    if (**name != '\0') names.emplace_back(*name);
  }
  return names;
}

const TrainingProvider& DefaultTrainingProvider() { return PluginHost::Global(); }
const LibraryProvider& DefaultLibraryProvider() { return PluginHost::Global(); }

PluginHost& PluginHost::Global() {
  static PluginHost* host = new PluginHost(UseProcessExterns{});  // intentionally never destroyed
  return *host;
}

void PluginHost::SetLogSink(PluginLogSink sink) {
  std::lock_guard<std::mutex> lock(mutex_);
  sink_ = std::move(sink);
}

std::shared_ptr<PluginRecord> PluginHost::Open(const std::string& path) const {
  auto record = plugin_detail::OpenPluginLibrary(path);
  record->sink = sink_;
  plugin_detail::InitHostApi(*record);
  return record;
}

PluginInfo PluginHost::Load(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::error_code ec;
  std::string absolute = fs::weakly_canonical(fs::absolute(path), ec).string();
  if (ec) absolute = fs::absolute(path).lexically_normal().string();
  for (const auto& loaded : plugins_) {
    if (loaded->path == absolute) return loaded->info;
  }

  std::shared_ptr<PluginRecord> record = Open(absolute);
  record->info.path = absolute;
  return Negotiate(record);
}

PluginInfo PluginHost::LoadLinked(const std::string& name, rxt_plugin_entry_fn_t entry) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& loaded : plugins_) {
    if (loaded->path == name) return loaded->info;
  }
  auto record = std::make_shared<PluginRecord>();
  record->path = record->log_name = record->info.path = name;
  record->entry = entry;
  record->sink = sink_;
  plugin_detail::InitHostApi(*record);
  return Negotiate(record);
}

PluginInfo PluginHost::Negotiate(const std::shared_ptr<PluginRecord>& record) {
  const std::string& absolute = record->info.path;
  record->extern_registry = externs_;
  record->owner_of = [this](PluginItemKind kind, const std::string& name) -> std::string {
    for (const PluginItem& item : items_[KindIndex(kind)]) {
      if (item.name == name) return "'" + item.plugin + "'";
    }
    return "";
  };
  record->registering = true;
  const rxt_plugin_descriptor_t* descriptor = nullptr;
  try {
    descriptor = record->entry(RXT_PLUGIN_ABI_VERSION, &record->api);
  } catch (...) {
    record->errors.emplace_back(ErrorCode::kInternal, "entry point threw an exception (plugins must not)");
  }
  if (descriptor != nullptr) ReadDescriptor(*record, *descriptor);  // still registering: stages its lists
  record->registering = false;
  record->owner_of = nullptr;

  if (record->errors.empty() && descriptor == nullptr) {
    std::string reason = record->last_log.empty() ? "" : ": " + record->last_log;
    Throw(ErrorCode::kFailedPrecondition, "plugin ", absolute, ": declined to load", reason);
  }
  CheckOps(*record);
  CheckItemsNameOps(*record);
  for (const auto& loaded : plugins_) {
    if (!record->info.name.empty() && loaded->info.name == record->info.name) {
      record->errors.emplace_back(ErrorCode::kAlreadyExists, StrCat("plugin name '", record->info.name,
                                                                    "' is already loaded from ", loaded->path));
    }
  }
  if (!record->errors.empty()) {
    std::string problems;
    for (const auto& [code, message] : record->errors) problems += (problems.empty() ? "" : "; ") + message;
    Throw(record->errors.front().first, "plugin ", absolute, ": ", problems);
  }
  Register(record);
  return record->info;
}

void PluginHost::Register(const std::shared_ptr<PluginRecord>& record) {
  std::shared_ptr<const void> keep_alive = record;
  plugin_detail::DefinePluginOps(*record, keep_alive);  // first: it may still refuse the load
  std::vector<PluginItem> rules;
  for (PluginRecord::StagedItem& staged : record->staged) {
    PluginItem& item = staged.item;
    item.plugin = record->info.name;
    item.abi_version = record->info.abi_version;
    item.keep_alive = keep_alive;
    if (staged.abi2) plugin_detail::AdaptAbi2Item(*record, item, *staged.abi2);
    record->info.items[KindIndex(item.kind)].push_back(item.name);
    if (item.kind == PluginItemKind::kGradient) rules.push_back(item);
    items_[KindIndex(item.kind)].push_back(std::move(item));
  }
  record->staged.clear();
  // Gradient rules become their ops' FGradient attribute (CheckGradientRulesNameOps made sure
  // every op exists), owned by this host.
  if (!rules.empty()) {
    OpRegistry::Global().Extend([&](OpRegistry& registry) {
      for (const PluginItem& rule : rules) {
        registry.FindMutable(rule.name)->SetOwned<FGradient>(gradient_owner(), GradientAttribute(rule));
      }
    });
  }
  // An extern function keeps the library loaded while the registry holds it.
  for (const PluginRecord::StagedExtern& e : record->staged_externs) {
    rxt_extern_fn_t function = e.vtable->function;
    void* state = e.vtable->state;
    externs_->Register(
        e.name, [function, state, context = StrCat("extern function '", e.name, "'"), keep_alive](
                    DLTensor* const* args, int num_args) { ThrowIfFailed(function(state, args, num_args), context); });
    record->externs.push_back(e.name);
  }
  record->staged_externs.clear();
  record->last_log.clear();
  plugins_.push_back(record);
}

std::vector<std::string> PluginHost::SearchPath() { return PluginSearchPath(); }

std::vector<Error> PluginHost::LoadSearchPath() {
  std::vector<Error> failures;
  std::vector<std::string> seen_file_names;  // an earlier directory shadows a later one
  for (const std::string& dir : SearchPath()) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      if (entry.path().extension() == ".so") files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
      std::string file_name = file.filename().string();
      if (std::find(seen_file_names.begin(), seen_file_names.end(), file_name) != seen_file_names.end()) continue;
      seen_file_names.push_back(file_name);
      try {
        Load(file.string());
      } catch (const Error& e) {
        failures.push_back(e);
      }
    }
  }
  return failures;
}

std::vector<PluginInfo> PluginHost::Plugins() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<PluginInfo> infos;
  for (const auto& record : plugins_) infos.push_back(record->info);
  return infos;
}

std::optional<PluginItem> PluginHost::Find(PluginItemKind kind, const std::string& name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const PluginItem& item : items_[KindIndex(kind)]) {
    if (item.name == name) return item;
  }
  return std::nullopt;
}

std::vector<PluginItem> PluginHost::Items(PluginItemKind kind) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<PluginItem> items = items_[KindIndex(kind)];
  std::sort(items.begin(), items.end(), [](const PluginItem& a, const PluginItem& b) { return a.name < b.name; });
  return items;
}

}  // namespace rxt
