/* plugin.h: the plugin ABI of rxt (C99). A plugin is a shared library that links nothing of
 * rxt: it includes this header and exports one entry point, rxt_plugin_entry.
 *
 * Loading, in order (docs/plugins.md has the long form):
 *  1. The host opens the library and looks up `rxt_plugin_entry`.
 *  2. It calls rxt_plugin_entry(host_abi_version, host_api): |host_abi_version| is the highest
 *     plugin ABI version the host speaks; |host_api| is the host's table of functions.
 *  3. The plugin returns a descriptor whose abi_version is the version it speaks (at most
 *     |host_abi_version|), or NULL to decline (log why with host_api->log first).
 *  4. The host registers what the plugin provides: the items listed in the descriptor plus those
 *     the plugin registered through host_api->register_* during the entry call. Either every
 *     item is registered or, on any error (a name taken, a bad descriptor), none is and the
 *     library is closed.
 *
 * Lifetimes: the descriptor, the items and every string they point to must stay valid while the
 * library is loaded (static storage is the usual choice); the host copies the names. The host
 * keeps the library loaded while anything it provides is in use. |host_api| stays valid for as
 * long as the library is loaded, so a plugin may keep it (e.g. to log later).
 *
 * Minimal plugin:
 *
 *   #include <rxt/plugin.h>
 *   static const rxt_plugin_item_t kLosses[] = {
 *     {sizeof(rxt_plugin_item_t), "my_l1", "Mean absolute error.", NULL, NULL}};
 *   static const rxt_plugin_descriptor_t kPlugin = {
 *     sizeof(rxt_plugin_descriptor_t), RXT_PLUGIN_ABI_VERSION, "my_losses", "1.0.0",
 *     "Losses of my lab.", NULL, 0, kLosses, 1, NULL, 0, NULL, 0};
 *   RXT_PLUGIN_EXPORT const rxt_plugin_descriptor_t* rxt_plugin_entry(
 *       uint32_t host_abi_version, const rxt_host_api_t* host) {
 *     (void)host;
 *     return host_abi_version >= RXT_PLUGIN_ABI_VERSION ? &kPlugin : NULL;
 *   }
 */
#ifndef RXT_PLUGIN_H_
#define RXT_PLUGIN_H_

#include <stddef.h>
#include <stdint.h>

#include "rxt/compiled_kernel.h" /* rxt_kernel_runtime_t */
#include "rxt/ir_builder.h"      /* rxt_ir_api_t and the IR generators' callback types */
#include "rxt/rxt.h"             /* rxt_code_t, rxt_plugin_item_kind_t (declarations only: link nothing) */

#ifdef __cplusplus
extern "C" {
#endif

/* The plugin ABI version this header describes. Version 1: named items with an opaque callback;
 * backends describe their kernel functions with rxt_backend_t (below) through the item's
 * user_data. Version 2: the callbacks of optimizers, losses and gradient rules are typed IR
 * generators (rxt_optimizer_fn, rxt_loss_fn, rxt_gradient_rule_fn in rxt/ir_builder.h); a
 * version-1 plugin's items of those kinds are known by name only. */
#define RXT_PLUGIN_ABI_VERSION 2
/* The oldest plugin ABI version a host built from this header still accepts. */
#define RXT_PLUGIN_ABI_MIN_VERSION 1
/* The one symbol a plugin exports. */
#define RXT_PLUGIN_ENTRY_SYMBOL "rxt_plugin_entry"

typedef enum rxt_log_level_e {
  RXT_LOG_DEBUG = 0,
  RXT_LOG_INFO = 1,
  RXT_LOG_WARNING = 2,
  RXT_LOG_ERROR = 3
} rxt_log_level_t;

/* An opaque callback: the kind of the item defines its real signature (cast to it). */
typedef void (*rxt_plugin_fn_t)(void);

/* One thing a plugin provides: an optimizer, a loss, a gradient rule (named after its op) or a
 * backend. Names are unique per kind across every loaded plugin. */
typedef struct rxt_plugin_item_s {
  size_t struct_size;       /* sizeof(rxt_plugin_item_t) */
  const char* name;         /* required, non-empty */
  const char* summary;      /* one line; may be NULL */
  rxt_plugin_fn_t callback; /* may be NULL in ABI version 1 */
  void* user_data;          /* a backend: its rxt_backend_t (below); otherwise for later versions */
} rxt_plugin_item_t;

/* The host side of one loaded plugin; pass it back to every host function. */
typedef struct rxt_host_s rxt_host_t;

/* The host's functions. Check `struct_size` before using a member added after ABI version 1:
 * RXT_HOST_API_HAS(api, member). */
typedef struct rxt_host_api_s {
  size_t struct_size;
  uint32_t abi_version; /* the host's highest plugin ABI version */
  rxt_host_t* host;
  /* Logs a message attributed to the plugin. Any time while the library is loaded. */
  void (*log)(rxt_host_t* host, rxt_log_level_t level, const char* message);
  /* Register one item each. Only during rxt_plugin_entry (RXT_FAILED_PRECONDITION after it).
   * RXT_ALREADY_EXISTS if the name is taken (the whole load then fails), RXT_INVALID_ARGUMENT
   * for a bad item. The item is copied except for the callback and user data. */
  rxt_code_t (*register_optimizer)(rxt_host_t* host, const rxt_plugin_item_t* item);
  rxt_code_t (*register_loss)(rxt_host_t* host, const rxt_plugin_item_t* item);
  rxt_code_t (*register_gradient)(rxt_host_t* host, const rxt_plugin_item_t* item);
  rxt_code_t (*register_backend)(rxt_host_t* host, const rxt_plugin_item_t* item);
  /* --- added after ABI version 1 was first published: check RXT_HOST_API_HAS --- */
  /* Registers an external function that IR calls with call_extern (destination-passing style:
   * |args| holds |num_args| DLTensor*, inputs then outputs; a scalar argument is a 0-d int64 or
   * float64 tensor). It must not let a C++ exception escape; on failure it returns non-zero
   * after writing a NUL-terminated message into |error|. Only during rxt_plugin_entry, like the
   * items; the library then stays loaded for the life of the process. RXT_ALREADY_EXISTS if the name is
   * taken. */
  rxt_code_t (*register_extern)(rxt_host_t* host, const char* name,
                                int (*function)(void* const* args, int num_args, void* user_data,
                                                char* error, size_t error_size),
                                void* user_data);
  /* The process's services for compiled kernels (its thread pool, sized by RXT_NUM_THREADS):
   * valid while the library is loaded. */
  const rxt_kernel_runtime_t* kernel_runtime;
} rxt_host_api_t;

#define RXT_HOST_API_HAS(api, member) \
  ((api)->struct_size >= offsetof(rxt_host_api_t, member) + sizeof((api)->member))

/* What the plugin is and what it provides (items may also be registered by calls). */
typedef struct rxt_plugin_descriptor_s {
  size_t struct_size;   /* sizeof(rxt_plugin_descriptor_t) */
  uint32_t abi_version; /* the version the plugin speaks: RXT_PLUGIN_ABI_VERSION */
  const char* name;     /* required, unique among loaded plugins */
  const char* version;  /* the plugin's own version, e.g. "1.0.0"; may be NULL */
  const char* summary;  /* one line; may be NULL */
  const rxt_plugin_item_t* optimizers;
  size_t num_optimizers;
  const rxt_plugin_item_t* losses;
  size_t num_losses;
  const rxt_plugin_item_t* gradients;
  size_t num_gradients;
  const rxt_plugin_item_t* backends;
  size_t num_backends;
} rxt_plugin_descriptor_t;

/* One kernel a backend compiles ahead of time (rxt_backend_t.emit_library). */
typedef struct rxt_aot_kernel_s {
  const char* name;     /* the kernel's name, for messages */
  const uint8_t* bytes; /* the kernel in the portable kernel format (rxt/kernel_format.h) */
  size_t size;
  const char* symbol;   /* the C identifier to export it under: chosen by the host, unique */
} rxt_aot_kernel_t;

/* A backend's kernel functions. A backend item whose `user_data` is non-NULL points to one of
 * these (static storage, like the item); a backend item with NULL `user_data` is known by name
 * only and cannot run kernels. The host checks `struct_size` and that `name` equals the item's;
 * members after free_kernel were added later: a host checks `struct_size` before reading one
 * (RXT_BACKEND_HAS).
 *
 * Every callback is called with `state` and must not let a C++ exception escape. On failure it
 * writes a NUL-terminated message (without the backend's or kernel's name: the host adds them)
 * into `error` (`error_size` bytes, at least 1). Kernels may be called from several threads,
 * one call per handle at a time. */
typedef struct rxt_backend_s {
  size_t struct_size; /* sizeof(rxt_backend_t) */
  const char* name;   /* the backend item's name, e.g. "reference" */
  void* state;        /* handed back to every callback; may be NULL */
  /* Loads the kernel |kernel_name| from |size| bytes in the portable kernel format
   * (rxt/kernel_format.h). Returns an opaque handle, or NULL after writing |error|. */
  void* (*load_kernel)(void* state, const char* kernel_name, const uint8_t* bytes, size_t size,
                       char* error, size_t error_size);
  /* Runs a loaded kernel. |args| holds |num_args| pointers to DLTensor (dlpack/dlpack.h): the
   * kernel's parameters in order, outputs last, a scalar parameter as a 0-d int64 or float64
   * tensor. Returns RXT_OK, or another code after writing |error|. */
  rxt_code_t (*call_kernel)(void* state, void* kernel, void* const* args, int num_args, char* error,
                            size_t error_size);
  /* Frees a handle returned by load_kernel. */
  void (*free_kernel)(void* state, void* kernel);
  /* --- added after the first version: check RXT_BACKEND_HAS --- */
  /* Optional (NULL: the backend runs kernels only through load_kernel). Compiles |num_kernels|
   * kernels ahead of time into one shared library written to |output_path| (through a
   * temporary file renamed into place). The library links nothing of rxt and needs no compiler
   * at run time: it exports each kernel as an rxt_compiled_kernel_fn under its symbol, and
   * RXT_AOT_LIBRARY_INFO_SYMBOL (rxt/compiled_kernel.h). Returns RXT_OK, or another code after
   * writing |error|. */
  rxt_code_t (*emit_library)(void* state, const rxt_aot_kernel_t* kernels, size_t num_kernels,
                             const char* output_path, char* error, size_t error_size);
} rxt_backend_t;

#define RXT_BACKEND_HAS(backend, member) \
  ((backend)->struct_size >= offsetof(rxt_backend_t, member) + sizeof((backend)->member))

typedef const rxt_plugin_descriptor_t* (*rxt_plugin_entry_fn_t)(uint32_t host_abi_version,
                                                                const rxt_host_api_t* host_api);

#ifdef __cplusplus
#define RXT_PLUGIN_EXPORT extern "C" __attribute__((visibility("default")))
#else
#define RXT_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* Every plugin defines this (with RXT_PLUGIN_EXPORT); the host never does. */
RXT_PLUGIN_EXPORT const rxt_plugin_descriptor_t* rxt_plugin_entry(uint32_t host_abi_version,
                                                                  const rxt_host_api_t* host_api);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RXT_PLUGIN_H_ */
