// Fuzz target extern_plugins: the runtime's reading of what a plugin's entry point gives it
// (core/src/runtime/extern_plugins.cc, what librxt_runtime loads plugins with: extern functions
// only). The fuzz bytes describe a plugin: the calls its entry point makes to the host API
// (extern functions and collectives registered by call, valid or malformed; items of other
// kinds, which the runtime drops; log messages; statuses), whether it throws or declines, and the descriptor it
// returns: its ABI version, struct size, name (any bytes) and its list of extern functions
// (counts without arrays, null entries, vtables too small, unnamed, without their function,
// names given twice or already registered) and of collectives (vtables too small, unnamed,
// lacking a required function). Every struct is allocated with exactly the size it
// claims, so a host that reads a field past struct_size is caught by AddressSanitizer.
//
// A load either registers every extern function the plugin gives, keeps every collective (each
// found by its name, with every required function) and lists the plugin, or throws an
// rxt::Error and changes nothing; a plugin name loads once; each function registered
// runs, and its failure is an rxt::Error naming it; registering after the entry point returned
// fails with RXT_FAILED_PRECONDITION.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "fuzz_util.h"
#include "plugin_memory.h"
#include "rxt/runtime/extern.h"
#include "rxt/runtime/extern_plugins.h"
#include "rxt/support/error.h"

namespace {

using rxt::fuzz::FuzzInput;

using rxt::fuzz::PluginMemory;
using rxt::fuzz::Sized;
using rxt::fuzz::StructSize;

/// NULL, one of a few names (so that some repeat), or up to 24 fuzz bytes.
const char* Name(FuzzInput& in, PluginMemory& memory) {
  switch (in.Int(0, 7)) {
    case 0: return nullptr;
    case 1: return "fuzz.a";
    case 2: return "fuzz.b";
    case 3: return "taken.f";  // already in the registry before the load
    default: return memory.Keep(in.String(24));
  }
}

const rxt_host_api_t* g_api = nullptr;  // the host's API, as the entry point received it

// The plugin's extern function: fails with a status (state non-null: with a long message), so a
// call of it is an rxt::Error.
rxt_status_t Fail(void* state, DLTensor* const*, int) {
  std::string message = state != nullptr ? std::string(3000, 'm') : "fuzz extern failed";
  return g_api->status_create(RXT_INTERNAL, message.c_str());
}

const rxt_extern_t* Extern(FuzzInput& in, PluginMemory& memory) {
  rxt_extern_t v{};
  size_t claimed = StructSize(in, sizeof v);
  v.struct_size = claimed;
  v.name = Name(in, memory);
  v.summary = Name(in, memory);
  v.state = in.Bool() ? &memory : nullptr;
  v.function = in.Int(0, 7) != 0 ? &Fail : nullptr;
  return Sized(memory, v, claimed);
}

// The collective's functions: never called by a load.
rxt_status_t Create(void*, const char*, void*, rxt_communicator_t**) { return nullptr; }
void Destroy(void*, rxt_communicator_t*) {}
int32_t Zero(void*, const rxt_communicator_t*) { return 0; }
rxt_status_t AllReduce(void*, rxt_communicator_t*, DLTensor*, rxt_reduce_op_t) { return nullptr; }
rxt_status_t Broadcast(void*, rxt_communicator_t*, DLTensor*, int32_t) { return nullptr; }
rxt_status_t Barrier(void*, rxt_communicator_t*) { return nullptr; }
rxt_status_t Start(void*, rxt_communicator_t*, DLTensor*, rxt_reduce_op_t, rxt_request_t**) { return nullptr; }
rxt_status_t Wait(void*, rxt_communicator_t*, rxt_request_t*) { return nullptr; }

const rxt_collective_t* Collective(FuzzInput& in, PluginMemory& memory) {
  rxt_collective_t v{};
  size_t claimed = StructSize(in, sizeof v);
  v.struct_size = claimed;
  v.name = Name(in, memory);
  v.summary = Name(in, memory);
  bool all = in.Int(0, 3) != 0;  // else one required function missing
  int missing = all ? -1 : in.Int(0, 6);
  v.create = missing == 0 ? nullptr : &Create;
  v.destroy = missing == 1 ? nullptr : &Destroy;
  v.rank = missing == 2 ? nullptr : &Zero;
  v.size = missing == 3 ? nullptr : &Zero;
  v.allreduce = missing == 4 ? nullptr : &AllReduce;
  v.broadcast = missing == 5 ? nullptr : &Broadcast;
  v.barrier = missing == 6 ? nullptr : &Barrier;
  // The optional pair: both, neither, or one of them (refused).
  int overlap = in.Int(0, 3);
  v.allreduce_start = overlap == 1 || overlap == 2 ? &Start : nullptr;
  v.wait = overlap == 1 || overlap == 3 ? &Wait : nullptr;
  return Sized(memory, v, claimed);
}

struct Plan {
  FuzzInput* in = nullptr;
  PluginMemory* memory = nullptr;
};
Plan* g_plan = nullptr;

void CallHost(FuzzInput& in, PluginMemory& memory, const rxt_host_api_t* api) {
  int calls = in.Int(0, 6);
  for (int c = 0; c < calls; ++c) {
    rxt_status_t status = nullptr;
    switch (in.Int(0, 6)) {
      case 0:
      case 1: status = api->register_extern(api->host, in.Int(0, 7) == 0 ? nullptr : Extern(in, memory)); break;
      case 6: status = api->register_collective(api->host, in.Int(0, 7) == 0 ? nullptr : Collective(in, memory)); break;
      // Items of other kinds: dropped by the runtime without being read.
      case 2: status = api->register_optimizer(api->host, nullptr); break;
      case 3: status = api->register_backend(api->host, reinterpret_cast<const rxt_backend_t*>(memory.Block(1))); break;
      case 4: api->log(api->host, static_cast<rxt_log_level_t>(in.Int(-1, 2)), Name(in, memory)); break;
      case 5: status = api->status_create(static_cast<rxt_code_t>(in.Int(-1, 20)), Name(in, memory)); break;
    }
    if (status != nullptr) FUZZ_CHECK(api->status_message(status) != nullptr, "a status without a message string");
    api->status_free(status);
  }
}

const rxt_plugin_descriptor_t* Entry(uint32_t host_abi_version, const rxt_host_api_t* api) {
  FuzzInput& in = *g_plan->in;
  PluginMemory& memory = *g_plan->memory;
  FUZZ_CHECK(host_abi_version == RXT_PLUGIN_ABI_VERSION, "the runtime offers ABI version " + std::to_string(host_abi_version));
  g_api = api;
  CallHost(in, memory, api);
  switch (in.Int(0, 15)) {
    case 0: return nullptr;  // declines
    case 1: throw std::runtime_error("a plugin that throws");
    default: break;
  }
  rxt_plugin_descriptor_t d{};
  size_t claimed = StructSize(in, sizeof d);
  d.struct_size = claimed;
  d.abi_version = in.Int(0, 7) == 0 ? static_cast<uint32_t>(in.Range(0, UINT32_MAX)) : RXT_PLUGIN_ABI_VERSION;
  d.name = Name(in, memory);
  d.version = Name(in, memory);
  d.num_externs = static_cast<size_t>(in.Int(0, 4));
  if (in.Int(0, 15) != 0 && (d.num_externs > 0 || in.Bool())) {
    auto* list = reinterpret_cast<const rxt_extern_t**>(memory.Block(d.num_externs * sizeof(const rxt_extern_t*)));
    for (size_t i = 0; i < d.num_externs; ++i) list[i] = in.Int(0, 7) == 0 ? nullptr : Extern(in, memory);
    d.externs = list;
  }
  d.num_collectives = static_cast<size_t>(in.Int(0, 2));
  if (in.Int(0, 15) != 0 && (d.num_collectives > 0 || in.Bool())) {
    auto* list = reinterpret_cast<const rxt_collective_t**>(memory.Block(d.num_collectives * sizeof(const rxt_collective_t*)));
    for (size_t i = 0; i < d.num_collectives; ++i) list[i] = in.Int(0, 7) == 0 ? nullptr : Collective(in, memory);
    d.collectives = list;
  }
  return Sized(memory, d, claimed);
}

void Nothing(DLTensor* const*, int) {}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzInput in(data, size);
  PluginMemory memory;  // declared before the registry: its functions point into it
  rxt::ExternRegistry registry(nullptr);
  registry.Register("taken.f", rxt::ExternFunction(&Nothing));
  rxt::ExternPlugins plugins(registry);
  Plan plan{&in, &memory};
  g_plan = &plan;
  std::string name;
  try {
    name = plugins.LoadLinked("fuzz_plugin", &Entry);
  } catch (const rxt::Error& e) {
    g_plan = nullptr;
    FUZZ_CHECK(std::string(e.what()).rfind("plugin fuzz_plugin: ", 0) == 0, std::string("an error not naming the plugin: ") + e.what());
    FUZZ_CHECK(plugins.Names().empty(), "a plugin that failed to load is listed");
    FUZZ_CHECK(registry.List() == std::vector<std::string>{"taken.f"}, "a plugin that failed to load left a function");
    FUZZ_CHECK(plugins.CollectiveNames().empty(), "a plugin that failed to load left a collective");
    return 0;
  }
  g_plan = nullptr;
  FUZZ_CHECK(!name.empty() && plugins.Names() == std::vector<std::string>{name}, "the loaded plugin is not listed by its name");
  // Loaded once: the entry point is not called again (it would read past the fuzz bytes' plan).
  FUZZ_CHECK(plugins.LoadLinked("fuzz_plugin", &Entry) == name, "a plugin loaded twice");
  // Every function registered runs, and its failure is an error naming it.
  std::vector<std::string> names = registry.List();
  FUZZ_CHECK(std::set<std::string>(names.begin(), names.end()).size() == names.size(), "a function registered twice");
  for (const std::string& function : names) {
    if (function == "taken.f") continue;
    try {
      registry.Find(function)(nullptr, 0);
      FUZZ_CHECK(false, "extern '" + function + "' succeeded, but it always fails");
    } catch (const rxt::Error& e) {
      FUZZ_CHECK(std::string(e.what()).find("extern function '" + function + "'") != std::string::npos,
                 std::string("an extern's failure not naming it: ") + e.what());
    }
  }
  // Each collective kept is found by its name, whole: every required function, an optional
  // member read only within the struct size it claimed.
  for (const std::string& collective : plugins.CollectiveNames()) {
    std::optional<rxt::ExternPlugins::Collective> found = plugins.FindCollective(collective);
    FUZZ_CHECK(found.has_value() && found->vtable->name == collective, "collective '" + collective + "' not found by its name");
    const rxt_collective_t& c = *found->vtable;
    FUZZ_CHECK(c.create && c.destroy && c.rank && c.size && c.allreduce && c.broadcast && c.barrier,
               "collective '" + collective + "' kept without a required function");
    FUZZ_CHECK(c.struct_size <= sizeof(rxt_collective_t), "a collective's copy claims more than its struct");
    FUZZ_CHECK(RXT_VTABLE_HAS(rxt_collective_t, &c, abort) || c.abort == nullptr, "an abort read past the struct size");
    FUZZ_CHECK(RXT_VTABLE_HAS(rxt_collective_t, &c, wait) || (c.allreduce_start == nullptr && c.wait == nullptr),
               "an allreduce_start or wait read past the struct size");
    FUZZ_CHECK((c.allreduce_start == nullptr) == (c.wait == nullptr), "a collective kept with half of start and wait");
  }
  // After the entry point returned, the API registers nothing.
  rxt_extern_t late{sizeof late, "late.f", nullptr, nullptr, &Fail};
  rxt_status_t refusal = g_api->register_extern(g_api->host, &late);
  FUZZ_CHECK(refusal != nullptr && g_api->status_code(refusal) == RXT_FAILED_PRECONDITION,
             "an extern function was accepted after the entry point returned");
  g_api->status_free(refusal);
  return 0;
}
