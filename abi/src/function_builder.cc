// Building functions across the ABI: the plugin IR table (rxt/ir_builder.h) over one dataflow
// block, with parameters declared through param(), assembled into a module by finish.
#include <memory>
#include <vector>

#include "api.h"
#include "rxt/ir/builder.h"
#include "rxt/ir/expr.h"
#include "rxt/ir/struct_info.h"
#include "rxt/plugin/ir_builder_host.h"
#include "rxt/runtime/dlpack.h"

struct rxt_function_builder_s {
  rxt::BlockBuilder builder;
  std::unique_ptr<rxt::IRBuilderHost> host;
  bool finished = false;

  rxt_function_builder_s() {
    builder.BeginDataflowBlock();
    host = std::make_unique<rxt::IRBuilderHost>(builder, rxt::IRBuilderHost::Options{.allow_params = true});
  }
};

namespace {

/// The expression behind result |handle|; throws naming |index| for a foreign or NULL handle.
rxt::Expr ResultOf(rxt_function_builder_t* fb, rxt_ir_expr_s* handle, size_t index) {
  rxt::Expr e = fb->host->Unwrap(handle);
  if (e == nullptr) {
    rxt::Throw(rxt::ErrorCode::kInvalidArgument, "rxt_function_builder_finish: result ", index,
               " is NULL or not an expression of this builder");
  }
  return e;
}

/// What leaves the dataflow block: a dataflow variable is bound to an output variable.
rxt::Expr Output(rxt_function_builder_t* fb, const rxt::Expr& e) {
  const auto* var = e->As<rxt::VarNode>();
  return var != nullptr && var->is_dataflow ? fb->builder.EmitOutput(e, "gv") : e;
}

}  // namespace

extern "C" {

const rxt_ir_api_t* rxt_ir_api(void) { return rxt::IRBuilderHost::Api(); }

rxt_status_t rxt_function_builder_create(rxt_function_builder_t** out_builder) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(out_builder);
  *out_builder = new rxt_function_builder_s();
  RXT_API_END();
}

rxt_ir_builder_t* rxt_function_builder_ir(rxt_function_builder_t* builder) {
  return builder != nullptr ? builder->host->handle() : nullptr;
}

rxt_status_t rxt_function_builder_constant(rxt_function_builder_t* builder, const DLTensor* value,
                                           rxt_ir_expr_s** out_expr) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(builder);
  RXT_CHECK_ARG(value);
  RXT_CHECK_ARG(out_expr);
  *out_expr = builder->host->Wrap(rxt::MakeConstant(rxt::CopyFromDLTensor(*value)));
  RXT_API_END();
}

rxt_status_t rxt_function_builder_finish(rxt_function_builder_t* builder, const char* name,
                                         rxt_ir_expr_s* const* results, size_t num_results,
                                         rxt_module_t** out_module) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(builder);
  RXT_CHECK_ARG(name);
  RXT_CHECK_ARG(out_module);
  if (num_results > 0) RXT_CHECK_ARG(results);
  if (builder->finished) rxt::Throw(rxt::ErrorCode::kFailedPrecondition, "rxt_function_builder_finish: finished already");
  if (builder->host->failed()) rxt::Throw(rxt::ErrorCode::kInvalidArgument, builder->host->error());
  if (num_results == 0) rxt::Throw(rxt::ErrorCode::kInvalidArgument, "rxt_function_builder_finish: no results");
  std::vector<rxt::Expr> values;
  for (size_t i = 0; i < num_results; ++i) values.push_back(ResultOf(builder, results[i], i));
  builder->finished = true;  // (nothing was added to the block before every result was checked)
  for (rxt::Expr& value : values) value = Output(builder, value);
  std::vector<rxt::BindingBlock> blocks{builder->builder.EndBlock()};
  rxt::Expr body = values.size() == 1 ? values[0] : builder->builder.Normalize(rxt::MakeTuple(values));
  rxt::Function function = rxt::MakeFunction(builder->host->params(), rxt::MakeSeqFromBlocks(std::move(blocks), body),
                                             rxt::GetStructInfo(body));
  rxt::IRModule module;
  module.Add(name, function);
  *out_module = rxt::abi_impl::Wrap(std::move(module));
  RXT_API_END();
}

void rxt_function_builder_free(rxt_function_builder_t* builder) { delete builder; }

}  // extern "C"
