/* The layout of every table and vtable of the plugin ABI, pinned: a reordered, retyped or
 * inserted member changes an offset below and breaks the build, before it breaks a plugin
 * built against the published header. Members are only ever appended (and sizeof grows); a
 * change here is a new ABI version (docs/plugins.md, "Versions"). The numbers are for LP64
 * (x86-64, aarch64 Linux), the platforms rxt builds for. Compiled as C11 for _Static_assert;
 * the headers themselves are C99. */
#include <rxt/compiled_kernel.h>
#include <rxt/ir_builder.h>
#include <rxt/plugin.h>
#include <rxt/tensor_expr.h>
#include <stddef.h>

#include "check.h"

_Static_assert(sizeof(void*) == 8 && sizeof(size_t) == 8, "the layouts below are LP64's");

#define RXT_AT(type, member, offset) \
  _Static_assert(offsetof(type, member) == (offset), #type "." #member " moved")

/* The vtable rxt_optimizer_t: struct_size, name, summary, state, then its functions. */
RXT_AT(rxt_optimizer_t, struct_size, 0);
RXT_AT(rxt_optimizer_t, name, 8);
RXT_AT(rxt_optimizer_t, summary, 16);
RXT_AT(rxt_optimizer_t, state, 24);
RXT_AT(rxt_optimizer_t, build, 32);
_Static_assert(sizeof(rxt_optimizer_t) == 40, "rxt_optimizer_t grew or shrank");

/* The vtable rxt_loss_t: struct_size, name, summary, state, then its functions. */
RXT_AT(rxt_loss_t, struct_size, 0);
RXT_AT(rxt_loss_t, name, 8);
RXT_AT(rxt_loss_t, summary, 16);
RXT_AT(rxt_loss_t, state, 24);
RXT_AT(rxt_loss_t, build, 32);
_Static_assert(sizeof(rxt_loss_t) == 40, "rxt_loss_t grew or shrank");

/* The vtable rxt_gradient_rule_t: struct_size, name, summary, state, then its functions. */
RXT_AT(rxt_gradient_rule_t, struct_size, 0);
RXT_AT(rxt_gradient_rule_t, name, 8);
RXT_AT(rxt_gradient_rule_t, summary, 16);
RXT_AT(rxt_gradient_rule_t, state, 24);
RXT_AT(rxt_gradient_rule_t, build, 32);
_Static_assert(sizeof(rxt_gradient_rule_t) == 40, "rxt_gradient_rule_t grew or shrank");

/* One kernel handed to rxt_backend_t.emit_library. */
RXT_AT(rxt_aot_kernel_t, name, 0);
RXT_AT(rxt_aot_kernel_t, bytes, 8);
RXT_AT(rxt_aot_kernel_t, size, 16);
RXT_AT(rxt_aot_kernel_t, symbol, 24);
_Static_assert(sizeof(rxt_aot_kernel_t) == 32, "rxt_aot_kernel_t grew or shrank");

/* The vtable rxt_backend_t: struct_size, name, summary, state, then its functions. */
RXT_AT(rxt_backend_t, struct_size, 0);
RXT_AT(rxt_backend_t, name, 8);
RXT_AT(rxt_backend_t, summary, 16);
RXT_AT(rxt_backend_t, state, 24);
RXT_AT(rxt_backend_t, load_kernel, 32);
RXT_AT(rxt_backend_t, call_kernel, 40);
RXT_AT(rxt_backend_t, free_kernel, 48);
RXT_AT(rxt_backend_t, emit_library, 56);
RXT_AT(rxt_backend_t, preferred_libraries, 64);
RXT_AT(rxt_backend_t, flags, 72);
RXT_AT(rxt_backend_t, emit_library_for, 80);
_Static_assert(sizeof(rxt_backend_t) == 88, "rxt_backend_t grew or shrank");

/* The machine of rxt_backend_t.emit_library_for. */
RXT_AT(rxt_aot_target_t, struct_size, 0);
RXT_AT(rxt_aot_target_t, triple, 8);
RXT_AT(rxt_aot_target_t, cpu, 16);
RXT_AT(rxt_aot_target_t, features, 24);
_Static_assert(sizeof(rxt_aot_target_t) == 32, "rxt_aot_target_t grew or shrank");

/* The vtable rxt_extern_t: struct_size, name, summary, state, then its functions. */
RXT_AT(rxt_extern_t, struct_size, 0);
RXT_AT(rxt_extern_t, name, 8);
RXT_AT(rxt_extern_t, summary, 16);
RXT_AT(rxt_extern_t, state, 24);
RXT_AT(rxt_extern_t, function, 32);
_Static_assert(sizeof(rxt_extern_t) == 40, "rxt_extern_t grew or shrank");

/* The vtable rxt_op_t: struct_size, name, summary, state, its schema, then its functions. */
RXT_AT(rxt_op_t, struct_size, 0);
RXT_AT(rxt_op_t, name, 8);
RXT_AT(rxt_op_t, summary, 16);
RXT_AT(rxt_op_t, state, 24);
RXT_AT(rxt_op_t, inputs, 32);
RXT_AT(rxt_op_t, num_inputs, 40);
RXT_AT(rxt_op_t, attrs, 48);
RXT_AT(rxt_op_t, num_attrs, 56);
RXT_AT(rxt_op_t, infer_struct_info, 64);
RXT_AT(rxt_op_t, legalize, 72);
_Static_assert(sizeof(rxt_op_t) == 80, "rxt_op_t grew or shrank");

/* An attribute of an op. */
RXT_AT(rxt_op_attr_t, name, 0);
RXT_AT(rxt_op_attr_t, kind, 8);
RXT_AT(rxt_op_attr_t, default_value, 16);
RXT_AT(rxt_op_attr_t, doc, 24);
_Static_assert(sizeof(rxt_op_attr_t) == 32, "rxt_op_attr_t grew or shrank");

/* A kernel library: the vtable rxt_library_t, its patterns (data plus a callback) and what a
 * pattern's rewrite reads (rxt_library_match_t, rxt_library_call_t) and fills
 * (rxt_library_rewrite_t). */
RXT_AT(rxt_library_call_t, call, 0);
RXT_AT(rxt_library_call_t, result, 8);
RXT_AT(rxt_library_call_t, producers, 16);
_Static_assert(sizeof(rxt_library_call_t) == 24, "rxt_library_call_t grew or shrank");
RXT_AT(rxt_library_match_t, struct_size, 0);
RXT_AT(rxt_library_match_t, calls, 8);
RXT_AT(rxt_library_match_t, num_calls, 16);
RXT_AT(rxt_library_match_t, siblings, 24);
RXT_AT(rxt_library_match_t, num_siblings, 32);
_Static_assert(sizeof(rxt_library_match_t) == 40, "rxt_library_match_t grew or shrank");
RXT_AT(rxt_library_rewrite_t, struct_size, 0);
RXT_AT(rxt_library_rewrite_t, value, 8);
RXT_AT(rxt_library_rewrite_t, num_calls, 16);
RXT_AT(rxt_library_rewrite_t, sibling, 20);
_Static_assert(sizeof(rxt_library_rewrite_t) == 24, "rxt_library_rewrite_t grew or shrank");
RXT_AT(rxt_library_pattern_t, struct_size, 0);
RXT_AT(rxt_library_pattern_t, name, 8);
RXT_AT(rxt_library_pattern_t, anchor, 16);
RXT_AT(rxt_library_pattern_t, epilogue, 24);
RXT_AT(rxt_library_pattern_t, input_ops, 32);
RXT_AT(rxt_library_pattern_t, sibling_ops, 40);
RXT_AT(rxt_library_pattern_t, rewrite, 48);
_Static_assert(sizeof(rxt_library_pattern_t) == 56, "rxt_library_pattern_t grew or shrank");
/* An importer and the host's sink table it writes through. */
RXT_AT(rxt_importer_t, struct_size, 0);
RXT_AT(rxt_importer_t, name, 8);
RXT_AT(rxt_importer_t, summary, 16);
RXT_AT(rxt_importer_t, state, 24);
RXT_AT(rxt_importer_t, extensions, 32);
RXT_AT(rxt_importer_t, import, 40);
_Static_assert(sizeof(rxt_importer_t) == 48, "rxt_importer_t grew or shrank");
RXT_AT(rxt_import_sink_api_t, struct_size, 0);
RXT_AT(rxt_import_sink_api_t, write_text, 8);
RXT_AT(rxt_import_sink_api_t, add_value, 16);
_Static_assert(sizeof(rxt_import_sink_api_t) == 24, "rxt_import_sink_api_t grew or shrank");
/* An exporter, the graph it reads and the sink it writes through. */
RXT_AT(rxt_exporter_t, struct_size, 0);
RXT_AT(rxt_exporter_t, name, 8);
RXT_AT(rxt_exporter_t, summary, 16);
RXT_AT(rxt_exporter_t, state, 24);
RXT_AT(rxt_exporter_t, extensions, 32);
RXT_AT(rxt_exporter_t, export_graph, 40);
_Static_assert(sizeof(rxt_exporter_t) == 48, "rxt_exporter_t grew or shrank");

/* The vtable rxt_collective_t: struct_size, name, summary, state, then its functions. */
RXT_AT(rxt_collective_t, struct_size, 0);
RXT_AT(rxt_collective_t, name, 8);
RXT_AT(rxt_collective_t, summary, 16);
RXT_AT(rxt_collective_t, state, 24);
RXT_AT(rxt_collective_t, create, 32);
RXT_AT(rxt_collective_t, destroy, 40);
RXT_AT(rxt_collective_t, rank, 48);
RXT_AT(rxt_collective_t, size, 56);
RXT_AT(rxt_collective_t, allreduce, 64);
RXT_AT(rxt_collective_t, broadcast, 72);
RXT_AT(rxt_collective_t, barrier, 80);
RXT_AT(rxt_collective_t, abort, 88);  /* appended within v3: optional */
RXT_AT(rxt_collective_t, allreduce_start, 96);  /* appended within v3: optional, with wait */
RXT_AT(rxt_collective_t, wait, 104);
_Static_assert(sizeof(rxt_collective_t) == 112, "rxt_collective_t grew or shrank");
_Static_assert(sizeof(rxt_reduce_op_t) == 4 && RXT_REDUCE_SUM == 0 && RXT_REDUCE_MEAN == 1, "rxt_reduce_op_t changed");
RXT_AT(rxt_export_graph_t, struct_size, 0);
RXT_AT(rxt_export_graph_t, name, 8);
RXT_AT(rxt_export_graph_t, num_inputs, 16);
RXT_AT(rxt_export_graph_t, inputs, 24);
RXT_AT(rxt_export_graph_t, values, 32);
RXT_AT(rxt_export_graph_t, num_bindings, 40);
RXT_AT(rxt_export_graph_t, vars, 48);
RXT_AT(rxt_export_graph_t, bound, 56);
RXT_AT(rxt_export_graph_t, output, 64);
_Static_assert(sizeof(rxt_export_graph_t) == 72, "rxt_export_graph_t grew or shrank");
RXT_AT(rxt_export_sink_api_t, struct_size, 0);
RXT_AT(rxt_export_sink_api_t, write, 8);
_Static_assert(sizeof(rxt_export_sink_api_t) == 16, "rxt_export_sink_api_t grew or shrank");

RXT_AT(rxt_library_t, struct_size, 0);
RXT_AT(rxt_library_t, name, 8);
RXT_AT(rxt_library_t, summary, 16);
RXT_AT(rxt_library_t, state, 24);
RXT_AT(rxt_library_t, patterns, 32);
RXT_AT(rxt_library_t, num_patterns, 40);
_Static_assert(sizeof(rxt_library_t) == 48, "rxt_library_t grew or shrank");

/* The host table. Its first ten members are where ABI 2 had them (plugins of that version
 * call the abi2_* slots); members of version 3 follow. */
RXT_AT(rxt_host_api_t, struct_size, 0);
RXT_AT(rxt_host_api_t, abi_version, 8);
RXT_AT(rxt_host_api_t, host, 16);
RXT_AT(rxt_host_api_t, log, 24);
RXT_AT(rxt_host_api_t, abi2_register_optimizer, 32);
RXT_AT(rxt_host_api_t, abi2_register_loss, 40);
RXT_AT(rxt_host_api_t, abi2_register_gradient, 48);
RXT_AT(rxt_host_api_t, abi2_register_backend, 56);
RXT_AT(rxt_host_api_t, abi2_register_extern, 64);
RXT_AT(rxt_host_api_t, kernel_runtime, 72);
RXT_AT(rxt_host_api_t, status_create, 80);
RXT_AT(rxt_host_api_t, status_code, 88);
RXT_AT(rxt_host_api_t, status_message, 96);
RXT_AT(rxt_host_api_t, status_free, 104);
RXT_AT(rxt_host_api_t, register_optimizer, 112);
RXT_AT(rxt_host_api_t, register_loss, 120);
RXT_AT(rxt_host_api_t, register_gradient_rule, 128);
RXT_AT(rxt_host_api_t, register_backend, 136);
RXT_AT(rxt_host_api_t, register_extern, 144);
RXT_AT(rxt_host_api_t, register_op, 152);
RXT_AT(rxt_host_api_t, register_library, 160);
RXT_AT(rxt_host_api_t, register_importer, 168);
RXT_AT(rxt_host_api_t, register_exporter, 176);
RXT_AT(rxt_host_api_t, register_collective, 184);
_Static_assert(sizeof(rxt_host_api_t) == 192, "rxt_host_api_t grew or shrank");

/* The descriptor. struct_size and abi_version are where every version had them: the host
 * reads the version first, then the rest by its layout. */
RXT_AT(rxt_plugin_descriptor_t, struct_size, 0);
RXT_AT(rxt_plugin_descriptor_t, abi_version, 8);
RXT_AT(rxt_plugin_descriptor_t, name, 16);
RXT_AT(rxt_plugin_descriptor_t, version, 24);
RXT_AT(rxt_plugin_descriptor_t, summary, 32);
RXT_AT(rxt_plugin_descriptor_t, optimizers, 40);
RXT_AT(rxt_plugin_descriptor_t, num_optimizers, 48);
RXT_AT(rxt_plugin_descriptor_t, losses, 56);
RXT_AT(rxt_plugin_descriptor_t, num_losses, 64);
RXT_AT(rxt_plugin_descriptor_t, gradient_rules, 72);
RXT_AT(rxt_plugin_descriptor_t, num_gradient_rules, 80);
RXT_AT(rxt_plugin_descriptor_t, backends, 88);
RXT_AT(rxt_plugin_descriptor_t, num_backends, 96);
RXT_AT(rxt_plugin_descriptor_t, externs, 104);
RXT_AT(rxt_plugin_descriptor_t, num_externs, 112);
RXT_AT(rxt_plugin_descriptor_t, ops, 120);
RXT_AT(rxt_plugin_descriptor_t, num_ops, 128);
RXT_AT(rxt_plugin_descriptor_t, libraries, 136);
RXT_AT(rxt_plugin_descriptor_t, num_libraries, 144);
RXT_AT(rxt_plugin_descriptor_t, importers, 152);
RXT_AT(rxt_plugin_descriptor_t, num_importers, 160);
RXT_AT(rxt_plugin_descriptor_t, exporters, 168);
RXT_AT(rxt_plugin_descriptor_t, num_exporters, 176);
RXT_AT(rxt_plugin_descriptor_t, collectives, 184);
RXT_AT(rxt_plugin_descriptor_t, num_collectives, 192);
_Static_assert(sizeof(rxt_plugin_descriptor_t) == 200, "rxt_plugin_descriptor_t grew or shrank");

/* The IR table (rxt/ir_builder.h), shared by plugins of versions 2 and 3. */
RXT_AT(rxt_ir_api_t, struct_size, 0);
RXT_AT(rxt_ir_api_t, op_name, 8);
RXT_AT(rxt_ir_api_t, num_args, 16);
RXT_AT(rxt_ir_api_t, arg, 24);
RXT_AT(rxt_ir_api_t, attr_int, 32);
RXT_AT(rxt_ir_api_t, attr_float, 40);
RXT_AT(rxt_ir_api_t, attr_bool, 48);
RXT_AT(rxt_ir_api_t, attr_string, 56);
RXT_AT(rxt_ir_api_t, attr_ints, 64);
RXT_AT(rxt_ir_api_t, attr_text, 72);
RXT_AT(rxt_ir_api_t, is_tensor, 80);
RXT_AT(rxt_ir_api_t, ndim, 88);
RXT_AT(rxt_ir_api_t, dtype, 96);
RXT_AT(rxt_ir_api_t, dim, 104);
RXT_AT(rxt_ir_api_t, tuple_size, 112);
RXT_AT(rxt_ir_api_t, struct_info_text, 120);
RXT_AT(rxt_ir_api_t, op, 128);
RXT_AT(rxt_ir_api_t, scalar, 136);
RXT_AT(rxt_ir_api_t, constant, 144);
RXT_AT(rxt_ir_api_t, shape_of, 152);
RXT_AT(rxt_ir_api_t, shape, 160);
RXT_AT(rxt_ir_api_t, tuple, 168);
RXT_AT(rxt_ir_api_t, get_item, 176);
RXT_AT(rxt_ir_api_t, param, 184);
RXT_AT(rxt_ir_api_t, state, 192);
RXT_AT(rxt_ir_api_t, set_state, 200);
RXT_AT(rxt_ir_api_t, error, 208);
RXT_AT(rxt_ir_api_t, fail, 216);
RXT_AT(rxt_ir_api_t, dim_text, 224);
RXT_AT(rxt_ir_api_t, prim, 232);
RXT_AT(rxt_ir_api_t, option_int, 240);
RXT_AT(rxt_ir_api_t, option_float, 248);
RXT_AT(rxt_ir_api_t, option_bool, 256);
RXT_AT(rxt_ir_api_t, option_string, 264);
RXT_AT(rxt_ir_api_t, option_floats, 272);
RXT_AT(rxt_ir_api_t, check_options, 280);
RXT_AT(rxt_ir_api_t, set_struct_info, 288);
RXT_AT(rxt_ir_api_t, call_extern, 296);
RXT_AT(rxt_ir_api_t, constant_value, 304);
RXT_AT(rxt_ir_api_t, expr_kind, 312);
RXT_AT(rxt_ir_api_t, var_name, 320);
RXT_AT(rxt_ir_api_t, constant_tensor, 328);
RXT_AT(rxt_ir_api_t, num_fields, 336);
RXT_AT(rxt_ir_api_t, field, 344);
RXT_AT(rxt_ir_api_t, item_of, 352);
RXT_AT(rxt_ir_api_t, shape_ndim, 360);
RXT_AT(rxt_ir_api_t, shape_dim, 368);
RXT_AT(rxt_ir_api_t, shape_dim_text, 376);
RXT_AT(rxt_ir_api_t, prim_value, 384);
_Static_assert(sizeof(rxt_ir_api_t) == 392, "rxt_ir_api_t grew or shrank");

/* The tensor-expression table of op plugins (rxt/tensor_expr.h). */
RXT_AT(rxt_te_api_t, struct_size, 0);
RXT_AT(rxt_te_api_t, input, 8);
RXT_AT(rxt_te_api_t, ndim, 16);
RXT_AT(rxt_te_api_t, dtype, 24);
RXT_AT(rxt_te_api_t, dim, 32);
RXT_AT(rxt_te_api_t, load, 40);
RXT_AT(rxt_te_api_t, constant, 48);
RXT_AT(rxt_te_api_t, binary, 56);
RXT_AT(rxt_te_api_t, call, 64);
RXT_AT(rxt_te_api_t, select, 72);
RXT_AT(rxt_te_api_t, cast, 80);
RXT_AT(rxt_te_api_t, axes, 88);
RXT_AT(rxt_te_api_t, compute, 96);
RXT_AT(rxt_te_api_t, reduce, 104);
RXT_AT(rxt_te_api_t, output, 112);
RXT_AT(rxt_te_api_t, error, 120);
RXT_AT(rxt_te_api_t, fail, 128);
_Static_assert(sizeof(rxt_te_api_t) == 136, "rxt_te_api_t grew or shrank");
_Static_assert(RXT_TE_ADD == 0 && RXT_TE_OR == 15 && RXT_TE_REDUCE_MIN == 2 && RXT_TE_REDUCE_PROD == 3,
               "rxt_te enums renumbered");

/* What compiled kernels and backends get of the host (rxt/compiled_kernel.h). */
RXT_AT(rxt_kernel_runtime_t, struct_size, 0);
RXT_AT(rxt_kernel_runtime_t, pool, 8);
RXT_AT(rxt_kernel_runtime_t, parallel_for, 16);
RXT_AT(rxt_kernel_runtime_t, num_threads, 24);
RXT_AT(rxt_kernel_runtime_t, current_num_threads, 32);
_Static_assert(sizeof(rxt_kernel_runtime_t) == 40, "rxt_kernel_runtime_t grew or shrank");

/* What a kernel library compiled ahead of time exports (rxt/compiled_kernel.h). */
RXT_AT(rxt_aot_library_info_t, version, 0);
RXT_AT(rxt_aot_library_info_t, kernel_format, 4);
RXT_AT(rxt_aot_library_info_t, target_triple, 8);
RXT_AT(rxt_aot_library_info_t, target_cpu, 16);
RXT_AT(rxt_aot_library_info_t, target_features, 24);
_Static_assert(sizeof(rxt_aot_library_info_t) == 32, "rxt_aot_library_info_t grew or shrank");

/* The same at run time, so that the test also reports something when it runs. */
static void test_vtables_start_with_their_size(void) {
  CHECK(offsetof(rxt_optimizer_t, struct_size) == 0 && offsetof(rxt_loss_t, struct_size) == 0);
  CHECK(offsetof(rxt_gradient_rule_t, struct_size) == 0 && offsetof(rxt_backend_t, struct_size) == 0);
  CHECK(offsetof(rxt_extern_t, struct_size) == 0 && offsetof(rxt_host_api_t, struct_size) == 0);
  CHECK(offsetof(rxt_library_t, struct_size) == 0 && offsetof(rxt_library_pattern_t, struct_size) == 0);
  CHECK(RXT_PLUGIN_ABI_VERSION == 3 && RXT_PLUGIN_ABI_MIN_VERSION == 1);
}

int main(void) {
  RUN(test_vtables_start_with_their_size);
  return check_report();
}
