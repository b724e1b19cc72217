// Fuzz target plugin_descriptor: the plugin host's checks of what a plugin's entry point gives it
// (core/src/plugin/plugin_host.cc, host_api.cc, plugin_kernel_provider.cc). The fuzz bytes
// describe a plugin: the calls its entry point makes to the host API (items, some null, too
// small or unnamed; log messages), whether it throws, and the descriptor it returns: struct
// sizes, ABI version, names (any bytes, non-UTF-8 included), item lists (counts without arrays,
// NULL names) and backends' rxt_backend_t. Every struct is allocated with exactly the size it
// claims, so a host that reads a field past struct_size is caught by AddressSanitizer.
//
// A load either registers everything the plugin provides or throws an rxt::Error and registers
// nothing; a plugin name is not loaded twice; a backend that loads gives a kernel provider or an
// rxt::Error, and a kernel it refuses to load is an rxt::Error.
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "fuzz_util.h"
#include "rxt/support/error.h"
#include "rxt/plugin/plugin_host.h"
#include "rxt/plugin/plugin_kernel_provider.h"

namespace {

using rxt::fuzz::FuzzInput;

// Storage for one plugin's structs and strings, alive while its host is.
struct PluginMemory {
  std::vector<std::unique_ptr<std::vector<unsigned char>>> blocks;
  std::vector<std::unique_ptr<std::string>> strings;

  /// A block of exactly |size| bytes (at least 1), zeroed.
  unsigned char* Block(size_t size) {
    blocks.push_back(std::make_unique<std::vector<unsigned char>>(std::max<size_t>(size, 1)));
    return blocks.back()->data();
  }
  /// NULL, or a NUL-terminated copy of up to 24 fuzz bytes (stopping at a NUL among them).
  const char* Name(FuzzInput& in) {
    if (in.Int(0, 7) == 0) return nullptr;
    strings.push_back(std::make_unique<std::string>(in.String(24)));
    return strings.back()->c_str();
  }
};

// A struct_size as plugins get it wrong: exact, too small for some fields, larger (a newer plugin).
size_t StructSize(FuzzInput& in, size_t full) {
  switch (in.Int(0, 3)) {
    case 0: return full;
    case 1: return full + in.Int(1, 64);
    default: return static_cast<size_t>(in.Range(0, full));
  }
}

// Copies |value| into a block of max(sizeof(size_t), min(claimed, sizeof value)) bytes: the
// host may read the fields inside the claimed size only.
template <typename T>
const T* Sized(PluginMemory& memory, const T& value, size_t claimed) {
  size_t bytes = std::max(sizeof(size_t), std::min(claimed, sizeof(T)));
  unsigned char* block = memory.Block(bytes);
  std::memcpy(block, &value, bytes);
  return reinterpret_cast<const T*>(block);
}

// Backend callbacks of a plugin that loads no kernel: it writes a message filling the whole
// buffer without a terminating NUL (the host must not read past it).
void* RefuseKernel(void*, const char*, const uint8_t*, size_t, char* error, size_t error_size) {
  if (error != nullptr) std::memset(error, 'x', error_size);
  return nullptr;
}
rxt_code_t CallNothing(void*, void*, void* const*, int, char*, size_t) { return RXT_INTERNAL; }
void FreeNothing(void*, void*) {}

const rxt_backend_t* Backend(FuzzInput& in, PluginMemory& memory, const char* item_name) {
  if (in.Int(0, 3) == 0) return nullptr;
  rxt_backend_t backend{};
  size_t claimed = StructSize(in, sizeof backend);
  backend.struct_size = claimed;
  backend.name = in.Bool() ? item_name : memory.Name(in);
  backend.load_kernel = in.Int(0, 7) != 0 ? &RefuseKernel : nullptr;
  backend.call_kernel = in.Int(0, 7) != 0 ? &CallNothing : nullptr;
  backend.free_kernel = in.Int(0, 7) != 0 ? &FreeNothing : nullptr;
  return Sized(memory, backend, claimed);
}

// |count| items in one array (the array's stride is sizeof(rxt_plugin_item_t), whatever each
// item's struct_size says).
rxt_plugin_item_t* Items(FuzzInput& in, PluginMemory& memory, size_t count, bool backends) {
  auto* items = reinterpret_cast<rxt_plugin_item_t*>(memory.Block(count * sizeof(rxt_plugin_item_t)));
  for (size_t i = 0; i < count; ++i) {
    rxt_plugin_item_t& item = items[i];
    item.struct_size = StructSize(in, sizeof item);
    item.name = memory.Name(in);
    item.summary = memory.Name(in);
    if (backends) item.user_data = const_cast<rxt_backend_t*>(Backend(in, memory, item.name));
  }
  return items;
}

// What the entry point does, drawn from the fuzz bytes when the host calls it.
struct Plan {
  FuzzInput* in = nullptr;
  PluginMemory* memory = nullptr;
  const rxt_host_api_t* api = nullptr;  // kept, as a plugin may, to call after the load
};
Plan* g_plan = nullptr;  // the host calls a plain function pointer: no closure to carry it

void CallHost(FuzzInput& in, PluginMemory& memory, const rxt_host_api_t* api) {
  int calls = in.Int(0, 6);
  for (int c = 0; c < calls; ++c) {
    int kind = in.Int(0, 5);
    if (kind == 4) {
      const char* message = memory.Name(in);
      api->log(api->host, static_cast<rxt_log_level_t>(in.Int(-1, 5)), message);
      continue;
    }
    if (kind == 5) {
      // Only failing calls: a successful one would register the function for the whole process.
      const char* name = in.Bool() ? nullptr : "";
      if (RXT_HOST_API_HAS(api, register_extern)) api->register_extern(api->host, name, nullptr, nullptr);
      continue;
    }
    const rxt_plugin_item_t* item = in.Int(0, 7) == 0 ? nullptr : Items(in, memory, 1, kind == 3);
    using Register = rxt_code_t (*)(rxt_host_t*, const rxt_plugin_item_t*);
    Register registers[] = {api->register_optimizer, api->register_loss, api->register_gradient, api->register_backend};
    registers[kind](api->host, item);
  }
}

const rxt_plugin_descriptor_t* Entry(uint32_t host_abi_version, const rxt_host_api_t* api) {
  Plan& plan = *g_plan;
  FuzzInput& in = *plan.in;
  PluginMemory& memory = *plan.memory;
  FUZZ_CHECK(host_abi_version == RXT_PLUGIN_ABI_VERSION, "the host offers ABI version " + std::to_string(host_abi_version));
  plan.api = api;
  CallHost(in, memory, api);
  switch (in.Int(0, 15)) {
    case 0: return nullptr;  // declines
    case 1: throw std::runtime_error("a plugin that throws");
    default: break;
  }
  rxt_plugin_descriptor_t d{};
  size_t claimed = StructSize(in, sizeof d);
  d.struct_size = claimed;
  d.abi_version = static_cast<uint32_t>(in.Int(0, 7) == 0 ? in.Range(0, UINT32_MAX) : in.Int(1, 2));
  d.name = memory.Name(in);
  d.version = memory.Name(in);
  d.summary = memory.Name(in);
  const rxt_plugin_item_t** lists[] = {&d.optimizers, &d.losses, &d.gradients, &d.backends};
  size_t* counts[] = {&d.num_optimizers, &d.num_losses, &d.num_gradients, &d.num_backends};
  for (int k = 0; k < 4; ++k) {
    *counts[k] = static_cast<size_t>(in.Int(0, 3));
    if (in.Int(0, 15) == 0) {
      *lists[k] = nullptr;  // a count without an array
    } else {
      *lists[k] = *counts[k] == 0 && in.Bool() ? nullptr : Items(in, memory, *counts[k], k == 3);
    }
  }
  return Sized(memory, d, claimed);
}

// Every backend the plugin registered gives a provider or an error; a refused kernel is an error.
void CheckBackends(const rxt::PluginHost& host, const rxt::PluginInfo& info) {
  for (const std::string& name : info.items[static_cast<size_t>(rxt::PluginItemKind::kBackend)]) {
    try {
      rxt::PluginKernelProvider provider = rxt::PluginKernelProvider::Find(name, host);
      provider.Load({.name = "k", .portable = {1, 2, 3}});
      FUZZ_CHECK(false, "a kernel the backend refused was loaded");
    } catch (const rxt::Error&) {
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzInput in(data, size);
  PluginMemory memory;  // declared before the host: it outlives the host's pointers into it
  rxt::PluginHost host;
  host.SetLogSink([](rxt_log_level_t, const std::string&, const std::string&) {});
  Plan plan{&in, &memory};
  g_plan = &plan;
  rxt::PluginInfo info;
  try {
    info = host.LoadLinked("fuzz_plugin", &Entry);
  } catch (const rxt::Error&) {
    g_plan = nullptr;
    FUZZ_CHECK(host.Plugins().empty(), "a plugin that failed to load stays loaded");
    for (rxt::PluginItemKind kind : rxt::kAllPluginItemKinds) {
      FUZZ_CHECK(host.Items(kind).empty(), "a plugin that failed to load left an item registered");
    }
    return 0;
  }
  g_plan = nullptr;
  FUZZ_CHECK(host.Plugins().size() == 1 && host.Plugins()[0].name == info.name && !info.name.empty(),
             "the loaded plugin is not listed by its name");
  for (rxt::PluginItemKind kind : rxt::kAllPluginItemKinds) {
    const auto& names = info.items[static_cast<size_t>(kind)];
    FUZZ_CHECK(host.Items(kind).size() == names.size(), "the host lists other items than the plugin registered");
    for (const std::string& name : names) {
      FUZZ_CHECK(!name.empty() && host.Find(kind, name).has_value(), "item '" + name + "' cannot be found");
    }
  }
  // After the entry point returned, the API registers nothing.
  rxt_plugin_item_t late{sizeof late, "late", nullptr, nullptr, nullptr};
  FUZZ_CHECK(plan.api->register_loss(plan.api->host, &late) == RXT_FAILED_PRECONDITION,
             "an item was accepted after the entry point returned");
  CheckBackends(host, info);

  // The same plugin again, under another file name: its name is taken.
  FuzzInput replay(data, size);
  PluginMemory replay_memory;
  Plan second{&replay, &replay_memory};
  g_plan = &second;
  try {
    host.LoadLinked("fuzz_plugin_again", &Entry);
    FUZZ_CHECK(false, "plugin '" + info.name + "' was loaded twice");
  } catch (const rxt::Error&) {
  }
  g_plan = nullptr;
  return 0;
}
