// Internal to the plugin host: the plugin ABI of versions 1 and 2, frozen as it was published,
// for reading the plugins that still speak it. Version 3 (rxt/plugin.h) replaced its item list
// (named callbacks cast to their kind's type, errors as codes and message buffers) by typed
// vtables returning rxt_status_t; a host keeps loading the older plugins through these types
// and adapts their items (abi2_adapters.h). tests/plugins/fixtures/abi_v2/plugin_v2.h is the same
// ABI as a plugin saw it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "rxt/plugin.h"

namespace rxt::plugin_detail::abi2 {

/// The opaque callback of an item; its kind gives the real type (below).
using Fn = void (*)();

/// rxt_plugin_item_t of versions 1 and 2.
struct Item {
  size_t struct_size;
  const char* name;
  const char* summary;
  Fn callback;      // may be NULL in version 1
  void* user_data;  // a backend: its Backend
};

/// rxt_plugin_descriptor_t of versions 1 and 2 (the lists are arrays of items).
struct Descriptor {
  size_t struct_size;
  uint32_t abi_version;
  const char* name;
  const char* version;
  const char* summary;
  const Item* optimizers;
  size_t num_optimizers;
  const Item* losses;
  size_t num_losses;
  const Item* gradients;
  size_t num_gradients;
  const Item* backends;
  size_t num_backends;
};

/// rxt_backend_t of versions 1 and 2: failures write a message into |error|.
struct Backend {
  size_t struct_size;
  const char* name;
  void* state;
  void* (*load_kernel)(void* state, const char* kernel_name, const uint8_t* bytes, size_t size, char* error,
                       size_t error_size);
  rxt_code_t (*call_kernel)(void* state, void* kernel, void* const* args, int num_args, char* error,
                            size_t error_size);
  void (*free_kernel)(void* state, void* kernel);
  // Added after the first version: read only when struct_size covers it.
  rxt_code_t (*emit_library)(void* state, const rxt_aot_kernel_t* kernels, size_t num_kernels,
                             const char* output_path, char* error, size_t error_size);
};

/// The typed callbacks of version 2 (version 1's are untyped: known by name only).
using GradientRuleFn = rxt_code_t (*)(const rxt_ir_api_t* ir, rxt_ir_builder_t* b, rxt_ir_expr_t call,
                                      rxt_ir_expr_t output, rxt_ir_expr_t output_grad, rxt_ir_expr_t* input_grads);
using LossFn = rxt_code_t (*)(const rxt_ir_api_t* ir, rxt_ir_builder_t* b, const char* options,
                              rxt_ir_expr_t prediction, rxt_ir_expr_t* loss);
using OptimizerFn = rxt_code_t (*)(const rxt_ir_api_t* ir, rxt_ir_builder_t* b, const char* options,
                                   const rxt_ir_expr_t* params, const rxt_ir_expr_t* grads, int num_params,
                                   rxt_ir_expr_t* new_params);
/// An extern function: returns non-zero after writing a message into |error|.
using ExternFn = int (*)(void* const* args, int num_args, void* user_data, char* error, size_t error_size);

/// The host functions of versions 1 and 2, in the table's abi2_* slots.
using RegisterItemFn = rxt_code_t (*)(rxt_host_t* host, const Item* item);
using RegisterExternFn = rxt_code_t (*)(rxt_host_t* host, const char* name, ExternFn function, void* user_data);

// The layout published with version 2 (LP64). A change here breaks every plugin built then.
static_assert(sizeof(void*) == 8, "the layouts below are LP64's");
static_assert(sizeof(Item) == 40 && offsetof(Item, name) == 8 && offsetof(Item, summary) == 16 &&
              offsetof(Item, callback) == 24 && offsetof(Item, user_data) == 32);
static_assert(sizeof(Descriptor) == 104 && offsetof(Descriptor, abi_version) == 8 && offsetof(Descriptor, name) == 16 &&
              offsetof(Descriptor, version) == 24 && offsetof(Descriptor, summary) == 32 &&
              offsetof(Descriptor, optimizers) == 40 && offsetof(Descriptor, num_optimizers) == 48 &&
              offsetof(Descriptor, losses) == 56 && offsetof(Descriptor, num_losses) == 64 &&
              offsetof(Descriptor, gradients) == 72 && offsetof(Descriptor, num_gradients) == 80 &&
              offsetof(Descriptor, backends) == 88 && offsetof(Descriptor, num_backends) == 96);
static_assert(sizeof(Backend) == 56 && offsetof(Backend, name) == 8 && offsetof(Backend, state) == 16 &&
              offsetof(Backend, load_kernel) == 24 && offsetof(Backend, call_kernel) == 32 &&
              offsetof(Backend, free_kernel) == 40 && offsetof(Backend, emit_library) == 48);
// Version 3's descriptor starts as version 2's did: the host reads abi_version before knowing which.
static_assert(offsetof(rxt_plugin_descriptor_t, abi_version) == offsetof(Descriptor, abi_version));
// Version 3's host table keeps every member of version 2 where it was.
static_assert(offsetof(rxt_host_api_t, log) == 24 && offsetof(rxt_host_api_t, abi2_register_optimizer) == 32 &&
              offsetof(rxt_host_api_t, abi2_register_loss) == 40 &&
              offsetof(rxt_host_api_t, abi2_register_gradient) == 48 &&
              offsetof(rxt_host_api_t, abi2_register_backend) == 56 &&
              offsetof(rxt_host_api_t, abi2_register_extern) == 64 && offsetof(rxt_host_api_t, kernel_runtime) == 72);
// rxt_aot_kernel_t did not change.
static_assert(sizeof(rxt_aot_kernel_t) == 32 && offsetof(rxt_aot_kernel_t, symbol) == 24);

}  // namespace rxt::plugin_detail::abi2
