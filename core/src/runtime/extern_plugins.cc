// The runtime's plugin loading (extern_plugins.h): the plugin gets a host API whose only
// registration that counts is register_extern; the other register_* functions accept and drop
// what they are given (it needs the compiler), so that a plugin offering more loads unchanged.
#include "rxt/runtime/extern_plugins.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <set>

#include "rxt/plugin.h"
#include "rxt/runtime/communicator.h"
#include "rxt/runtime/shared_object_check.h"
#include "rxt/runtime/thread_pool.h"
#include "rxt/support/c_status.h"
#include "rxt/support/error.h"
#include "rxt/support/message_text.h"

namespace rxt {
namespace {

namespace fs = std::filesystem;

/// What rxt_host_t points to for the runtime (the compiler's host has its own type).
struct Registration {
  bool registering = false;
  std::string last_log;
  std::vector<const rxt_extern_t*> externs;  // registered by call during the entry point
  std::vector<const rxt_collective_t*> collectives;  // likewise
};

Registration* Of(rxt_host_t* host) { return reinterpret_cast<Registration*>(host); }

void Log(rxt_host_t* handle, rxt_log_level_t level, const char* message) noexcept {
  Registration* host = Of(handle);
  if (host == nullptr || message == nullptr) return;
  try {
    if (host->registering) host->last_log = message;
    // As the compiler's host does by default: warnings and errors to stderr.
    // Read as an int: a plugin in C may pass any number, which C++ must not load as the enum.
    int number = 0;
    std::memcpy(&number, &level, sizeof number);
    if (number >= static_cast<int>(RXT_LOG_WARNING)) std::cerr << "rxt: plugin: " << message << "\n";
  } catch (...) {
  }
}

rxt_status_t RegisterExtern(rxt_host_t* handle, const rxt_extern_t* function) noexcept {
  Registration* host = Of(handle);
  if (host == nullptr) return MakeCStatus(ErrorCode::kInvalidArgument, "no host (rxt_host_api_t.host) given");
  if (!host->registering) {
    return MakeCStatus(ErrorCode::kFailedPrecondition, "extern functions are registered only during rxt_plugin_entry");
  }
  try {
    host->externs.push_back(function);  // checked with the descriptor's, below
  } catch (...) {
    return MakeCStatus(ErrorCode::kInternal, "out of memory");
  }
  return nullptr;
}

rxt_status_t RegisterCollective(rxt_host_t* handle, const rxt_collective_t* collective) noexcept {
  Registration* host = Of(handle);
  if (host == nullptr) return MakeCStatus(ErrorCode::kInvalidArgument, "no host (rxt_host_api_t.host) given");
  if (!host->registering) {
    return MakeCStatus(ErrorCode::kFailedPrecondition, "collectives are registered only during rxt_plugin_entry");
  }
  try {
    host->collectives.push_back(collective);  // checked with the descriptor's, below
  } catch (...) {
    return MakeCStatus(ErrorCode::kInternal, "out of memory");
  }
  return nullptr;
}

/// Any other item: kept by the compiler's host, of no use to the runtime.
template <typename Item>
rxt_status_t Ignore(rxt_host_t* /*host*/, const Item* /*item*/) noexcept {
  return nullptr;
}

rxt_host_api_t MakeHostApi(Registration* host) {
  rxt_host_api_t api{};
  api.struct_size = sizeof(rxt_host_api_t);
  api.abi_version = RXT_PLUGIN_ABI_VERSION;
  api.host = reinterpret_cast<rxt_host_t*>(host);
  api.log = &Log;
  api.kernel_runtime = &KernelRuntime();
  api.status_create = &HostStatusCreate;
  api.status_code = &HostStatusCode;
  api.status_message = &HostStatusMessage;
  api.status_free = &HostStatusFree;
  api.register_optimizer = &Ignore<rxt_optimizer_t>;
  api.register_loss = &Ignore<rxt_loss_t>;
  api.register_gradient_rule = &Ignore<rxt_gradient_rule_t>;
  api.register_backend = &Ignore<rxt_backend_t>;
  api.register_extern = &RegisterExtern;
  api.register_op = &Ignore<rxt_op_t>;
  api.register_library = &Ignore<rxt_library_t>;
  api.register_importer = &Ignore<rxt_importer_t>;
  api.register_exporter = &Ignore<rxt_exporter_t>;
  api.register_collective = &RegisterCollective;
  return api;
}

/// The plugin's extern functions: the descriptor's list, then those registered by call.
std::vector<const rxt_extern_t*> ExternsOf(const rxt_plugin_descriptor_t& d, const Registration& host,
                                           const std::string& where) {
  std::vector<const rxt_extern_t*> all;
  if (d.struct_size >= offsetof(rxt_plugin_descriptor_t, num_externs) + sizeof(size_t) && d.num_externs > 0) {
    if (d.externs == nullptr) Throw(ErrorCode::kInvalidArgument, where, ": lists ", d.num_externs, " extern functions but no list");
    all.assign(d.externs, d.externs + d.num_externs);
  }
  all.insert(all.end(), host.externs.begin(), host.externs.end());
  for (const rxt_extern_t* e : all) {
    if (e == nullptr || e->struct_size < offsetof(rxt_extern_t, function) + sizeof(e->function)) {
      Throw(ErrorCode::kInvalidArgument, where, ": an extern function's vtable is NULL or too small");
    }
    if (e->name == nullptr || e->name[0] == '\0' || !IsPrintableText(e->name)) {
      Throw(ErrorCode::kInvalidArgument, where, ": an extern function has no name or a name that is not printable text");
    }
    if (e->function == nullptr) Throw(ErrorCode::kInvalidArgument, where, ": extern function '", e->name, "' has no function");
  }
  return all;
}

/// The plugin's collectives (the descriptor's, then those registered by call), each copied with
/// the members its struct_size covers (the rest zero, so an optional member reads as absent).
std::vector<rxt_collective_t> CollectivesOf(const rxt_plugin_descriptor_t& d, const Registration& host,
                                            const std::string& where) {
  std::vector<const rxt_collective_t*> all;
  if (d.struct_size >= offsetof(rxt_plugin_descriptor_t, num_collectives) + sizeof(size_t) && d.num_collectives > 0) {
    if (d.collectives == nullptr) {
      Throw(ErrorCode::kInvalidArgument, where, ": lists ", d.num_collectives, " collectives but no list");
    }
    all.assign(d.collectives, d.collectives + d.num_collectives);
  }
  all.insert(all.end(), host.collectives.begin(), host.collectives.end());
  std::vector<rxt_collective_t> copies;
  for (const rxt_collective_t* c : all) {
    if (c == nullptr || c->struct_size < offsetof(rxt_collective_t, barrier) + sizeof(c->barrier)) {
      Throw(ErrorCode::kInvalidArgument, where, ": a collective's vtable is NULL or too small");
    }
    if (c->name == nullptr || c->name[0] == '\0' || !IsPrintableText(c->name)) {
      Throw(ErrorCode::kInvalidArgument, where, ": a collective has no name or a name that is not printable text");
    }
    if (c->create == nullptr || c->destroy == nullptr || c->rank == nullptr || c->size == nullptr ||
        c->allreduce == nullptr || c->broadcast == nullptr || c->barrier == nullptr) {
      Throw(ErrorCode::kInvalidArgument, where, ": collective '", c->name, "' lacks a required function");
    }
    rxt_collective_t copy{};
    std::memcpy(&copy, c, std::min(c->struct_size, sizeof copy));
    copy.struct_size = std::min(c->struct_size, sizeof copy);
    // A struct_size that ends inside an optional member copied part of it: not there.
    if (!RXT_VTABLE_HAS(rxt_collective_t, &copy, abort)) copy.abort = nullptr;
    if (!RXT_VTABLE_HAS(rxt_collective_t, &copy, allreduce_start)) copy.allreduce_start = nullptr;
    if (!RXT_VTABLE_HAS(rxt_collective_t, &copy, wait)) copy.wait = nullptr;
    if ((copy.allreduce_start == nullptr) != (copy.wait == nullptr)) {
      Throw(ErrorCode::kInvalidArgument, where, ": collective '", c->name,
            "' has one of allreduce_start and wait without the other");
    }
    copies.push_back(copy);
  }
  return copies;
}

}  // namespace

struct ExternPlugins::Loaded {
  std::string key;
  std::string name;
  std::vector<rxt_collective_t> collectives;  // copies; their names point into the library
  Registration host;
  rxt_host_api_t api{};
  std::shared_ptr<void> library;  // last: unloaded after the rest is gone
};

std::string ExternPlugins::Load(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::error_code ec;
  std::string absolute = fs::weakly_canonical(fs::absolute(path), ec).string();
  if (ec) absolute = fs::absolute(path).lexically_normal().string();
  if (std::string name = LoadedName(absolute); !name.empty()) return name;
  const std::string where = StrCat("plugin ", absolute);
  auto status = fs::status(absolute, ec);
  if (ec || !fs::exists(status)) Throw(ErrorCode::kNotFound, where, ": no such file");
  if (!fs::is_regular_file(status)) Throw(ErrorCode::kInvalidArgument, where, ": not a regular file");
  CheckSharedObjectFile(absolute, where);

  dlerror();
  void* raw = dlopen(absolute.c_str(), RTLD_LAZY | RTLD_LOCAL);
  if (raw == nullptr) {
    const char* why = dlerror();
    Throw(ErrorCode::kInvalidArgument, where, ": cannot be loaded as a shared library: ", why != nullptr ? why : "");
  }
  std::shared_ptr<void> library(raw, [](void* handle) { dlclose(handle); });
  auto entry = reinterpret_cast<rxt_plugin_entry_fn_t>(dlsym(raw, RXT_PLUGIN_ENTRY_SYMBOL));
  if (entry == nullptr) {
    Throw(ErrorCode::kNotFound, where, ": has no entry point '" RXT_PLUGIN_ENTRY_SYMBOL "' (is it an rxt plugin?)");
  }
  return Register(absolute, where, entry, std::move(library));
}

std::string ExternPlugins::LoadLinked(const std::string& name, rxt_plugin_entry_fn_t entry) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (std::string loaded = LoadedName(name); !loaded.empty()) return loaded;
  if (entry == nullptr) Throw(ErrorCode::kInvalidArgument, "plugin ", name, ": no entry point given");
  return Register(name, StrCat("plugin ", name), entry, nullptr);
}

std::string ExternPlugins::LoadedName(const std::string& key) const {
  for (const auto& plugin : loaded_) {
    if (plugin->key == key) return plugin->name;
  }
  return "";
}

std::string ExternPlugins::Register(const std::string& key, const std::string& where, rxt_plugin_entry_fn_t entry,
                                    std::shared_ptr<void> library) {
  // The host API outlives the entry point: a plugin may keep it while it is loaded.
  auto plugin = std::make_shared<Loaded>();
  plugin->key = key;
  plugin->library = std::move(library);
  plugin->api = MakeHostApi(&plugin->host);
  Registration& host = plugin->host;
  rxt_host_api_t& api = plugin->api;
  host.registering = true;
  const rxt_plugin_descriptor_t* d = nullptr;
  try {
    d = entry(RXT_PLUGIN_ABI_VERSION, &api);
  } catch (...) {
    Throw(ErrorCode::kInternal, where, ": entry point threw an exception (plugins must not)");
  }
  host.registering = false;
  if (d == nullptr) {
    Throw(ErrorCode::kFailedPrecondition, where, ": declined to load", host.last_log.empty() ? "" : ": " + host.last_log);
  }
  if (d->struct_size < offsetof(rxt_plugin_descriptor_t, name) + sizeof(d->name)) {
    Throw(ErrorCode::kInvalidArgument, where, ": returned a descriptor too small to hold its name");
  }
  // The runtime reads the version 3 descriptor only (older plugins need the compiler's host).
  if (d->abi_version != RXT_PLUGIN_ABI_VERSION) {
    Throw(ErrorCode::kFailedPrecondition, where, ": speaks plugin ABI version ", d->abi_version,
          ", but the runtime supports ", RXT_PLUGIN_ABI_VERSION);
  }
  if (d->name == nullptr || d->name[0] == '\0' || !IsPrintableText(d->name)) {
    Throw(ErrorCode::kInvalidArgument, where, ": its descriptor has no name");
  }
  std::string name = d->name;
  std::vector<const rxt_extern_t*> externs = ExternsOf(*d, host, where);
  plugin->collectives = CollectivesOf(*d, host, where);
  std::set<std::string> collective_names;
  for (const rxt_collective_t& c : plugin->collectives) {
    if (!collective_names.insert(c.name).second) {
      Throw(ErrorCode::kAlreadyExists, where, ": registers collective '", c.name, "' twice");
    }
    for (const auto& other : loaded_) {
      for (const rxt_collective_t& o : other->collectives) {
        if (c.name == std::string(o.name)) {
          Throw(ErrorCode::kAlreadyExists, where, ": collective '", c.name, "' is already loaded (plugin ", other->name, ")");
        }
      }
    }
  }
  std::set<std::string> names;
  for (const rxt_extern_t* e : externs) {
    if (!names.insert(e->name).second) {
      Throw(ErrorCode::kAlreadyExists, where, ": registers extern function '", e->name, "' twice");
    }
    if (registry_.HasOwn(e->name)) {
      Throw(ErrorCode::kAlreadyExists, where, ": extern function '", e->name, "' is already registered");
    }
  }
  // Each function keeps the plugin (its library, its host API) loaded while the registry holds it.
  for (const rxt_extern_t* e : externs) {
    rxt_extern_fn_t function = e->function;
    void* state = e->state;
    registry_.Register(e->name, [function, state, context = StrCat("extern function '", e->name, "'"), plugin](
                                    DLTensor* const* args, int num_args) {
      ThrowIfFailed(function(state, args, num_args), context);
    });
  }
  plugin->name = name;
  loaded_.push_back(plugin);
  return name;
}

std::vector<std::string> ExternPlugins::LoadFor(const std::vector<std::string>& externs,
                                                const std::vector<std::string>& search_path) {
  std::vector<std::string> libraries;
  for (const std::string& function : externs) {
    size_t dot = function.find('.');
    if (dot == std::string::npos || dot == 0 || IsCollectiveExtern(function) || registry_.Find(function)) continue;
    std::string library = function.substr(0, dot);
    if (!IsPrintableText(library) || library.find('/') != std::string::npos) continue;
    bool listed = false;
    for (const std::string& l : libraries) listed = listed || l == library;
    if (!listed) libraries.push_back(library);
  }
  std::vector<std::string> failures;
  for (const std::string& library : libraries) {
    for (const std::string& dir : search_path) {
      fs::path candidate = fs::path(dir) / ("rxt_lib_" + library + ".so");
      std::error_code ec;
      if (!fs::is_regular_file(candidate, ec)) continue;
      try {
        Load(candidate.string());
      } catch (const Error& e) {
        failures.push_back(e.what());
      }
      break;
    }
  }
  return failures;
}

std::optional<ExternPlugins::Collective> ExternPlugins::FindCollective(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& plugin : loaded_) {
    for (const rxt_collective_t& c : plugin->collectives) {
      // The vtable lives with the plugin, which the shared pointer keeps loaded.
      if (name == c.name) return Collective{std::shared_ptr<const rxt_collective_t>(plugin, &c)};
    }
  }
  return std::nullopt;
}

std::vector<std::string> ExternPlugins::CollectiveNames() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> names;
  for (const auto& plugin : loaded_) {
    for (const rxt_collective_t& c : plugin->collectives) names.push_back(c.name);
  }
  return names;
}

std::vector<std::string> ExternPlugins::Names() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> names;
  for (const auto& plugin : loaded_) names.push_back(plugin->name);
  return names;
}

}  // namespace rxt
