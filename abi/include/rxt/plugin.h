/* plugin.h: the plugin ABI of rxt (C99), version 3. A plugin is a shared library that links
 * nothing of rxt: it includes this header and exports one entry point, rxt_plugin_entry.
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
 * What a plugin provides are items of nine kinds — optimizers, losses, gradient rules, backends,
 * extern functions, ops, kernel libraries, importers and exporters — each a typed table of functions (a vtable) that
 * starts with `size_t struct_size` and carries its name, a one-line summary and a `state`
 * pointer handed back to every function.
 *
 * Errors: every function that can fail, in either direction, returns an rxt_status_t (rxt/rxt.h):
 * NULL is success; anything else is a failure whose receiver owns it. A plugin makes its
 * failures with host_api->status_create(code, message) and returns them (the host frees them);
 * it reads a status the host returns with status_code/status_message and frees it with
 * status_free. No C++ exception may cross this boundary.
 *
 * Lifetimes: the descriptor, the vtables and every string they point to must stay valid while
 * the library is loaded (static storage is the usual choice); the host copies the names. The
 * host keeps the library loaded while anything it provides is in use. |host_api| stays valid
 * for as long as the library is loaded by that host; its status functions do not depend on the
 * host at all, so a plugin may keep those function pointers for good.
 *
 * Minimal plugin:
 *
 *   #include <rxt/plugin.h>
 *   static rxt_status_t L1(void* state, const rxt_ir_api_t* ir, rxt_ir_builder_t* b,
 *                          const char* options, rxt_ir_expr_t prediction, rxt_ir_expr_t* loss);
 *   static const rxt_loss_t kL1 = {sizeof(rxt_loss_t), "my_l1", "Mean absolute error.", NULL, L1};
 *   static const rxt_loss_t* const kLosses[] = {&kL1};
 *   static const rxt_plugin_descriptor_t kPlugin = {   // designated: later lists start empty
 *     .struct_size = sizeof(rxt_plugin_descriptor_t), .abi_version = RXT_PLUGIN_ABI_VERSION,
 *     .name = "my_losses", .version = "1.0.0", .summary = "Losses of my lab.",
 *     .losses = kLosses, .num_losses = 1};
 *   RXT_PLUGIN_EXPORT const rxt_plugin_descriptor_t* rxt_plugin_entry(
 *       uint32_t host_abi_version, const rxt_host_api_t* host) {
 *     (void)host;
 *     return host_abi_version >= RXT_PLUGIN_ABI_VERSION ? &kPlugin : NULL;
 *   }
 *
 * Versions: 1 named items with an opaque callback (backends described by an rxt_backend_t);
 * 2 made the callbacks of optimizers, losses and gradient rules typed IR generators returning an
 * rxt_code_t; 3 (this header) gives every kind a typed vtable and rxt_status_t as the one error
 * type; kernel libraries were appended to it later (rxt_library_t, the descriptor's libraries,
 * register_library, rxt_backend_t.preferred_libraries), then importers (rxt_importer_t, the
 * descriptor's importers, register_importer), then exporters (rxt_exporter_t, the descriptor's
 * exporters, register_exporter): each a marked block at the end of its struct,
 * read only when struct_size covers it). A host built from this header still loads
 * plugins of versions 1 and 2 (docs/plugins.md, "Older plugins"): the table it hands every plugin
 * keeps the members of version 2 where they were (the abi2_* slots below) and adds those of
 * version 3 after them. */
#ifndef RXT_PLUGIN_H_
#define RXT_PLUGIN_H_

#include <stddef.h>
#include <stdint.h>

#include "rxt/compiled_kernel.h" /* rxt_kernel_runtime_t */
#include "rxt/ir_builder.h"      /* rxt_ir_api_t: how IR generators build IR */
#include "rxt/rxt.h"             /* rxt_status_t, rxt_code_t, rxt_extern_fn_t, DLTensor (declarations only) */
#include "rxt/tensor_expr.h"     /* rxt_te_api_t: how op plugins describe kernels */

#ifdef __cplusplus
extern "C" {
#endif

/* The plugin ABI version this header describes. */
#define RXT_PLUGIN_ABI_VERSION 3
/* The oldest plugin ABI version a host built from this header still accepts. */
#define RXT_PLUGIN_ABI_MIN_VERSION 1
/* The one symbol a plugin exports. */
#define RXT_PLUGIN_ENTRY_SYMBOL "rxt_plugin_entry"

/* rxt_log_level_t (what host->log takes) is in rxt/rxt.h, shared with the contexts' log. */

/* ---- The kinds of items: one vtable each ----------------------------------------------------
 * Every vtable starts with struct_size (sizeof the struct the plugin was compiled with), then
 * name (required, unique per kind across every loaded plugin), summary (one line; may be NULL)
 * and state (handed back to every function; may be NULL). Members are only ever appended: the
 * host reads those that struct_size covers. The functions marked required must not be NULL. */

/* An optimizer: builds one update step as IR (an IR generator, rxt/ir_builder.h). |params| and
 * |grads| (|num_params| each) are the parameters and their gradients; build declares its state
 * with ir->state — by convention "lr" and "weight_decay" are 0-d float32 states the Trainer may
 * change between steps (learning-rate schedules), "step" counts steps — and fills |new_params|
 * with the updated parameters (same struct info). |options| are attributes in the text format
 * ("lr=0.001, betas=[0.9, 0.999]"); unknown names are an error (ir->check_options). */
typedef struct rxt_optimizer_s {
  size_t struct_size; /* sizeof(rxt_optimizer_t) */
  const char* name;   /* "adam" */
  const char* summary;
  void* state;
  /* Required. */
  rxt_status_t (*build)(void* state, const rxt_ir_api_t* ir, rxt_ir_builder_t* b, const char* options,
                        const rxt_ir_expr_t* params, const rxt_ir_expr_t* grads, int num_params,
                        rxt_ir_expr_t* new_params);
} rxt_optimizer_t;

/* A loss: builds the loss function from the backbone's prediction. build declares its target
 * parameter(s) with ir->param (their struct info follows from the prediction's: class indices,
 * one-hot, same shape...) and returns the loss, a 0-d tensor (a tensor of the prediction's batch
 * shape with reduction "none"), in |*loss|. |options| as for an optimizer
 * ("reduction=\"mean\", ignore_index=-100"). */
typedef struct rxt_loss_s {
  size_t struct_size; /* sizeof(rxt_loss_t) */
  const char* name;   /* "cross_entropy" */
  const char* summary;
  void* state;
  /* Required. */
  rxt_status_t (*build)(void* state, const rxt_ir_api_t* ir, rxt_ir_builder_t* b, const char* options,
                        rxt_ir_expr_t prediction, rxt_ir_expr_t* loss);
} rxt_loss_t;

/* A gradient rule, named after its op. For the binding `output = call`, |output_grad| is the
 * adjoint of the output (a tuple expression for an op with a tuple result); build fills
 * |input_grads[i]| (num_args(call) entries, all NULL on entry) with the adjoint of argument i, of
 * the argument's struct info, and leaves NULL where none flows (an integer index, a shape, a
 * target). */
typedef struct rxt_gradient_rule_s {
  size_t struct_size; /* sizeof(rxt_gradient_rule_t) */
  const char* name;   /* the op: "matmul" */
  const char* summary;
  void* state;
  /* Required. */
  rxt_status_t (*build)(void* state, const rxt_ir_api_t* ir, rxt_ir_builder_t* b, rxt_ir_expr_t call,
                        rxt_ir_expr_t output, rxt_ir_expr_t output_grad, rxt_ir_expr_t* input_grads);
} rxt_gradient_rule_t;

/* One kernel a backend compiles ahead of time (rxt_backend_t.emit_library). */
typedef struct rxt_aot_kernel_s {
  const char* name;     /* the kernel's name, for messages */
  const uint8_t* bytes; /* the kernel in the portable kernel format (rxt/kernel_format.h) */
  size_t size;
  const char* symbol;   /* the C identifier to export it under: chosen by the host, unique */
} rxt_aot_kernel_t;

/* The machine a backend compiles kernels ahead of time for (rxt_backend_t.emit_library_for).
 * Empty fields (NULL or "") take this machine's values: the triple this process runs on; its
 * CPU and features when the triple is this machine's, else the architecture's baseline. */
typedef struct rxt_aot_target_s {
  size_t struct_size;   /* sizeof(rxt_aot_target_t) */
  const char* triple;   /* as LLVM and GCC spell it: "aarch64-linux-gnu", "x86_64-linux-gnu" */
  const char* cpu;      /* "cortex-a72", "x86-64-v3", "generic" */
  const char* features; /* "+sve,+dotprod": added to (or, with '-', taken from) the CPU's own */
} rxt_aot_target_t;

/* A backend: runs the kernels of an executable. Kernels may be called from several threads,
 * one call per handle at a time. Messages need not name the backend or the kernel: the host
 * adds them. */
typedef struct rxt_backend_s {
  size_t struct_size; /* sizeof(rxt_backend_t) */
  const char* name;   /* "cpu" */
  const char* summary;
  void* state;
  /* Required. Loads the kernel |kernel_name| from |size| bytes in the portable kernel format
   * (rxt/kernel_format.h) into an opaque handle, |*out_kernel|. */
  rxt_status_t (*load_kernel)(void* state, const char* kernel_name, const uint8_t* bytes, size_t size,
                              void** out_kernel);
  /* Required. Runs a loaded kernel: |args| are its parameters in order, outputs last
   * (destination-passing style), a scalar parameter as a 0-d int64 or float64 tensor. */
  rxt_status_t (*call_kernel)(void* state, void* kernel, DLTensor* const* args, int num_args);
  /* Required. Frees a handle of load_kernel. */
  void (*free_kernel)(void* state, void* kernel);
  /* Optional (NULL: the backend runs kernels only through load_kernel). Compiles |num_kernels|
   * kernels ahead of time into one shared library written to |output_path| (through a temporary
   * file renamed into place). The library links nothing of rxt and needs no compiler at run
   * time: it exports each kernel as an rxt_compiled_kernel_fn under its symbol, and
   * RXT_AOT_LIBRARY_INFO_SYMBOL (rxt/compiled_kernel.h). */
  rxt_status_t (*emit_library)(void* state, const rxt_aot_kernel_t* kernels, size_t num_kernels,
                               const char* output_path);

  /* ---- Kernel libraries (appended in version 3: read only when struct_size covers it) ---- */
  /* The kernel libraries (rxt_library_t names) a build for this backend uses when none are asked
   * for, in order of preference, NULL-terminated: {"dnnl", NULL}. NULL: none. Those that no
   * loaded plugin provides are skipped (with a note). */
  const char* const* preferred_libraries;

  /* ---- Flags (appended in version 3: read only when struct_size covers it) ---- */
  /* RXT_BACKEND_* bits; 0 for none. */
  uint64_t flags;

  /* ---- Other machines (appended in version 3: read only when struct_size covers it) ---- */
  /* Optional (NULL: emit_library compiles for this machine only). As emit_library, for the
   * machine |target| describes (NULL: this one): another CPU of this architecture, or another
   * architecture, whose library this process cannot load. A target the backend cannot compile
   * for is RXT_INVALID_ARGUMENT naming it; a missing linker, RXT_FAILED_PRECONDITION. */
  rxt_status_t (*emit_library_for)(void* state, const rxt_aot_kernel_t* kernels, size_t num_kernels,
                                   const rxt_aot_target_t* target, const char* output_path);
} rxt_backend_t;

/* rxt_backend_t.flags: load_kernel may run on several threads at once (for different kernels),
 * so the host compiles an executable's kernels in parallel when it loads them. */
#define RXT_BACKEND_CONCURRENT_LOAD ((uint64_t)1)

/* An external function, which IR calls with call_extern("name", ...): the same rxt_extern_fn_t a
 * program registers through rxt_extern_register (rxt/rxt.h), called with |state| as its
 * user_data. Registering one keeps the library loaded for the life of the process; a name
 * already in the process's extern registry fails the load. */
typedef struct rxt_extern_s {
  size_t struct_size; /* sizeof(rxt_extern_t) */
  const char* name;   /* "dnnl.matmul" */
  const char* summary;
  void* state;
  /* Required. */
  rxt_extern_fn_t function;
} rxt_extern_t;

/* An attribute of an op (rxt_op_t): name, kind (rxt/rxt.h: RXT_ATTR_BOOL, _INT, _FLOAT, _STRING,
 * _DTYPE, or _ARRAY for a list of ints), default value in the text format ("0.01", "[1, 1]",
 * "\"NCHW\"", "float32"; NULL: the attribute is required) and a line of doc (may be NULL). */
typedef struct rxt_op_attr_s {
  const char* name;
  rxt_attr_kind_t kind;
  const char* default_value;
  const char* doc;
} rxt_op_attr_t;

/* An op: a new operator of the IR, usable like a core op in the text format, in models and by
 * the passes. Its name must be unused (a prefix of the plugin's, "example.softplus", keeps it
 * apart from the core's and other plugins' ops) and an identifier the text format can read
 * (letters, digits, '_', '.'). Its inputs are tensors; its attributes follow |attrs|. An op
 * belongs to the process once loaded: it stays registered (and the library loaded) until the
 * process exits; loading the same plugin again, from another host, reuses it. Its gradient, if
 * it has one, is a gradient rule of the same name in the same plugin (rxt_gradient_rule_t).
 * Calls of the op are pure (no side effects). */
typedef struct rxt_op_s {
  size_t struct_size; /* sizeof(rxt_op_t) */
  const char* name;   /* "example.softplus" */
  const char* summary;
  void* state;
  const char* const* inputs; /* the names of its tensor inputs, in order ("x") */
  int num_inputs;
  const rxt_op_attr_t* attrs;
  int num_attrs;
  /* Required. Infers the struct info of |call| (arguments and attributes are read with |ir|;
   * attributes are complete with their defaults) and sets it with ir->set_struct_info. A call
   * it cannot take (a dtype, a rank) is a status it returns, which the host reports with the
   * call's place in the source and the op's name. |ir|'s building functions fail here. */
  rxt_status_t (*infer_struct_info)(void* state, const rxt_ir_api_t* ir, rxt_ir_builder_t* b, rxt_ir_expr_t call);
  /* Required. Describes the kernel of |call| (struct info inferred, arguments of known rank
   * and dtype) with |te| (rxt/tensor_expr.h): its inputs are the call's arguments, its outputs
   * the fields of the call's result. |ir| reads the call's attributes and struct info. */
  rxt_status_t (*legalize)(void* state, const rxt_te_api_t* te, rxt_te_builder_t* kb, const rxt_ir_api_t* ir,
                           rxt_ir_builder_t* b, rxt_ir_expr_t call);
} rxt_op_t;

/* ---- Kernel libraries ------------------------------------------------------------------------
 * A kernel library (oneDNN, say) takes over op calls it computes faster than generated kernels.
 * It is data plus callbacks: each pattern names the op a match starts from (the anchor), the ops
 * it may absorb after it (an epilogue: add(bias) -> nn.relu -> nn.max_pool2d), the ops whose
 * results it may absorb as arguments (input_ops: a transpose it reads transposed instead) and
 * the ops elsewhere in the block it may compute in the same call (sibling_ops: a bias gradient
 * next to a weight gradient). The host's pass LegalizeLibraryCalls walks each binding block,
 * finds the anchors, follows the chains of sole readers and hands every candidate to the
 * pattern's rewrite, which reads the calls through the IR table (rxt/ir_builder.h) and either
 * declines or builds the replacement, usually ir->call_extern of one of the library's extern
 * functions (registered by the same plugin as rxt_extern_t). */

/* One op call of a match. */
typedef struct rxt_library_call_s {
  rxt_ir_expr_t call;   /* the op call (read it with ir->op_name, ir->arg, ir->attr_*) */
  rxt_ir_expr_t result; /* the variable it is bound to */
  /* One entry per argument of |call|: the op call that binds the argument when that is a call
   * of one of the pattern's input_ops, bound earlier in the block and read only by |call|; else
   * NULL. A replacement that does not read such an argument absorbs its producer. */
  const rxt_ir_expr_t* producers;
} rxt_library_call_t;

/* What the host matched for one pattern. */
typedef struct rxt_library_match_s {
  size_t struct_size; /* sizeof(rxt_library_match_t) of the host: read members it covers */
  /* calls[0] is the anchor; each later one is the only reader of the one before it and calls
   * the next op of the pattern's epilogue that is present (each op of the epilogue may be
   * missing: add -> nn.relu matches add, nn.relu, or both). */
  const rxt_library_call_t* calls;
  int num_calls;
  /* Calls of the pattern's sibling_ops in the same block whose first argument is an argument of
   * the anchor, in block order. */
  const rxt_library_call_t* siblings;
  int num_siblings;
} rxt_library_match_t;

/* The rewrite's decision; the host zeroes it (value NULL: declined) and sets struct_size. */
typedef struct rxt_library_rewrite_s {
  size_t struct_size;
  /* The replacement: a variable the rewrite bound (ir->call_extern). It takes the place of
   * calls[num_calls - 1].result — with a sibling, a tuple of two that takes the place of that
   * result (field 0) and of the sibling's (field 1). NULL: the rewrite declines. */
  rxt_ir_expr_t value;
  int num_calls; /* how many of match->calls it computes, from the anchor on: 1 to num_calls */
  int sibling;   /* the sibling it computes too (an index in match->siblings), or -1 */
} rxt_library_rewrite_t;

/* One pattern. Op lists are NULL-terminated arrays of op names (NULL: none); every op named
 * must be registered when the plugin loads. */
typedef struct rxt_library_pattern_s {
  size_t struct_size;              /* sizeof(rxt_library_pattern_t) */
  const char* name;                /* "dnnl.matmul": for messages and listings */
  const char* anchor;              /* required: the op a match starts from, e.g. "matmul" */
  const char* const* epilogue;     /* ops it may absorb after the anchor, in order */
  const char* const* input_ops;    /* ops whose results a matched call may absorb */
  const char* const* sibling_ops;  /* ops elsewhere in the block it may compute too */
  /* Required. Builds into |b| (a scratch block: only what |out| names is kept, placed where the
   * match was) and fills |out|, or leaves out->value NULL to decline. A status is a failure of
   * the build, not a decline. |state| is the library's. */
  rxt_status_t (*rewrite)(void* state, const rxt_ir_api_t* ir, rxt_ir_builder_t* b, const rxt_library_match_t* match,
                          rxt_library_rewrite_t* out);
} rxt_library_pattern_t;

/* A kernel library: its name (what builds ask for, and backends prefer) and its patterns, tried
 * in this order at each anchor; the first that rewrites wins. */
typedef struct rxt_library_s {
  size_t struct_size; /* sizeof(rxt_library_t) */
  const char* name;   /* "dnnl" */
  const char* summary;
  void* state;        /* handed to every pattern's rewrite */
  const rxt_library_pattern_t* const* patterns;
  size_t num_patterns;
} rxt_library_t;

/* ---- Importers (appended in version 3) ----
 * An importer reads a model in another format (ONNX, ...) and writes it as an rxt module: its
 * text (rxt's text format, docs/ir.md) and the values of its parameters and states by name. The
 * host parses and checks the text like any .rxt file, so a module an importer gets wrong is an
 * error naming the line, not a crash. */

/* Where an importer writes; the host's, valid during import only. */
typedef struct rxt_import_sink_s rxt_import_sink_t;

typedef struct rxt_import_sink_api_s {
  size_t struct_size; /* sizeof(rxt_import_sink_api_t) */
  /* Appends |size| bytes to the module's text (in as many pieces as the importer likes). */
  rxt_status_t (*write_text)(rxt_import_sink_t* sink, const char* text, size_t size);
  /* Records the value of the parameter or state |name| (a parameter of the module's text,
   * without the %): |value| (CPU, any float or integer dtype, compact or strided) is copied.
   * RXT_ALREADY_EXISTS if |name| has a value already. */
  rxt_status_t (*add_value)(rxt_import_sink_t* sink, const char* name, const DLTensor* value);
} rxt_import_sink_api_t;

typedef struct rxt_importer_s {
  size_t struct_size; /* sizeof(rxt_importer_t) */
  const char* name;   /* the format: "onnx" */
  const char* summary;
  void* state;
  /* The file extensions it reads, comma-separated, with the dot: ".onnx". Required. */
  const char* extensions;
  /* Required. Reads the model at |path| with |options| (attributes in the text format, e.g.
   * "freeze=[fc.weight]"; "" for none; unknown names are an error) and writes it through |api|
   * to |sink|. A failure names the node where there is one; the host adds the file and the
   * importer's name ("model.onnx: onnx importer: <message>"). */
  rxt_status_t (*import)(void* state, const char* path, const char* options, const rxt_import_sink_api_t* api,
                         rxt_import_sink_t* sink);
} rxt_importer_t;

/* ---- Exporters (appended in version 3) ----
 * An exporter writes one function of a module in another format (ONNX, ...). The host prepares
 * the function (a backbone's at inference; calls of the module's other functions inlined, dead
 * code removed) and hands it over as a graph: its inputs, each with the value it is exported
 * with (a parameter's) or none (an input of the exported model), its bindings in order, and its
 * output. Every expression is read through the reading functions of rxt_ir_api_t
 * (rxt/ir_builder.h: expr_kind, op_name, arg, attr_*, struct info, constant_tensor...) with
 * the reader handed along; building functions fail. The exporter writes the file's bytes
 * through its sink; the host writes them to the file (a temporary name, then renamed). */

/* The function to export; the host's, valid during the export only. */
typedef struct rxt_export_graph_s {
  size_t struct_size;          /* sizeof(rxt_export_graph_t) */
  const char* name;            /* the function's name: "backbone" */
  int num_inputs;
  const rxt_ir_expr_t* inputs; /* the function's parameters (variables), in order */
  /* Per input: the value it is exported with (CPU, compact), or NULL: an input of the model. */
  const DLTensor* const* values;
  int num_bindings;
  const rxt_ir_expr_t* vars;   /* binding i binds vars[i] to bound[i]: an op call, a tuple, a */
  const rxt_ir_expr_t* bound;  /* tuple's field, a constant, a shape, a prim value or a variable */
  rxt_ir_expr_t output;        /* a variable, a constant or a tuple of them */
} rxt_export_graph_t;

/* Where an exporter writes; the host's, valid during the export only. */
typedef struct rxt_export_sink_s rxt_export_sink_t;

typedef struct rxt_export_sink_api_s {
  size_t struct_size; /* sizeof(rxt_export_sink_api_t) */
  /* Appends |size| bytes to the file (in as many pieces as the exporter likes). */
  rxt_status_t (*write)(rxt_export_sink_t* sink, const void* data, size_t size);
} rxt_export_sink_api_t;

typedef struct rxt_exporter_s {
  size_t struct_size; /* sizeof(rxt_exporter_t) */
  const char* name;   /* the format: "onnx" */
  const char* summary;
  void* state;
  /* The file extensions it writes, comma-separated, with the dot: ".onnx". Required. */
  const char* extensions;
  /* Required. Writes |graph| with |options| (attributes in the text format; "" for none;
   * unknown names are an error) through |api| to |sink|, reading expressions with |ir| and
   * |reader|. An op the format cannot express is an error listing every such op of the graph;
   * the host adds the function's and the exporter's names. */
  rxt_status_t (*export_graph)(void* state, const rxt_ir_api_t* ir, rxt_ir_builder_t* reader,
                               const rxt_export_graph_t* graph, const char* options,
                               const rxt_export_sink_api_t* api, rxt_export_sink_t* sink);
} rxt_exporter_t;

/* ---- Collectives (data-parallel training across processes: docs/distributed.md) ------------- */

/* The processes that train together (an MPI communicator, say), each with a rank in [0, size):
 * opaque, made by rxt_collective_t.create. */
typedef struct rxt_communicator_s rxt_communicator_t;
/* An allreduce in flight (rxt_collective_t.allreduce_start): opaque, the collective's. */
typedef struct rxt_request_s rxt_request_t;

/* How allreduce combines the ranks' tensors. */
typedef enum rxt_reduce_op_e {
  RXT_REDUCE_SUM = 0,  /* the sum over the ranks */
  RXT_REDUCE_MEAN = 1  /* the sum divided by the number of ranks */
} rxt_reduce_op_t;

/* A collective: the communication of data-parallel training, on tensors in host memory (dtype
 * float32, float64, int32 or int64, contiguous). Every rank makes the same calls in the same
 * order; a call blocks until all ranks have made it. A communicator is used by one thread at a
 * time. A peer that dies must not leave the others waiting for ever: the collective reports it
 * (or the launcher ends the job) within seconds. */
typedef struct rxt_collective_s {
  size_t struct_size; /* sizeof(rxt_collective_t) */
  const char* name;   /* "mpi" */
  const char* summary;
  void* state;
  /* Required. A communicator over the processes of the launch (|external| NULL: MPI's world,
   * initializing MPI if the program has not), or over the caller's own (|external| points to
   * the library's handle, e.g. an MPI_Comm, which the communicator duplicates: the caller's is
   * left as it is). |options|: the attribute syntax ("timeout=30"), NULL for none. */
  rxt_status_t (*create)(void* state, const char* options, void* external, rxt_communicator_t** out_comm);
  /* Required. Frees a communicator of create (NULL: no-op). */
  void (*destroy)(void* state, rxt_communicator_t* comm);
  /* Required. This process's rank and the number of ranks. */
  int32_t (*rank)(void* state, const rxt_communicator_t* comm);
  int32_t (*size)(void* state, const rxt_communicator_t* comm);
  /* Required. Combines |tensor| over the ranks, in place: on return every rank holds the same
   * result. Every rank passes the same shape and dtype. */
  rxt_status_t (*allreduce)(void* state, rxt_communicator_t* comm, DLTensor* tensor, rxt_reduce_op_t op);
  /* Required. Copies rank |root|'s |tensor| into every other rank's (same shape and dtype). */
  rxt_status_t (*broadcast)(void* state, rxt_communicator_t* comm, DLTensor* tensor, int32_t root);
  /* Required. Returns when every rank has called it. */
  rxt_status_t (*barrier)(void* state, rxt_communicator_t* comm);
  /* Optional (RXT_VTABLE_HAS; NULL: none). Ends every process of |comm|'s job with exit status
   * |code| and does not return: what a rank that cannot go on calls, so that the others do not
   * wait for it in a collective for ever. */
  void (*abort)(void* state, rxt_communicator_t* comm, int32_t code);
  /* Optional, both or neither (RXT_VTABLE_HAS; NULL: the host calls allreduce where it would
   * start one, so nothing overlaps). allreduce_start starts combining |tensor| over the ranks in
   * place, as allreduce does, and returns without waiting: the communication runs while the
   * caller computes. The tensor's data must stay valid and untouched until wait returns (the
   * DLTensor, its shape and strides need not outlive the call). Requests complete in the order
   * they were started; allreduce, broadcast and barrier called while requests are pending run
   * after them. wait returns when |request| is complete, with its status, and frees it; destroy
   * waits for the requests no one waited for. */
  rxt_status_t (*allreduce_start)(void* state, rxt_communicator_t* comm, DLTensor* tensor, rxt_reduce_op_t op,
                                  rxt_request_t** out_request);
  rxt_status_t (*wait)(void* state, rxt_communicator_t* comm, rxt_request_t* request);
} rxt_collective_t;

/* Whether |table|, a vtable of |type| (or the host's table), holds |member|: whether its
 * struct_size reaches past it. For members appended after a vtable was first published. */
#define RXT_VTABLE_HAS(type, table, member) \
  ((table)->struct_size >= offsetof(type, member) + sizeof((table)->member))

/* ---- The host -------------------------------------------------------------------------------- */

/* The host side of one loaded plugin; pass it back to every host function that takes it. */
typedef struct rxt_host_s rxt_host_t;

/* A member of the table that only plugins of ABI versions 1 and 2 call (with the types of their
 * own header); kept so that every member they know stays where it was. */
typedef void (*rxt_abi2_fn_t)(void);

/* The host's functions. A plugin of version 3 may use every member (a host that hands it this
 * table speaks version 3); RXT_HOST_API_HAS(api, member) checks a member added later. */
typedef struct rxt_host_api_s {
  size_t struct_size;
  uint32_t abi_version; /* the host's highest plugin ABI version */
  rxt_host_t* host;
  /* Logs a message attributed to the plugin. Any time while the library is loaded. */
  void (*log)(rxt_host_t* host, rxt_log_level_t level, const char* message);
  /* The register functions of versions 1 and 2 (rxt_plugin_item_t based). */
  rxt_abi2_fn_t abi2_register_optimizer;
  rxt_abi2_fn_t abi2_register_loss;
  rxt_abi2_fn_t abi2_register_gradient;
  rxt_abi2_fn_t abi2_register_backend;
  rxt_abi2_fn_t abi2_register_extern;
  /* The process's services for compiled kernels (its thread pool, sized by RXT_NUM_THREADS):
   * valid while the library is loaded. */
  const rxt_kernel_runtime_t* kernel_runtime;

  /* ---- Version 3 ---- */

  /* Statuses, as ORT's CreateStatus/GetErrorCode/GetErrorMessage/ReleaseStatus. status_create
   * makes a failure to return (NULL for RXT_OK; a code outside the list becomes RXT_UNKNOWN;
   * |message| is copied, NULL reads as ""; it never fails: without memory it returns a static
   * "out of memory" status). status_code (RXT_OK for NULL) and status_message ("" for NULL; valid
   * until the status is freed) read one the host returned; status_free frees it (NULL: no-op).
   * None depends on the host: their pointers stay valid for the life of the process. */
  rxt_status_t (*status_create)(rxt_code_t code, const char* message);
  rxt_code_t (*status_code)(rxt_status_t status);
  const char* (*status_message)(rxt_status_t status);
  void (*status_free)(rxt_status_t status);

  /* Register one item each, as if it were listed in the descriptor. Only during
   * rxt_plugin_entry (RXT_FAILED_PRECONDITION after it); RXT_ALREADY_EXISTS if the name is taken
   * and RXT_INVALID_ARGUMENT for a bad vtable (the whole load then fails). The host keeps the
   * pointer: the vtable must stay valid while the library is loaded. */
  rxt_status_t (*register_optimizer)(rxt_host_t* host, const rxt_optimizer_t* optimizer);
  rxt_status_t (*register_loss)(rxt_host_t* host, const rxt_loss_t* loss);
  rxt_status_t (*register_gradient_rule)(rxt_host_t* host, const rxt_gradient_rule_t* rule);
  rxt_status_t (*register_backend)(rxt_host_t* host, const rxt_backend_t* backend);
  rxt_status_t (*register_extern)(rxt_host_t* host, const rxt_extern_t* function);

  /* ---- Op plugins (appended within version 3: check RXT_HOST_API_HAS) ---- */
  rxt_status_t (*register_op)(rxt_host_t* host, const rxt_op_t* op);

  /* ---- Kernel libraries (appended in version 3: check RXT_HOST_API_HAS) ---- */
  rxt_status_t (*register_library)(rxt_host_t* host, const rxt_library_t* library);

  /* ---- Importers (appended in version 3: check RXT_HOST_API_HAS) ---- */
  rxt_status_t (*register_importer)(rxt_host_t* host, const rxt_importer_t* importer);

  /* ---- Exporters (appended in version 3: check RXT_HOST_API_HAS) ---- */
  rxt_status_t (*register_exporter)(rxt_host_t* host, const rxt_exporter_t* exporter);

  /* ---- Collectives (appended in version 3: check RXT_HOST_API_HAS) ---- */
  rxt_status_t (*register_collective)(rxt_host_t* host, const rxt_collective_t* collective);
} rxt_host_api_t;

#define RXT_HOST_API_HAS(api, member) RXT_VTABLE_HAS(rxt_host_api_t, api, member)

/* What the plugin is and what it provides (items may also be registered by calls). Each list is
 * an array of pointers to vtables (so that a vtable may grow without moving the next one). */
typedef struct rxt_plugin_descriptor_s {
  size_t struct_size;   /* sizeof(rxt_plugin_descriptor_t) */
  uint32_t abi_version; /* the version the plugin speaks: RXT_PLUGIN_ABI_VERSION */
  const char* name;     /* required, unique among loaded plugins */
  const char* version;  /* the plugin's own version, e.g. "1.0.0"; may be NULL */
  const char* summary;  /* one line; may be NULL */
  const rxt_optimizer_t* const* optimizers;
  size_t num_optimizers;
  const rxt_loss_t* const* losses;
  size_t num_losses;
  const rxt_gradient_rule_t* const* gradient_rules;
  size_t num_gradient_rules;
  const rxt_backend_t* const* backends;
  size_t num_backends;
  const rxt_extern_t* const* externs;
  size_t num_externs;
  /* ---- Op plugins: a descriptor whose struct_size ends before these lists none ---- */
  const rxt_op_t* const* ops;
  size_t num_ops;

  /* ---- Kernel libraries (appended in version 3: read only when struct_size covers them) ---- */
  const rxt_library_t* const* libraries;
  size_t num_libraries;

  /* ---- Importers (appended in version 3: read only when struct_size covers them) ---- */
  const rxt_importer_t* const* importers;
  size_t num_importers;

  /* ---- Exporters (appended in version 3: read only when struct_size covers them) ---- */
  const rxt_exporter_t* const* exporters;
  size_t num_exporters;

  /* ---- Collectives (appended in version 3: read only when struct_size covers them) ---- */
  const rxt_collective_t* const* collectives;
  size_t num_collectives;
} rxt_plugin_descriptor_t;

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
