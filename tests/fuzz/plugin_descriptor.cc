// Fuzz target plugin_descriptor: the plugin host's checks of what a plugin's entry point gives it
// (core/src/plugin/plugin_host.cc, host_api.cc, abi2_adapters.cc, plugin_kernel_provider.cc).
// The fuzz bytes describe a plugin: the calls its entry point makes to the host API (vtables of
// ABI 3 (ops included) and items of ABI 2, some null, too small or unnamed, without their functions; log
// messages), whether it throws, and the descriptor it returns: its ABI version (3, 2, 1 or any
// number) and the layout that goes with it, struct sizes, names (any bytes, non-UTF-8
// included), lists (counts without arrays, null entries) and backends. Every struct is
// allocated with exactly the size it claims, so a host that reads a field past struct_size is
// caught by AddressSanitizer.
//
// A load either registers everything the plugin provides or throws an rxt::Error and registers
// nothing; a plugin name is not loaded twice; a backend that loads gives a kernel provider or an
// rxt::Error, and a kernel it refuses to load is an rxt::Error.
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "../../core/src/plugin/abi2.h"
#include "fuzz_util.h"
#include "plugin_memory.h"
#include "rxt/plugin/plugin_host.h"
#include "rxt/plugin/plugin_kernel_provider.h"
#include "rxt/runtime/communicator.h"
#include "rxt/support/c_status.h"
#include "rxt/support/error.h"

namespace {

namespace abi2 = rxt::plugin_detail::abi2;
using rxt::fuzz::FuzzInput;

using rxt::fuzz::PluginMemory;
using rxt::fuzz::Sized;
using rxt::fuzz::StructSize;

/// NULL, or a NUL-terminated copy of up to 24 fuzz bytes (stopping at a NUL among them).
const char* Name(FuzzInput& in, PluginMemory& memory) {
  if (in.Int(0, 7) == 0) return nullptr;
  return memory.Keep(in.String(24));
}

// ---- Functions of the fuzzed vtables. They must never run successfully: their items' failures
// are what the checks below look at.

rxt_status_t (*g_status_create)(rxt_code_t, const char*) = nullptr;

rxt_status_t Refuse(const char* what) { return g_status_create != nullptr ? g_status_create(RXT_INTERNAL, what) : nullptr; }
rxt_status_t NoUpdate(void*, const rxt_ir_api_t*, rxt_ir_builder_t*, const char*, const rxt_ir_expr_t*,
                      const rxt_ir_expr_t*, int, rxt_ir_expr_t*) {
  return Refuse("no update");
}
rxt_status_t NoLoss(void*, const rxt_ir_api_t*, rxt_ir_builder_t*, const char*, rxt_ir_expr_t, rxt_ir_expr_t*) {
  return Refuse("no loss");
}
rxt_status_t NoGradient(void*, const rxt_ir_api_t*, rxt_ir_builder_t*, rxt_ir_expr_t, rxt_ir_expr_t, rxt_ir_expr_t,
                        rxt_ir_expr_t*) {
  return Refuse("no gradient");
}
// A backend that loads no kernel: with a long message, or (state non-null) "successfully" without
// a kernel.
rxt_status_t RefuseKernel(void* state, const char*, const uint8_t*, size_t, void**) {
  return state != nullptr ? nullptr : Refuse(std::string(2000, 'x').c_str());
}
rxt_status_t CallNothing(void*, void*, DLTensor* const*, int) { return Refuse("no call"); }
void FreeNothing(void*, void*) {}
// A collective that makes no communicator.
rxt_status_t NoCommunicator(void*, const char*, void*, rxt_communicator_t**) { return Refuse("no communicator"); }
void NoDestroy(void*, rxt_communicator_t*) {}
int32_t RankZero(void*, const rxt_communicator_t*) { return 0; }
rxt_status_t NoAllReduce(void*, rxt_communicator_t*, DLTensor*, rxt_reduce_op_t) { return Refuse("no allreduce"); }
rxt_status_t NoBroadcast(void*, rxt_communicator_t*, DLTensor*, int32_t) { return Refuse("no broadcast"); }
rxt_status_t NoBarrier(void*, rxt_communicator_t*) { return Refuse("no barrier"); }
rxt_status_t NoStart(void*, rxt_communicator_t*, DLTensor*, rxt_reduce_op_t, rxt_request_t**) { return Refuse("no start"); }
rxt_status_t NoWait(void*, rxt_communicator_t*, rxt_request_t*) { return Refuse("no wait"); }
// Version 2's backend functions: the message fills the whole buffer without a terminating NUL
// (the host must not read past it).
void* RefuseKernelV2(void*, const char*, const uint8_t*, size_t, char* error, size_t error_size) {
  if (error != nullptr) std::memset(error, 'x', error_size);
  return nullptr;
}
rxt_code_t CallNothingV2(void*, void*, void* const*, int, char*, size_t) { return RXT_INTERNAL; }

template <typename T>
T Maybe(FuzzInput& in, T function) {
  return in.Int(0, 7) != 0 ? function : nullptr;
}

// ---- Version 3: vtables.

template <typename VTable>
VTable Named(FuzzInput& in, PluginMemory& memory, size_t* claimed) {
  VTable v{};
  *claimed = StructSize(in, sizeof v);
  v.struct_size = *claimed;
  v.name = Name(in, memory);
  v.summary = Name(in, memory);
  v.state = in.Int(0, 3) == 0 ? &memory : nullptr;
  return v;
}

const rxt_optimizer_t* Optimizer(FuzzInput& in, PluginMemory& memory) {
  size_t claimed = 0;
  auto v = Named<rxt_optimizer_t>(in, memory, &claimed);
  v.build = Maybe(in, &NoUpdate);
  return Sized(memory, v, claimed);
}
const rxt_loss_t* Loss(FuzzInput& in, PluginMemory& memory) {
  size_t claimed = 0;
  auto v = Named<rxt_loss_t>(in, memory, &claimed);
  v.build = Maybe(in, &NoLoss);
  return Sized(memory, v, claimed);
}
const rxt_gradient_rule_t* GradientRule(FuzzInput& in, PluginMemory& memory) {
  size_t claimed = 0;
  auto v = Named<rxt_gradient_rule_t>(in, memory, &claimed);
  v.build = Maybe(in, &NoGradient);
  return Sized(memory, v, claimed);
}
const rxt_backend_t* Backend(FuzzInput& in, PluginMemory& memory) {
  size_t claimed = 0;
  auto v = Named<rxt_backend_t>(in, memory, &claimed);
  v.load_kernel = Maybe(in, &RefuseKernel);
  v.call_kernel = Maybe(in, &CallNothing);
  v.free_kernel = Maybe(in, &FreeNothing);
  return Sized(memory, v, claimed);
}
const rxt_collective_t* Collective(FuzzInput& in, PluginMemory& memory) {
  size_t claimed = 0;
  auto v = Named<rxt_collective_t>(in, memory, &claimed);
  v.create = Maybe(in, &NoCommunicator);
  v.destroy = Maybe(in, &NoDestroy);
  v.rank = Maybe(in, &RankZero);
  v.size = Maybe(in, &RankZero);
  v.allreduce = Maybe(in, &NoAllReduce);
  v.broadcast = Maybe(in, &NoBroadcast);
  v.barrier = Maybe(in, &NoBarrier);
  v.allreduce_start = Maybe(in, &NoStart);
  v.wait = Maybe(in, &NoWait);
  return Sized(memory, v, claimed);
}
// Only externs that fail to register: one that registers would stay for the whole process.
const rxt_extern_t* Extern(FuzzInput& in, PluginMemory& memory) {
  size_t claimed = 0;
  auto v = Named<rxt_extern_t>(in, memory, &claimed);
  v.function = nullptr;
  return Sized(memory, v, claimed);
}

// Ops: malformed in every way, or well-formed under one of four fixed names. An op that
// registers stays in the process's registry (never called here), so valid names are few: later
// runs find them taken (by another plugin name) or reuse them (by the same one).
rxt_status_t NoInference(void*, const rxt_ir_api_t*, rxt_ir_builder_t*, rxt_ir_expr_t) { return Refuse("no inference"); }
rxt_status_t NoKernel(void*, const rxt_te_api_t*, rxt_te_builder_t*, const rxt_ir_api_t*, rxt_ir_builder_t*,
                      rxt_ir_expr_t) {
  return Refuse("no kernel");
}
const rxt_op_t* Op(FuzzInput& in, PluginMemory& memory) {
  size_t claimed = 0;
  auto v = Named<rxt_op_t>(in, memory, &claimed);
  static const char* const kValid[] = {"fuzz.op0", "fuzz.op1", "fuzz.op2", "nn.relu"};
  if (v.name != nullptr && in.Bool()) {
    v.name = kValid[in.Int(0, 3)];
  } else if (v.name != nullptr) {
    memory.strings.push_back(std::make_unique<std::string>(" " + std::string(v.name)));  // never an identifier
    v.name = memory.strings.back()->c_str();
  }
  v.num_inputs = in.Int(-1, 3);
  if (in.Int(0, 7) != 0 && v.num_inputs > 0) {
    auto* inputs = reinterpret_cast<const char**>(memory.Block(static_cast<size_t>(v.num_inputs) * sizeof(char*)));
    for (int i = 0; i < v.num_inputs; ++i) inputs[i] = in.Bool() ? "x" : Name(in, memory);
    v.inputs = inputs;
  }
  v.num_attrs = in.Int(-1, 3);
  if (in.Int(0, 7) != 0 && v.num_attrs > 0) {
    auto* attrs = reinterpret_cast<rxt_op_attr_t*>(memory.Block(static_cast<size_t>(v.num_attrs) * sizeof(rxt_op_attr_t)));
    for (int a = 0; a < v.num_attrs; ++a) {
      attrs[a].name = in.Bool() ? "alpha" : Name(in, memory);
      attrs[a].kind = static_cast<rxt_attr_kind_t>(in.Int(-1, 9));
      attrs[a].default_value = Name(in, memory);  // any bytes: text of the attribute syntax, or not
      attrs[a].doc = Name(in, memory);
    }
    v.attrs = attrs;
  }
  v.infer_struct_info = Maybe(in, &NoInference);
  v.legalize = Maybe(in, &NoKernel);
  return Sized(memory, v, claimed);
}

/// An array of |count| pointers to vtables made by |make| (some null).
template <typename VTable>
const VTable* const* List(FuzzInput& in, PluginMemory& memory, size_t count,
                          const VTable* (*make)(FuzzInput&, PluginMemory&)) {
  auto* list = reinterpret_cast<const VTable**>(memory.Block(count * sizeof(const VTable*)));
  for (size_t i = 0; i < count; ++i) list[i] = in.Int(0, 7) == 0 ? nullptr : make(in, memory);
  return list;
}

// ---- Versions 1 and 2: items.

const abi2::Backend* BackendV2(FuzzInput& in, PluginMemory& memory, const char* item_name) {
  if (in.Int(0, 3) == 0) return nullptr;
  abi2::Backend backend{};
  size_t claimed = StructSize(in, sizeof backend);
  backend.struct_size = claimed;
  backend.name = in.Bool() ? item_name : Name(in, memory);
  backend.load_kernel = Maybe(in, &RefuseKernelV2);
  backend.call_kernel = Maybe(in, &CallNothingV2);
  backend.free_kernel = Maybe(in, &FreeNothing);
  return Sized(memory, backend, claimed);
}

// |count| items in one array (the array's stride is sizeof(abi2::Item), whatever each item's
// struct_size says).
abi2::Item* ItemsV2(FuzzInput& in, PluginMemory& memory, size_t count, bool backends) {
  auto* items = reinterpret_cast<abi2::Item*>(memory.Block(count * sizeof(abi2::Item)));
  for (size_t i = 0; i < count; ++i) {
    abi2::Item& item = items[i];
    item.struct_size = StructSize(in, sizeof item);
    item.name = Name(in, memory);
    item.summary = Name(in, memory);
    if (backends) item.user_data = const_cast<abi2::Backend*>(BackendV2(in, memory, item.name));
  }
  return items;
}

// ---- The entry point.

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
    rxt_status_t status = nullptr;
    switch (in.Int(0, 13)) {
      case 0: status = api->register_optimizer(api->host, in.Int(0, 7) == 0 ? nullptr : Optimizer(in, memory)); break;
      case 1: status = api->register_loss(api->host, in.Int(0, 7) == 0 ? nullptr : Loss(in, memory)); break;
      case 2:
        status = api->register_gradient_rule(api->host, in.Int(0, 7) == 0 ? nullptr : GradientRule(in, memory));
        break;
      case 3: status = api->register_backend(api->host, in.Int(0, 7) == 0 ? nullptr : Backend(in, memory)); break;
      case 4: status = api->register_extern(api->host, in.Int(0, 7) == 0 ? nullptr : Extern(in, memory)); break;
      case 11: status = api->register_op(api->host, in.Int(0, 7) == 0 ? nullptr : Op(in, memory)); break;
      case 13:
        status = api->register_collective(api->host, in.Int(0, 7) == 0 ? nullptr : Collective(in, memory));
        break;
      case 5: api->log(api->host, static_cast<rxt_log_level_t>(in.Int(-1, 5)), Name(in, memory)); break;
      case 6: {
        // Version 2's extern registration, failing only (no name or no function).
        auto register_extern = reinterpret_cast<abi2::RegisterExternFn>(api->abi2_register_extern);
        register_extern(api->host, in.Bool() ? nullptr : "", nullptr, nullptr);
        break;
      }
      case 7:
      case 8:
      case 9:
      case 10:
      case 12: {
        int kind = in.Int(0, 3);
        const abi2::Item* item = in.Int(0, 7) == 0 ? nullptr : ItemsV2(in, memory, 1, kind == 3);
        rxt_abi2_fn_t slots[] = {api->abi2_register_optimizer, api->abi2_register_loss, api->abi2_register_gradient,
                                 api->abi2_register_backend};
        reinterpret_cast<abi2::RegisterItemFn>(slots[kind])(api->host, item);
        break;
      }
    }
    // A status of the host: its code and message are readable until it is freed.
    if (status != nullptr) {
      FUZZ_CHECK(api->status_code(status) != RXT_OK, "a failure with code RXT_OK");
      FUZZ_CHECK(api->status_message(status) != nullptr, "a failure without a message string");
    }
    api->status_free(status);
  }
}

const rxt_plugin_descriptor_t* DescriptorV3(FuzzInput& in, PluginMemory& memory, uint32_t version) {
  rxt_plugin_descriptor_t d{};
  size_t claimed = StructSize(in, sizeof d);
  d.struct_size = claimed;
  d.abi_version = version;
  d.name = Name(in, memory);
  d.version = Name(in, memory);
  d.summary = Name(in, memory);
  // A count without an array, now and then.
  auto list = [&](auto** array, size_t* count, auto make) {
    *count = static_cast<size_t>(in.Int(0, 3));
    if (in.Int(0, 15) == 0) return;
    if (*count == 0 && in.Bool()) return;
    *array = List(in, memory, *count, make);
  };
  list(&d.optimizers, &d.num_optimizers, &Optimizer);
  list(&d.losses, &d.num_losses, &Loss);
  list(&d.gradient_rules, &d.num_gradient_rules, &GradientRule);
  list(&d.backends, &d.num_backends, &Backend);
  if (in.Int(0, 7) == 0) list(&d.externs, &d.num_externs, &Extern);  // rarely: none of them registers
  list(&d.ops, &d.num_ops, &Op);
  list(&d.collectives, &d.num_collectives, &Collective);
  return Sized(memory, d, claimed);
}

const rxt_plugin_descriptor_t* DescriptorV2(FuzzInput& in, PluginMemory& memory, uint32_t version) {
  abi2::Descriptor d{};
  size_t claimed = StructSize(in, sizeof d);
  d.struct_size = claimed;
  d.abi_version = version;
  d.name = Name(in, memory);
  d.version = Name(in, memory);
  d.summary = Name(in, memory);
  const abi2::Item** lists[] = {&d.optimizers, &d.losses, &d.gradients, &d.backends};
  size_t* counts[] = {&d.num_optimizers, &d.num_losses, &d.num_gradients, &d.num_backends};
  for (int k = 0; k < 4; ++k) {
    *counts[k] = static_cast<size_t>(in.Int(0, 3));
    if (in.Int(0, 15) == 0) {
      *lists[k] = nullptr;  // a count without an array
    } else {
      *lists[k] = *counts[k] == 0 && in.Bool() ? nullptr : ItemsV2(in, memory, *counts[k], k == 3);
    }
  }
  return reinterpret_cast<const rxt_plugin_descriptor_t*>(Sized(memory, d, claimed));
}

const rxt_plugin_descriptor_t* Entry(uint32_t host_abi_version, const rxt_host_api_t* api) {
  Plan& plan = *g_plan;
  FuzzInput& in = *plan.in;
  PluginMemory& memory = *plan.memory;
  FUZZ_CHECK(host_abi_version == RXT_PLUGIN_ABI_VERSION, "the host offers ABI version " + std::to_string(host_abi_version));
  plan.api = api;
  g_status_create = api->status_create;
  CallHost(in, memory, api);
  switch (in.Int(0, 15)) {
    case 0: return nullptr;  // declines
    case 1: throw std::runtime_error("a plugin that throws");
    default: break;
  }
  switch (in.Int(0, 7)) {
    case 0: {
      // Any version the host does not speak (1 to 3 with this layout would be a plugin that lies
      // about its layout: the host reads what the version says, and cannot check pointers).
      auto version = static_cast<uint32_t>(in.Range(0, UINT32_MAX));
      if (version >= RXT_PLUGIN_ABI_MIN_VERSION && version <= RXT_PLUGIN_ABI_VERSION) version += RXT_PLUGIN_ABI_VERSION;
      return DescriptorV3(in, memory, version);
    }
    case 1: return DescriptorV2(in, memory, 1);
    case 2: return DescriptorV2(in, memory, 2);
    default: return DescriptorV3(in, memory, 3);
  }
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

// Every collective the plugin registered makes no communicator: an rxt::Error, nothing else.
void CheckCollectives(const rxt::PluginHost& host, const rxt::PluginInfo& info) {
  for (const std::string& name : info.items[static_cast<size_t>(rxt::PluginItemKind::kCollective)]) {
    rxt::PluginItem item = *host.Find(rxt::PluginItemKind::kCollective, name);
    try {
      rxt::Communicator::Create(*item.collective, item.keep_alive);
      FUZZ_CHECK(false, "a collective that refuses made a communicator");
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
  rxt_loss_t late{sizeof late, "late", nullptr, nullptr, &NoLoss};
  rxt::CStatusPtr refusal(plan.api->register_loss(plan.api->host, &late));
  FUZZ_CHECK(refusal != nullptr && refusal->code == RXT_FAILED_PRECONDITION,
             "an item was accepted after the entry point returned");
  CheckBackends(host, info);
  CheckCollectives(host, info);

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
