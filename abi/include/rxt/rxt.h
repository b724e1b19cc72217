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
 *   against, or call the _init function); new fields are only ever appended. A field this
 *   library does not know (past its sizeof) must be zero, else RXT_UNIMPLEMENTED.
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
/* Bumped on every incompatible change of this header; compatible additions keep it. Version 2:
 * extern functions return an rxt_status_t (rxt_extern_fn_t), not an int. */
#define RXT_ABI_VERSION 2

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
  RXT_RESOURCE_EXHAUSTED = 8,
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
/* A new status for a function of yours that rxt calls (an extern function) to return: |code|
 * and a copy of |message| (NULL: ""). NULL for RXT_OK; a code outside the list becomes
 * RXT_UNKNOWN. Never fails (without memory: a static "out of memory" status). */
RXT_API rxt_status_t rxt_status_create(rxt_code_t code, const char* message);
/* "invalid argument", "not found"...; "unknown code" for values outside the list. Static. */
RXT_API const char* rxt_code_name(rxt_code_t code);

/* ---- Limits -------------------------------------------------------------------------------- */

/* The memory limit: the largest single tensor or arena rxt allocates on behalf of a file or a
 * program (an executable's memory plan, a tensor whose shape comes from a file); a request over
 * it fails with RXT_RESOURCE_EXHAUSTED naming what asked and the size, before any memory is
 * taken. |bytes| > 0 sets it; 0 restores the default: RXT_MAX_MEMORY if set ("512M", "4G"),
 * else half the machine's physical memory. Process-wide, like the CLI's --max-memory. */
RXT_API rxt_status_t rxt_set_memory_limit(int64_t bytes);
/* The limit in effect, in bytes. */
RXT_API int64_t rxt_memory_limit(void);

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

/* The parameters of function |function| of |module|, in order: |visit| gets each one's name
 * ("x", "conv1.weight") and struct info in the text format ("Tensor((n, 784), float32)"); a
 * non-zero return stops the walk. RXT_NOT_FOUND if the module has no such function. (What a
 * backbone's inputs, parameters and states are called: param_num and state_num say which.) */
RXT_API rxt_status_t rxt_module_function_params(const rxt_module_t* module, const char* function,
                                                int (*visit)(void* user_data, const char* name,
                                                             const char* struct_info),
                                                void* user_data);
/* How many results function |function| returns: its tuple's fields, or 1 for anything else.
 * RXT_NOT_FOUND if the module has no such function. */
RXT_API rxt_status_t rxt_module_function_num_results(const rxt_module_t* module, const char* function,
                                                     size_t* out_count);

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
  /* Pass options by name, num_config pairs: config_keys[i] "<PassName>.<option>" (e.g.
   * "Gradient.require_grads"), config_values[i] its value in the grammar of `--passes`
   * ("[w1, b1]", "main", "0.5"; docs/cli.md). The same as options in parentheses after a name;
   * an option given both ways is RXT_INVALID_ARGUMENT. */
  const char* const* config_keys;
  const char* const* config_values;
  size_t num_config;
} rxt_pass_options_t;

/* Fills |options| with the defaults and sets struct_size. */
RXT_API void rxt_pass_options_init(rxt_pass_options_t* options);

/* Runs the passes |names[0..count)| in order on a copy of |module|; |module| is unchanged.
 * A name may carry the pass's options and several passes, as `rxt show --passes` takes them
 * (docs/cli.md): "Gradient(func_name=main, require_grads=[w1, b1]), SimplifyTransposes"; an
 * unknown option is RXT_INVALID_ARGUMENT naming the pass's options. |options| may be NULL
 * (defaults). |*out_module| must be released by the caller. */
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

/* ---- Contexts ------------------------------------------------------------------------------ */

/* A context: the plugins, kernel threads, log and allocator that the executables, VMs and
 * trainers made in it use (ONNX Runtime's environment, IREE's instance). Every call without a
 * context (rxt_plugin_load, rxt_vm_create, options whose context is NULL) uses the default
 * context: the process's plugins, RXT_NUM_THREADS threads (default: every core), warnings to
 * stderr, the heap. Contexts with different threads and plugins work side by side, each from
 * its own threads; what they share is the op registry (an op a plugin defines is defined for
 * all) and the extern functions registered with rxt_extern_register, which a context's own
 * plugins' extern functions shadow. A context is thread-safe; its VMs and trainers are not.
 * VMs and trainers keep their context alive. */
typedef struct rxt_context_s rxt_context_t;

typedef enum rxt_log_level_e {
  RXT_LOG_DEBUG = 0,
  RXT_LOG_INFO = 1,
  RXT_LOG_WARNING = 2,
  RXT_LOG_ERROR = 3
} rxt_log_level_t;

/* A log message: |source| is the plugin's name, or "rxt" for what a build decided (a default
 * kernel library that is not loaded, a plugin on the search path that failed to load, the
 * reference fallback). Strings are valid during the call only. Called from any thread that
 * uses the context; it must not call back into the context. */
typedef void (*rxt_log_fn_t)(void* user_data, rxt_log_level_t level, const char* source, const char* message);

/* Allocator hooks: where the tensors and arenas that the context's VMs and trainers allocate
 * while running a call come from. |allocate| returns |size| bytes aligned to |alignment| (a
 * power of two, at least 64) or NULL when out of memory; |deallocate| gets back the same pointer,
 * size and alignment, possibly from another thread and after the context is released (a tensor
 * may outlive it): |allocator_user_data| must stay valid until the last one comes back. */
typedef void* (*rxt_allocate_fn_t)(void* user_data, size_t size, size_t alignment);
typedef void (*rxt_deallocate_fn_t)(void* user_data, void* pointer, size_t size, size_t alignment);

typedef struct rxt_context_options_s {
  size_t struct_size;                /* sizeof(rxt_context_options_t) */
  int32_t num_threads;               /* kernel threads, the caller's included; 0 (default): the
                                        process pool's (RXT_NUM_THREADS or every core) */
  int32_t search_path;               /* non-zero (default): load the plugin search path when a
                                        build needs something no loaded plugin provides */
  const char* const* plugins;        /* plugin files loaded at creation (may be NULL) */
  size_t num_plugins;
  rxt_log_fn_t log;                  /* NULL: plugins' warnings and errors to stderr */
  void* log_user_data;
  rxt_allocate_fn_t allocate;        /* NULL (both): the heap; give both or neither */
  rxt_deallocate_fn_t deallocate;
  void* allocator_user_data;
} rxt_context_options_t;

/* Fills |options| with the defaults and sets struct_size. */
RXT_API void rxt_context_options_init(rxt_context_options_t* options);
/* A new context (|options| NULL: the defaults). Fails, creating nothing, if a plugin does not
 * load (the message names the file), with RXT_INVALID_ARGUMENT for a negative num_threads or
 * one allocator hook without the other, RXT_UNIMPLEMENTED for a field this library does not
 * know. |*out_context| must be released. */
RXT_API rxt_status_t rxt_context_create(const rxt_context_options_t* options, rxt_context_t** out_context);
/* The default context, borrowed: never released, valid until the process exits. */
RXT_API rxt_context_t* rxt_context_default(void);
RXT_API rxt_context_t* rxt_context_retain(rxt_context_t* context);
RXT_API void rxt_context_release(rxt_context_t* context);
/* Loads the plugin at |path| into |context| (as rxt_plugin_load does into the default one). */
RXT_API rxt_status_t rxt_context_load_plugin(rxt_context_t* context, const char* path);
/* How many threads the context's kernels use. */
RXT_API rxt_status_t rxt_context_num_threads(const rxt_context_t* context, int32_t* out_num_threads);
/* Every plugin loaded into |context|, in load order (rxt_plugins_list for the default one). */
RXT_API rxt_status_t rxt_context_plugins_list(const rxt_context_t* context, rxt_plugin_visitor_t visit,
                                              void* user_data);

/* ---- Other formats: importer and exporter plugins (docs/plugins.md) ----------------------- */

/* Reads |path| with the importer plugin that reads its extension (".onnx": the onnx importer of
 * importers/onnx), passing |options| (NULL: none; "training=false, freeze=fc.*" for onnx), as
 * `rxt import` does: the plugin search path is loaded when no loaded importer reads it. The
 * values the importer read (a backbone's parameters and states, by name) are written to
 * |values_path| as safetensors, atomically (NULL: not written). |context| (NULL: the default)
 * gives the plugins. Errors name the file: RXT_NOT_FOUND when no importer reads it, the
 * importer's own (RXT_INVALID_ARGUMENT naming the node for an unsupported op). */
RXT_API rxt_status_t rxt_module_import(rxt_context_t* context, const char* path, const char* options,
                                       const char* values_path, rxt_module_t** out_module);
/* Writes function |function| of |module| (NULL: @backbone, at inference, when the module has one,
 * else its only function) to |path| with the exporter plugin that writes its extension, as `rxt
 * export` does. The parameters take their values from |values_path| (safetensors, by name: what
 * rxt_module_import wrote, or a trainer checkpoint, whose "param/" and "state/" entries are
 * used; NULL: none, which a backbone refuses); |options| (NULL: none) go to the exporter. The
 * file is written atomically: a refused export leaves an existing file as it was. */
RXT_API rxt_status_t rxt_module_export(rxt_context_t* context, const rxt_module_t* module, const char* function,
                                       const char* values_path, const char* path, const char* options);

/* ---- Training transforms, step by step (the seed's low-level API) --------------------------- */

/* Losses, optimizers and gradient rules come from the plugins of |context| (NULL: the default
 * context). Each returns a new module in |*out_module| (released by the caller); |module| is
 * unchanged. Option strings use the attribute syntax ("reduction=\"sum\"", "lr=0.1,
 * momentum=0.9"); NULL is "". An unknown loss or optimizer is RXT_NOT_FOUND listing the loaded
 * ones. */

/* AppendLoss: adds @|new_function| (NULL: "<function>_loss"): the backbone |function| followed
 * by the loss |loss| (the seed's append_loss(Backbone["predict"], CrossEntropyLoss(...))). The
 * first |num_backbone_outputs| results of |function| feed the loss, the rest are states. */
RXT_API rxt_status_t rxt_module_append_loss(const rxt_module_t* module, const char* function, const char* loss,
                                            const char* loss_options, int32_t num_backbone_outputs,
                                            const char* new_function, rxt_context_t* context,
                                            rxt_module_t** out_module);

/* Gradient: adds @<function>_adjoint, returning the result of |function| (field |target_index|
 * of a tuple is the loss) and the gradients of the parameters named |require_grads| in that
 * order (NULL and 0: every float tensor parameter). */
RXT_API rxt_status_t rxt_module_gradient(const rxt_module_t* module, const char* function,
                                         const char* const* require_grads, size_t num_require_grads,
                                         int32_t target_index, rxt_context_t* context, rxt_module_t** out_module);

/* The optimizer |optimizer| for the parameters of |function| named |params| (the seed's
 * SGD(0.1).init(params)): adds its update function as @|new_function|
 *   (params: Tuple(P...), grads: Tuple(P...), states: Tuple(S...)) -> Tuple(Tuple(P...), Tuple(S...))
 * and gives its initial states (the seed's opt.state): |out_states[0..*out_num_states)|, owned
 * by the caller (call each deleter). If |capacity| is too small nothing is returned: the status
 * is RXT_OUT_OF_RANGE and |*out_num_states| says how many are needed. */
RXT_API rxt_status_t rxt_module_add_optimizer(const rxt_module_t* module, const char* optimizer, const char* options,
                                              const char* function, const char* const* params, size_t num_params,
                                              const char* new_function, rxt_context_t* context,
                                              rxt_module_t** out_module, DLManagedTensor** out_states,
                                              size_t capacity, size_t* out_num_states);

/* SetupTrainer: the trainer module of a backbone module (@backbone, param_num, state_num), as
 * rxt_trainer_create builds before compiling; |legalize| non-zero runs LegalizeOps at the end. */
RXT_API rxt_status_t rxt_module_setup_trainer(const rxt_module_t* module, const char* loss, const char* loss_options,
                                              const char* optimizer, const char* optimizer_options, int32_t legalize,
                                              rxt_context_t* context, rxt_module_t** out_module);

/* BindParams: the parameters of |function| named |names[0..count)| become constants holding
 * copies of |values| (each must match its parameter's dtype and shape). */
RXT_API rxt_status_t rxt_module_bind_params(const rxt_module_t* module, const char* function, const char* const* names,
                                            DLManagedTensor* const* values, size_t count, rxt_module_t** out_module);

/* ---- Building functions (rxt/ir_builder.h): importers written in other languages ---------- */

/* A function under construction, for programs that build IR rather than print text (Python's
 * torch.fx importer, rxt.frontend.from_fx): declare its parameters with the table's param()
 * (struct info in the text format, symbolic dims by name: "Tensor((n, 784), float32)"), build its
 * body, one dataflow block, with op() and the table's other building functions, then finish it
 * into a module. The table (rxt_ir_api) is the one plugins' generators use; its handles are valid
 * until the builder is freed. A building call that fails returns NULL and records the error in
 * the builder (the table's error() reads it; finish returns it). */
typedef struct rxt_function_builder_s rxt_function_builder_t;
struct rxt_ir_api_s;
struct rxt_ir_builder_s;
struct rxt_ir_expr_s;
/* The IR table (rxt/ir_builder.h), static: never freed. */
RXT_API const struct rxt_ir_api_s* rxt_ir_api(void);
RXT_API rxt_status_t rxt_function_builder_create(rxt_function_builder_t** out_builder);
/* What the table's functions take as their builder. */
RXT_API struct rxt_ir_builder_s* rxt_function_builder_ir(rxt_function_builder_t* builder);
/* A tensor constant holding a copy of |value| (CPU memory, any dtype rxt has, compact or not). */
RXT_API rxt_status_t rxt_function_builder_constant(rxt_function_builder_t* builder, const DLTensor* value,
                                                   struct rxt_ir_expr_s** out_expr);
/* Ends the function and returns a new module holding it as |name|: its parameters are the
 * param() declarations in order, it returns |results| (one: itself; several: a tuple). Fails
 * with the builder's first error when a building call failed, or when a result is not an
 * expression of this builder. A builder finishes once. */
RXT_API rxt_status_t rxt_function_builder_finish(rxt_function_builder_t* builder, const char* name,
                                                 struct rxt_ir_expr_s* const* results, size_t num_results,
                                                 rxt_module_t** out_module);
RXT_API void rxt_function_builder_free(rxt_function_builder_t* builder);

/* ---- Executables --------------------------------------------------------------------------- */

/* VM bytecode of a module's functions, with their kernels; built for one backend. */
typedef struct rxt_executable_s rxt_executable_t;

/* Compiles every function of |module| for the backend |backend| (NULL: "cpu" if a loaded plugin
 * provides it, else "reference", as everywhere: docs/abi.md "Build sessions"), running
 * LegalizeOps first so that remaining op calls become kernels, with generated kernels only (no
 * kernel library; rxt_executable_build_with_options chooses more). |module| is unchanged.
 * |*out_executable| must be released by the caller. */
RXT_API rxt_status_t rxt_executable_build(const rxt_module_t* module, const char* backend,
                                          rxt_executable_t** out_executable);
/* How rxt_executable_build_with_options builds (the options of `rxt build`). Fill with
 * rxt_build_options_init, then change fields; fields after struct_size that this library does not
 * know must be zero. */
typedef struct rxt_build_options_s {
  size_t struct_size;       /* sizeof(rxt_build_options_t) */
  const char* backend;      /* NULL: "cpu" if a loaded plugin provides it (the plugin search path is
                               loaded first when no backend is loaded), else "reference" */
  int32_t opt_level;        /* 0: legalize only; 1 and above (default 2): fusion, memory planning */
  const char* libraries;    /* kernel libraries replacing generated GEMM/convolution kernels, comma-
                               separated ("dnnl"), or "none"; NULL: the backend's defaults whose
                               plugin is loaded (cpu: dnnl) */
  const char* emit_library; /* NULL, or a path: also compile the kernels ahead of time into this
                               shared library, which the executable names (backend "cpu") */
  rxt_context_t* context;   /* whose plugins build it; NULL: the default context */
} rxt_build_options_t;

/* Fills |options| with the defaults and sets struct_size. */
RXT_API void rxt_build_options_init(rxt_build_options_t* options);
/* Like rxt_executable_build, with |options| (NULL: the defaults). RXT_INVALID_ARGUMENT for a bad
 * opt_level, struct_size or library list; with emit_library: RXT_NOT_FOUND when no plugin
 * provides the backend, RXT_FAILED_PRECONDITION when it cannot compile ahead of time. */
RXT_API rxt_status_t rxt_executable_build_with_options(const rxt_module_t* module, const rxt_build_options_t* options,
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

/* An external function; the same type registers one from a program (below) and from a plugin
 * (rxt/plugin.h). Destination-passing style: |args| are the |num_args| inputs, then the
 * (allocated) outputs, CPU tensors; a scalar argument is a 0-d int64 or float64 tensor. Returns
 * NULL on success, or a status made with rxt_status_create (a plugin: its host's status_create)
 * that the caller frees; the VM reports it with its code, naming the function. It must not let a
 * C++ exception escape. */
typedef rxt_status_t (*rxt_extern_fn_t)(void* user_data, DLTensor* const* args, int num_args);

/* Registers |name| in the process-wide registry; a VM resolves its extern functions when it is
 * created, so register them before rxt_vm_create. RXT_ALREADY_EXISTS unless |replace| is
 * non-zero. |user_data| must stay valid as long as the function can be called. */
RXT_API rxt_status_t rxt_extern_register(const char* name, rxt_extern_fn_t function, void* user_data,
                                         int replace);
/* RXT_NOT_FOUND if |name| is not registered. VMs created before keep their copy. */
RXT_API rxt_status_t rxt_extern_remove(const char* name);

/* ---- Virtual machine ----------------------------------------------------------------------- */

typedef struct rxt_vm_s rxt_vm_t;

/* A VM running |executable| with the kernels of the backend |backend| (NULL: the executable's
 * backend, or "reference" if it has none). The backend comes from a loaded plugin
 * (rxt_plugin_load); if none provides it, the plugin search path is loaded first
 * (rxt_plugins_load_search_path). An executable built with a kernel library (rxt build
 * --emit-library) runs its kernels from that library, without the backend's plugin, unless
 * another backend is named. RXT_NOT_FOUND for an unknown backend, a missing kernel library or an
 * extern function that is not registered; RXT_FAILED_PRECONDITION for an executable built for
 * another backend. */
RXT_API rxt_status_t rxt_vm_create(const rxt_executable_t* executable, const char* backend, rxt_vm_t** out_vm);
/* rxt_vm_create in |context|: its plugins' backends and extern functions, its threads and
 * allocator. The VM keeps the context alive. */
RXT_API rxt_status_t rxt_vm_create_in_context(rxt_context_t* context, const rxt_executable_t* executable,
                                              const char* backend, rxt_vm_t** out_vm);
RXT_API rxt_vm_t* rxt_vm_retain(rxt_vm_t* vm);
RXT_API void rxt_vm_release(rxt_vm_t* vm);

/* Calls |function| with |num_inputs| CPU tensors (borrowed: never deleted nor written; read in
 * place when compact row-major and 64-byte aligned, else copied first); a parameter of tuple
 * type takes as many inputs as its fields (nested tuples flattened in order: the seed's
 * optimizer function takes Tuple(params), Tuple(grads), Tuple(states)). The results
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

/* ---- Trainer ------------------------------------------------------------------------------ */

/* A compiled training step with its parameters, model states and optimizer state kept resident
 * (the seed's relax.training.Trainer; docs/training.md, "Trainer"). One update is one VM call
 * running forward pass, loss, gradients and the optimizer's update. Not thread-safe: one call at
 * a time per trainer. */
typedef struct rxt_trainer_s rxt_trainer_t;

typedef struct rxt_trainer_options_s {
  size_t struct_size;            /* sizeof(rxt_trainer_options_t) */
  const char* backend;           /* the backend to build and run on; NULL: "cpu" if a loaded plugin
                                    provides it, else "reference" */
  /* For a backbone module (a function @backbone, attributes param_num and state_num): the loss
   * and the optimizer, by name, with options in the attribute syntax. A trainer module (the
   * result of SetupTrainer, with @train_step) ignores them. */
  const char* loss;              /* e.g. "cross_entropy" */
  const char* loss_options;      /* e.g. "reduction=\"sum\""; NULL: none */
  const char* optimizer;         /* e.g. "sgd" */
  const char* optimizer_options; /* e.g. "lr=0.01, weight_decay=0.01"; NULL: none */
  int32_t opt_level;             /* default 2 */
  /* Comma-separated kernel libraries whose functions may replace generated kernels ("dnnl"),
   * "none", or NULL for the backend's default (cpu: dnnl). */
  const char* libraries;
  /* Whose plugins build it and whose threads, allocator and log it runs with; NULL: the
   * default context. The trainer keeps it alive. */
  rxt_context_t* context;
  /* Data-parallel training (docs/distributed.md): nonzero combines the gradients over the ranks
   * of the trainer's communicator (rxt_trainer_set_comm) before each optimizer step, in
   * allreduce calls of at most |bucket_bytes| (0: 25 MiB). One process trains as without it. */
  int32_t data_parallel;
  int64_t bucket_bytes;
  /* Nonzero adds gradient accumulation (rxt_trainer_accumulate, rxt_trainer_apply_accumulated). */
  int32_t accumulation;
} rxt_trainer_options_t;

/* Fills |options| with the defaults and sets struct_size. */
RXT_API void rxt_trainer_options_init(rxt_trainer_options_t* options);

/* Builds |module| (a backbone module with options->loss and options->optimizer, or a trainer
 * module) for options->backend and creates a trainer. Parameters and states of static shape
 * start at zero. Losses, optimizers, gradient rules and the backend come from loaded plugins; if
 * one is missing, the plugin search path is loaded first. |options| may be NULL only for a
 * trainer module. RXT_INVALID_ARGUMENT for an invalid backbone (the message starts
 * "SetupTrainer: "), RXT_NOT_FOUND for an unknown loss, optimizer or backend,
 * RXT_UNIMPLEMENTED for ops without a gradient rule or for |options| setting a field this library
 * does not know. |*out_trainer| must be released. */
RXT_API rxt_status_t rxt_trainer_create(const rxt_module_t* module, const rxt_trainer_options_t* options,
                                        rxt_trainer_t** out_trainer);
RXT_API rxt_trainer_t* rxt_trainer_retain(rxt_trainer_t* trainer);
RXT_API void rxt_trainer_release(rxt_trainer_t* trainer);

/* The tensors a trainer has, by kind. */
typedef enum rxt_trainer_tensors_e {
  RXT_TRAINER_INPUTS = 0,         /* what predict/update/evaluate take first */
  RXT_TRAINER_TARGETS = 1,        /* what update/evaluate take after the inputs */
  RXT_TRAINER_PARAMS = 2,         /* trained parameters, named as in @backbone */
  RXT_TRAINER_STATES = 3,         /* model states (e.g. batch-norm running statistics) */
  RXT_TRAINER_OPTIMIZER_STATE = 4 /* "lr", "weight_decay", "step", per-parameter buffers... */
} rxt_trainer_tensors_t;

/* How many tensors of |kind| there are (predict's outputs: rxt_trainer_num_outputs). */
RXT_API rxt_status_t rxt_trainer_count(const rxt_trainer_t* trainer, rxt_trainer_tensors_t kind, size_t* out_count);
/* The name of tensor |index| of |kind|; free |*out_name| with rxt_string_free. */
RXT_API rxt_status_t rxt_trainer_name(const rxt_trainer_t* trainer, rxt_trainer_tensors_t kind, size_t index,
                                      char** out_name);
/* The index of the tensor of |kind| called |name|; RXT_NOT_FOUND listing the names. */
RXT_API rxt_status_t rxt_trainer_find(const rxt_trainer_t* trainer, rxt_trainer_tensors_t kind, const char* name,
                                      size_t* out_index);
/* How many tensors rxt_trainer_predict returns. */
RXT_API rxt_status_t rxt_trainer_num_outputs(const rxt_trainer_t* trainer, size_t* out_count);

/* A copy of parameter, state or optimizer-state tensor |index| (a snapshot: later updates do
 * not change it). The caller owns |*out_tensor| and calls its deleter. */
RXT_API rxt_status_t rxt_trainer_get(const rxt_trainer_t* trainer, rxt_trainer_tensors_t kind, size_t index,
                                     DLManagedTensor** out_tensor);
/* Sets parameter or state |index| from a borrowed CPU tensor (copied). RXT_INVALID_ARGUMENT
 * naming it and both types for a wrong dtype or shape; RXT_OUT_OF_RANGE for a bad index. */
RXT_API rxt_status_t rxt_trainer_set(rxt_trainer_t* trainer, rxt_trainer_tensors_t kind, size_t index,
                                     const DLManagedTensor* tensor);
/* The same by name. */
RXT_API rxt_status_t rxt_trainer_get_by_name(const rxt_trainer_t* trainer, rxt_trainer_tensors_t kind,
                                             const char* name, DLManagedTensor** out_tensor);
RXT_API rxt_status_t rxt_trainer_set_by_name(rxt_trainer_t* trainer, rxt_trainer_tensors_t kind, const char* name,
                                             const DLManagedTensor* tensor);

/* Xavier (Glorot) uniform weights and zero biases, from |seed| (the same values everywhere). */
RXT_API rxt_status_t rxt_trainer_init_xavier_uniform(rxt_trainer_t* trainer, uint64_t seed);
/* Zeros for every tensor of |kind| (RXT_TRAINER_PARAMS or RXT_TRAINER_STATES); for
 * RXT_TRAINER_OPTIMIZER_STATE, the initial optimizer state and a step count of 0. */
RXT_API rxt_status_t rxt_trainer_init_zero(rxt_trainer_t* trainer, rxt_trainer_tensors_t kind);

/* The backbone's outputs for |inputs| (borrowed CPU tensors, one per input), as in
 * rxt_vm_invoke: RXT_OUT_OF_RANGE if |capacity| < rxt_trainer_num_outputs. */
RXT_API rxt_status_t rxt_trainer_predict(rxt_trainer_t* trainer, DLManagedTensor* const* inputs, size_t num_inputs,
                                         DLManagedTensor** outputs, size_t capacity, size_t* out_num_outputs);
/* One training step; |*out_loss| (may be NULL) is the loss before the update. Wrong counts,
 * dtypes or shapes: RXT_INVALID_ARGUMENT naming the function and the argument, and nothing
 * changes. */
RXT_API rxt_status_t rxt_trainer_update(rxt_trainer_t* trainer, DLManagedTensor* const* inputs, size_t num_inputs,
                                        DLManagedTensor* const* targets, size_t num_targets, double* out_loss);
/* The loss, without changing anything. */
RXT_API rxt_status_t rxt_trainer_evaluate(rxt_trainer_t* trainer, DLManagedTensor* const* inputs, size_t num_inputs,
                                          DLManagedTensor* const* targets, size_t num_targets, double* out_loss);
/* Updates done since initialization (or restored from a checkpoint). */
RXT_API rxt_status_t rxt_trainer_step(const rxt_trainer_t* trainer, int64_t* out_step);

/* The learning rate is runtime state of the compiled step: changing it recompiles nothing.
 * Setting one removes the schedule. RXT_FAILED_PRECONDITION if the optimizer has no "lr". */
RXT_API rxt_status_t rxt_trainer_learning_rate(const rxt_trainer_t* trainer, double* out_lr);
RXT_API rxt_status_t rxt_trainer_set_learning_rate(rxt_trainer_t* trainer, double lr);
/* From now on, update k runs with the rate of |schedule| for |base_lr|: "constant",
 * "step:step_size=N,gamma=G", "cosine:total_steps=N,min_lr=M", "warmup:steps=N", each also with
 * warmup=N (docs/training.md). RXT_INVALID_ARGUMENT naming the problem. */
RXT_API rxt_status_t rxt_trainer_set_schedule(rxt_trainer_t* trainer, const char* schedule, double base_lr);

/* Writes parameters, states, optimizer state and the step count to |path| (safetensors),
 * atomically. Loading it into a trainer of the same module and going on continues
 * bit-identically; a checkpoint that does not fit is RXT_DATA_LOSS naming the problem, and
 * changes nothing. */
RXT_API rxt_status_t rxt_trainer_save_checkpoint(const rxt_trainer_t* trainer, const char* path);
RXT_API rxt_status_t rxt_trainer_load_checkpoint(rxt_trainer_t* trainer, const char* path);

/* Saves |trainer| as a trainer file (docs/training.md, "Trainer files"): its program, its kernels
 * compiled ahead of time by its backend (with its context's plugins), its values, step count and
 * schedule, in one file written atomically. A backend that cannot compile ahead of time (reference)
 * saves no kernels: they compile where the file is loaded. */
RXT_API rxt_status_t rxt_trainer_save(const rxt_trainer_t* trainer, const char* path);
/* Like rxt_trainer_save, with the kernels compiled for another machine, where the file is to be
 * loaded by librxt_runtime built for it (docs/deploy.md, "On another architecture"): |target|
 * a target triple ("aarch64-linux-gnu"; NULL or "": this machine's), |cpu| ("cortex-a72";
 * NULL or "": this machine's CPU for its own triple, else the architecture's baseline) and
 * |features| ("+sve"; NULL or "": the CPU's own), as LLVM names them. The library is linked with the
 * target's cross compiler (aarch64-linux-gnu-gcc) from PATH. Create the trainer with
 * options->libraries "none" unless the other machine has the kernel libraries' plugins.
 * RXT_INVALID_ARGUMENT for a target or CPU LLVM does not know, RXT_FAILED_PRECONDITION for a
 * backend that cannot compile for it or a missing cross compiler. */
RXT_API rxt_status_t rxt_trainer_save_for_target(const rxt_trainer_t* trainer, const char* path, const char* target,
                                                 const char* cpu, const char* features);
/* A trainer that goes on from the trainer file at |path|, bit for bit: its kernels run from the
 * file (no backend plugin, no compiler), the extern functions they call come from the plugins of
 * |context| (NULL: the default context; the plugin of a missing library is looked for by name on
 * the search path). RXT_NOT_FOUND for a missing file, RXT_DATA_LOSS for a malformed one (the
 * message names it and the byte), RXT_FAILED_PRECONDITION for kernels this machine cannot run.
 * |*out_trainer| must be released. */
RXT_API rxt_status_t rxt_trainer_load(const char* path, rxt_context_t* context, rxt_trainer_t** out_trainer);

/* Runs one training step with profiling and returns the time per kernel as a text table (free
 * with rxt_string_free); the step's results are dropped, nothing changes. */
RXT_API rxt_status_t rxt_trainer_profile_step(rxt_trainer_t* trainer, DLManagedTensor* const* inputs,
                                              size_t num_inputs, DLManagedTensor* const* targets, size_t num_targets,
                                              char** out_text);

/* ---- Gradient accumulation (a trainer built with options->accumulation, or a trainer file of
 * one: rxt build --trainer --accumulate) ----------------------------------------------------- */

/* Forward and backward of one micro-batch, its gradients added to the trainer's sums (its model
 * states are updated, its parameters not); |*out_loss| (may be NULL) is the micro-batch's loss.
 * RXT_FAILED_PRECONDITION for a trainer built without accumulation. */
RXT_API rxt_status_t rxt_trainer_accumulate(rxt_trainer_t* trainer, DLManagedTensor* const* inputs, size_t num_inputs,
                                            DLManagedTensor* const* targets, size_t num_targets, double* out_loss);
/* One optimizer step with the accumulated gradients (their mean over the micro-batches when the
 * loss reduction is "mean": as one batch of all their samples), combined over the ranks first
 * under data parallelism; |*out_loss| is the step's loss. RXT_FAILED_PRECONDITION when nothing
 * was accumulated. */
RXT_API rxt_status_t rxt_trainer_apply_accumulated(rxt_trainer_t* trainer, double* out_loss);

/* ---- Data-parallel training across processes (docs/distributed.md) -------------------------- */

/* The processes that train together, over a collective plugin ("mpi": plugins/ccl_mpi). */
typedef struct rxt_comm_s rxt_comm_t;

/* A communicator of the collective |collective| ("mpi") of |context|'s plugins (NULL: the
 * default context; the plugin, rxt_ccl_<collective>, is loaded from the plugin search path when
 * none is loaded). |external| is the program's own communicator, e.g. a pointer to an MPI_Comm
 * (which rxt duplicates: the program's is left as it is; MPI initialized by the program), or NULL
 * for every process of the launch (MPI initialized if the program has not, and finalized at
 * exit). |options|: NULL. RXT_NOT_FOUND naming the loaded collectives. Release with
 * rxt_comm_release. */
RXT_API rxt_status_t rxt_comm_create(rxt_context_t* context, const char* collective, const char* options,
                                     void* external, rxt_comm_t** out_comm);
RXT_API rxt_comm_t* rxt_comm_retain(rxt_comm_t* comm);
RXT_API void rxt_comm_release(rxt_comm_t* comm);
/* This process's rank and the number of ranks. */
RXT_API rxt_status_t rxt_comm_rank(const rxt_comm_t* comm, int32_t* out_rank);
RXT_API rxt_status_t rxt_comm_size(const rxt_comm_t* comm, int32_t* out_size);

/* Trains |trainer| together with the other ranks of |comm| (the trainer keeps it; NULL: alone).
 * Every rank calls it at the same point: each checks that all run the same trainer program
 * (RXT_FAILED_PRECONDITION on every rank otherwise, naming how many differ), then takes rank 0's
 * parameters, states, optimizer state and step count. From then on each rank passes its own
 * share of every batch to rxt_trainer_update (or accumulate); the ranks' parameters stay
 * bit-identical. RXT_FAILED_PRECONDITION for a trainer built without data parallelism on more
 * than one rank. */
RXT_API rxt_status_t rxt_trainer_set_comm(rxt_trainer_t* trainer, rxt_comm_t* comm);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RXT_RXT_H_ */
