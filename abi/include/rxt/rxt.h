/* rxt.h: the stable C ABI of rxt (C99).
 *
 * Conventions (docs/abi.md has the long form):
 * - Every fallible function returns an rxt_status_t: NULL means success; otherwise the caller
 *   owns the status and frees it with rxt_status_free. Out-parameters are written only on
 *   success.
 * - Objects are opaque handles, reference counted: rxt_<object>_retain / _release, both
 *   NULL-tolerant. A function returning a handle through `**out` gives the caller one reference.
 * - Strings returned through `char** out` are owned by the caller and freed with rxt_string_free.
 *   `const char*` results are borrowed; each function says how long they stay valid.
 * - Option structs start with `size_t struct_size` (set it to sizeof of the struct you compiled
 *   against, or call the _init function); new fields are only ever appended.
 * - No C++ type and no exception crosses this boundary.
 */
#ifndef RXT_RXT_H_
#define RXT_RXT_H_

#include <dlpack/dlpack.h>
#include <stddef.h>
#include <stdint.h>

/* The library is built with hidden visibility; only what carries RXT_API is exported. */
#define RXT_API __attribute__((visibility("default")))

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Versions ------------------------------------------------------------------------------ */

#define RXT_VERSION_MAJOR 0
#define RXT_VERSION_MINOR 1
#define RXT_VERSION_PATCH 0
/* Bumped on every incompatible change of this header; compatible additions keep it. */
#define RXT_ABI_VERSION 1

/* "MAJOR.MINOR.PATCH" of the library actually loaded. Static storage: never free it. */
RXT_API const char* rxt_version(void);
/* RXT_ABI_VERSION of the library actually loaded; compare it with the one you compiled against. */
RXT_API uint32_t rxt_abi_version(void);

/* ---- Status -------------------------------------------------------------------------------- */

/* Canonical error codes; the same numbers as rxt::ErrorCode in the core. */
typedef enum rxt_code_e {
  RXT_OK = 0,
  RXT_CANCELLED = 1,
  RXT_UNKNOWN = 2,
  RXT_INVALID_ARGUMENT = 3,
  RXT_NOT_FOUND = 5,
  RXT_ALREADY_EXISTS = 6,
  RXT_FAILED_PRECONDITION = 9,
  RXT_OUT_OF_RANGE = 11,
  RXT_UNIMPLEMENTED = 12,
  RXT_INTERNAL = 13,
  RXT_DATA_LOSS = 15
} rxt_code_t;

/* NULL == OK. */
typedef struct rxt_status_s* rxt_status_t;

/* RXT_OK for NULL. */
RXT_API rxt_code_t rxt_status_code(rxt_status_t status);
/* "" for NULL; otherwise valid until rxt_status_free(status). */
RXT_API const char* rxt_status_message(rxt_status_t status);
/* NULL is a no-op. */
RXT_API void rxt_status_free(rxt_status_t status);
/* "invalid argument", "not found"...; "unknown code" for values outside the list. Static. */
RXT_API const char* rxt_code_name(rxt_code_t code);

/* ---- Strings ------------------------------------------------------------------------------- */

/* Frees a string returned through a `char**` out-parameter. NULL is a no-op. */
RXT_API void rxt_string_free(char* text);

/* ---- Modules ------------------------------------------------------------------------------- */

/* An IR module: functions, kernel functions and module attributes. */
typedef struct rxt_module_s rxt_module_t;

/* Parses the text form (.rxt). |text| need not be NUL-terminated; |file_name| (may be NULL)
 * names the text in diagnostics: a syntax error's message starts with "file:line:col: error:".
 * |*out_module| must be released by the caller with rxt_module_release. */
RXT_API rxt_status_t rxt_module_parse(const char* text, size_t len, const char* file_name,
                                      rxt_module_t** out_module);
/* The text form; free |*out_text| with rxt_string_free. */
RXT_API rxt_status_t rxt_module_print(const rxt_module_t* module, char** out_text);
/* Checks that the module is well formed; on failure the message lists every diagnostic. */
RXT_API rxt_status_t rxt_module_verify(const rxt_module_t* module);
/* Adds a reference; returns |module| (NULL stays NULL). */
RXT_API rxt_module_t* rxt_module_retain(rxt_module_t* module);
/* Drops a reference; the module is freed with the last one. NULL is a no-op. */
RXT_API void rxt_module_release(rxt_module_t* module);

/* ---- Module attributes (param_num, state_num, ...) ----------------------------------------- */

typedef enum rxt_attr_kind_e {
  RXT_ATTR_NONE = 0,
  RXT_ATTR_BOOL = 1,
  RXT_ATTR_INT = 2,
  RXT_ATTR_FLOAT = 3,
  RXT_ATTR_STRING = 4,
  RXT_ATTR_DTYPE = 5,
  RXT_ATTR_TENSOR = 6,
  RXT_ATTR_ARRAY = 7
} rxt_attr_kind_t;

/* Number of attributes, and the name of the |index|-th (in module order). */
RXT_API rxt_status_t rxt_module_attr_count(const rxt_module_t* module, size_t* out_count);
RXT_API rxt_status_t rxt_module_attr_name(const rxt_module_t* module, size_t index, char** out_name);
/* RXT_NOT_FOUND if absent. */
RXT_API rxt_status_t rxt_module_attr_kind(const rxt_module_t* module, const char* name,
                                          rxt_attr_kind_t* out_kind);
/* Typed getters: RXT_NOT_FOUND if absent, RXT_INVALID_ARGUMENT if the attribute holds another
 * kind (the message names both kinds). */
RXT_API rxt_status_t rxt_module_attr_get_int(const rxt_module_t* module, const char* name, int64_t* out_value);
RXT_API rxt_status_t rxt_module_attr_get_float(const rxt_module_t* module, const char* name, double* out_value);
/* Free |*out_value| with rxt_string_free. */
RXT_API rxt_status_t rxt_module_attr_get_string(const rxt_module_t* module, const char* name, char** out_value);
/* Setters add the attribute or replace it (whatever kind it held). They change the module seen
 * through every reference to it. */
RXT_API rxt_status_t rxt_module_attr_set_int(rxt_module_t* module, const char* name, int64_t value);
RXT_API rxt_status_t rxt_module_attr_set_float(rxt_module_t* module, const char* name, double value);
RXT_API rxt_status_t rxt_module_attr_set_string(rxt_module_t* module, const char* name, const char* value);

/* ---- Passes -------------------------------------------------------------------------------- */

typedef struct rxt_pass_options_s {
  size_t struct_size;          /* sizeof(rxt_pass_options_t) */
  int32_t opt_level;           /* default 2 */
  int32_t verify_each;         /* non-zero: check well-formedness after every pass (default 0) */
  const char* const* disabled; /* names of passes to skip (may be NULL) */
  size_t num_disabled;
} rxt_pass_options_t;

/* Fills |options| with the defaults and sets struct_size. */
RXT_API void rxt_pass_options_init(rxt_pass_options_t* options);

/* Runs the passes |names[0..count)| in order on a copy of |module|; |module| is unchanged.
 * |options| may be NULL (defaults). |*out_module| must be released by the caller. */
RXT_API rxt_status_t rxt_module_run_passes(const rxt_module_t* module, const char* const* names, size_t count,
                                           const rxt_pass_options_t* options, rxt_module_t** out_module);

/* ---- Listing ops and passes ---------------------------------------------------------------- */

/* Called once per item. |name| and |summary| are valid only during the call. Return 0 to go
 * on, non-zero to stop early (the listing function then still returns NULL). */
typedef int (*rxt_name_visitor_t)(void* user_data, const char* name, const char* summary);

/* Every registered op, sorted by name, with the first line of its description. */
RXT_API rxt_status_t rxt_ops_list(rxt_name_visitor_t visit, void* user_data);
/* Every pass that rxt_module_run_passes accepts, with its one-line summary. */
RXT_API rxt_status_t rxt_passes_list(rxt_name_visitor_t visit, void* user_data);

/* ---- Plugins (see rxt/plugin.h for writing one) -------------------------------------------- */

/* What plugins provide. */
typedef enum rxt_plugin_item_kind_e {
  RXT_PLUGIN_OPTIMIZER = 0,
  RXT_PLUGIN_LOSS = 1,
  RXT_PLUGIN_GRADIENT = 2, /* named after the op whose gradient rule it is */
  RXT_PLUGIN_BACKEND = 3
} rxt_plugin_item_kind_t;

typedef struct rxt_plugin_info_s {
  size_t struct_size;
  const char* name;
  const char* version;
  const char* path;     /* the file it was loaded from */
  uint32_t abi_version; /* the plugin ABI version it speaks */
  size_t num_optimizers;
  size_t num_losses;
  size_t num_gradients;
  size_t num_backends;
} rxt_plugin_info_t;

/* |info| and its strings are valid only during the call; return non-zero to stop early. */
typedef int (*rxt_plugin_visitor_t)(void* user_data, const rxt_plugin_info_t* info);

/* Loads the plugin library at |path| into the process-wide plugin host. Loading a file that is
 * already loaded is a no-op. On any error (missing file, not a shared library, no entry point,
 * unsupported ABI version, a name already registered, the plugin declining) nothing of it stays
 * registered, and the message names the file and the problem. */
RXT_API rxt_status_t rxt_plugin_load(const char* path);
/* Loads every plugin found on the search path: each directory of the environment variable
 * RXT_PLUGIN_PATH (colon-separated), then the installation's plugin directory. Good plugins stay
 * loaded even if others fail; the status (first failure's code) lists every failure. */
RXT_API rxt_status_t rxt_plugins_load_search_path(void);
/* Every loaded plugin, in load order. */
RXT_API rxt_status_t rxt_plugins_list(rxt_plugin_visitor_t visit, void* user_data);
/* Every registered item of |kind| (name, summary), sorted by name. */
RXT_API rxt_status_t rxt_plugin_items_list(rxt_plugin_item_kind_t kind, rxt_name_visitor_t visit,
                                           void* user_data);

/* ---- Executables --------------------------------------------------------------------------- */

/* VM bytecode of a module's functions, with their kernels; built for one backend. */
typedef struct rxt_executable_s rxt_executable_t;

/* Compiles every function of |module| for the backend |backend| (NULL: "reference"), running
 * LegalizeOps first so that remaining op calls become kernels. |module| is unchanged.
 * |*out_executable| must be released by the caller. */
RXT_API rxt_status_t rxt_executable_build(const rxt_module_t* module, const char* backend,
                                          rxt_executable_t** out_executable);
/* Writes |executable| to |path| (.rxtx). */
RXT_API rxt_status_t rxt_executable_save(const rxt_executable_t* executable, const char* path);
/* Reads an executable; RXT_DATA_LOSS naming the file and the problem for a corrupt one,
 * RXT_NOT_FOUND (or the I/O error) for a missing one. */
RXT_API rxt_status_t rxt_executable_load(const char* path, rxt_executable_t** out_executable);
/* The backend it was built for ("" = any). Valid while |executable| lives. */
RXT_API const char* rxt_executable_backend(const rxt_executable_t* executable);
RXT_API rxt_executable_t* rxt_executable_retain(rxt_executable_t* executable);
RXT_API void rxt_executable_release(rxt_executable_t* executable);

/* ---- External functions (called by `call_extern` in the IR) -------------------------------- */

/* Destination-passing style: |args| are the inputs then the (allocated) outputs, CPU tensors.
 * Return 0 on success; any other value fails the call with a status naming the function. */
typedef int (*rxt_extern_callback_t)(DLTensor** args, int num_args, void* user_data);

/* Registers |name| in the process-wide registry; a VM resolves its extern functions when it is
 * created, so register them before rxt_vm_create. RXT_ALREADY_EXISTS unless |replace| is
 * non-zero. |user_data| must stay valid as long as the function can be called. */
RXT_API rxt_status_t rxt_extern_register(const char* name, rxt_extern_callback_t callback, void* user_data,
                                         int replace);
/* RXT_NOT_FOUND if |name| is not registered. VMs created before keep their copy. */
RXT_API rxt_status_t rxt_extern_remove(const char* name);

/* ---- Virtual machine ----------------------------------------------------------------------- */

typedef struct rxt_vm_s rxt_vm_t;

/* A VM running |executable| with the kernels of the backend |backend| (NULL: the executable's
 * backend, or "reference" if it has none). The backend comes from a loaded plugin
 * (rxt_plugin_load); if none provides it, the plugin search path is loaded first
 * (rxt_plugins_load_search_path). RXT_NOT_FOUND for an unknown backend or an extern function
 * that is not registered; RXT_FAILED_PRECONDITION for an executable built for another backend. */
RXT_API rxt_status_t rxt_vm_create(const rxt_executable_t* executable, const char* backend, rxt_vm_t** out_vm);
RXT_API rxt_vm_t* rxt_vm_retain(rxt_vm_t* vm);
RXT_API void rxt_vm_release(rxt_vm_t* vm);

/* Calls |function| with |num_inputs| CPU tensors (borrowed: copied, never deleted). The results
 * go to |outputs[0..*out_num_outputs)|: one tensor, or one per field of a returned tuple
 * (nested tuples flattened in order). The caller owns each output and calls its deleter.
 * If |capacity| is too small nothing is returned: RXT_OUT_OF_RANGE, and *out_num_outputs (if not
 * NULL) says how many are needed. Errors (RXT_INVALID_ARGUMENT) name the function, the argument
 * and what was expected vs given: wrong arity, dtype, shape or device. RXT_NOT_FOUND for an
 * unknown function. Not thread-safe: one call at a time per VM. */
RXT_API rxt_status_t rxt_vm_invoke(rxt_vm_t* vm, const char* function, DLManagedTensor* const* inputs,
                                   size_t num_inputs, DLManagedTensor** outputs, size_t capacity,
                                   size_t* out_num_outputs);
/* Starts (non-zero; resets the profile) or stops collecting a profile of kernels and externs. */
RXT_API rxt_status_t rxt_vm_set_profiling(rxt_vm_t* vm, int on);
/* The profile as a text table; free |*out_text| with rxt_string_free. */
RXT_API rxt_status_t rxt_vm_profile(const rxt_vm_t* vm, char** out_text);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RXT_RXT_H_ */
