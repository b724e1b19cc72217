// The training transforms across the ABI, one call each (the seed's low-level API): AppendLoss,
// Gradient, an optimizer's update function with its initial state, SetupTrainer, BindParams.
// Losses, optimizers and gradient rules come from the context's plugin host, through a session
// that loads the search path when one is missing.
#include <map>

#include "context_handle.h"
#include "rxt/exec/session.h"
#include "rxt/runtime/dlpack.h"
#include "rxt/transform/passes.h"
#include "rxt/transform/training/append_loss.h"
#include "rxt/transform/training/gradient.h"
#include "rxt/transform/training/setup_trainer.h"

namespace {

using rxt::ErrorCode;
using rxt::Throw;

std::string OrEmpty(const char* text) { return text != nullptr ? text : ""; }

/// |module|'s function |name|; kNotFound naming |caller| otherwise.
rxt::Function FunctionOf(const rxt::IRModule& module, const std::string& name, const char* caller) {
  rxt::Function function = module.FindFunction(name);
  if (function == nullptr) Throw(ErrorCode::kNotFound, caller, ": the module has no function @", name);
  return function;
}

/// The indices of |function|'s parameters named |names[0..count)|, in that order.
std::vector<int> ParamIndices(const rxt::FunctionNode& function, const std::string& function_name,
                              const char* const* names, size_t count, const char* caller) {
  if (count > 0 && names == nullptr) Throw(ErrorCode::kInvalidArgument, caller, ": the parameter names are NULL");
  std::vector<int> indices;
  for (size_t i = 0; i < count; ++i) {
    rxt::abi_impl::CheckArg(names[i], caller, "a parameter name");
    int found = -1;
    for (size_t p = 0; p < function.params.size(); ++p) {
      if (function.params[p]->name == names[i]) found = static_cast<int>(p);
    }
    if (found < 0) Throw(ErrorCode::kNotFound, caller, ": @", function_name, " has no parameter named '", names[i], "'");
    indices.push_back(found);
  }
  return indices;
}

}  // namespace

extern "C" {

rxt_status_t rxt_module_append_loss(const rxt_module_t* module, const char* function, const char* loss,
                                    const char* loss_options, int32_t num_backbone_outputs, const char* new_function,
                                    rxt_context_t* context, rxt_module_t** out_module) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(module);
  RXT_CHECK_ARG(function);
  RXT_CHECK_ARG(loss);
  RXT_CHECK_ARG(out_module);
  const rxt::IRModule& ir = rxt::abi_impl::Unwrap(module);
  rxt::Function backbone = FunctionOf(ir, function, __func__);
  rxt::Session session(rxt::abi_impl::ContextOf(context));
  *out_module = rxt::abi_impl::Wrap(session.WithTrainingPlugins([&] {
    // The loss takes the backbone's first result (its prediction).
    rxt::StructInfo prediction = backbone->ret_sinfo;
    if (const auto* tuple = prediction->As<rxt::TupleSINode>(); tuple != nullptr && !tuple->fields.empty()) {
      prediction = tuple->fields[0];
    }
    rxt::Function loss_function = rxt::MakeLossFunction({loss, OrEmpty(loss_options)}, prediction, &session.plugins());
    return rxt::AppendLoss(ir, function, loss_function, num_backbone_outputs, OrEmpty(new_function));
  }));
  RXT_API_END();
}

rxt_status_t rxt_module_gradient(const rxt_module_t* module, const char* function, const char* const* require_grads,
                                 size_t num_require_grads, int32_t target_index, rxt_context_t* context,
                                 rxt_module_t** out_module) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(module);
  RXT_CHECK_ARG(function);
  RXT_CHECK_ARG(out_module);
  const rxt::IRModule& ir = rxt::abi_impl::Unwrap(module);
  std::optional<std::vector<int>> indices;
  if (num_require_grads > 0) {
    indices = ParamIndices(*FunctionOf(ir, function, __func__), function, require_grads, num_require_grads, __func__);
  }
  rxt::Session session(rxt::abi_impl::ContextOf(context));
  *out_module = rxt::abi_impl::Wrap(
      session.WithTrainingPlugins([&] { return rxt::Gradient(ir, function, indices, target_index, &session.plugins()); }));
  RXT_API_END();
}

rxt_status_t rxt_module_add_optimizer(const rxt_module_t* module, const char* optimizer, const char* options,
                                      const char* function, const char* const* params, size_t num_params,
                                      const char* new_function, rxt_context_t* context, rxt_module_t** out_module,
                                      DLManagedTensor** out_states, size_t capacity, size_t* out_num_states) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(module);
  RXT_CHECK_ARG(optimizer);
  RXT_CHECK_ARG(function);
  RXT_CHECK_ARG(new_function);
  RXT_CHECK_ARG(out_module);
  RXT_CHECK_ARG(out_num_states);
  if (capacity > 0) RXT_CHECK_ARG(out_states);
  if (num_params == 0) Throw(ErrorCode::kInvalidArgument, __func__, ": no parameters to optimize");
  const rxt::IRModule& ir = rxt::abi_impl::Unwrap(module);
  const rxt::FunctionNode& f = *FunctionOf(ir, function, __func__);
  std::vector<rxt::StructInfo> param_sinfo;
  for (int index : ParamIndices(f, function, params, num_params, __func__)) {
    param_sinfo.push_back(f.params[index]->struct_info);
  }
  rxt::Session session(rxt::abi_impl::ContextOf(context));
  rxt::OptimizerInstance instance = session.WithTrainingPlugins(
      [&] { return rxt::MakeOptimizer({optimizer, OrEmpty(options)}, param_sinfo, &session.plugins()); });
  *out_num_states = instance.state.size();
  if (instance.state.size() > capacity) {
    Throw(ErrorCode::kOutOfRange, __func__, ": optimizer '", optimizer, "' has ", instance.state.size(),
          " state tensors, more than the ", capacity, " outputs given");
  }
  rxt::IRModule result = ir;
  result.Add(new_function, instance.function);
  std::vector<DLManagedTensor*> states;
  for (const rxt::Tensor& state : instance.state) states.push_back(rxt::ToDLPack(state));
  for (size_t i = 0; i < states.size(); ++i) out_states[i] = states[i];
  *out_module = rxt::abi_impl::Wrap(std::move(result));
  RXT_API_END();
}

rxt_status_t rxt_module_setup_trainer(const rxt_module_t* module, const char* loss, const char* loss_options,
                                      const char* optimizer, const char* optimizer_options, int32_t legalize,
                                      rxt_context_t* context, rxt_module_t** out_module) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(module);
  RXT_CHECK_ARG(loss);
  RXT_CHECK_ARG(optimizer);
  RXT_CHECK_ARG(out_module);
  rxt::Session session(rxt::abi_impl::ContextOf(context));
  rxt::TrainerSetup setup{.loss = {loss, OrEmpty(loss_options)},
                          .optimizer = {optimizer, OrEmpty(optimizer_options)},
                          .legalize = legalize != 0,
                          .plugins = &session.plugins()};
  *out_module = rxt::abi_impl::Wrap(
      session.WithTrainingPlugins([&] { return rxt::SetupTrainer(rxt::abi_impl::Unwrap(module), setup); }));
  RXT_API_END();
}

rxt_status_t rxt_module_bind_params(const rxt_module_t* module, const char* function, const char* const* names,
                                    DLManagedTensor* const* values, size_t count, rxt_module_t** out_module) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(module);
  RXT_CHECK_ARG(function);
  RXT_CHECK_ARG(out_module);
  if (count > 0) {
    RXT_CHECK_ARG(names);
    RXT_CHECK_ARG(values);
  }
  const rxt::IRModule& ir = rxt::abi_impl::Unwrap(module);
  FunctionOf(ir, function, __func__);
  std::map<std::string, rxt::Tensor> bound;
  for (size_t i = 0; i < count; ++i) {
    rxt::abi_impl::CheckArg(names[i], __func__, "names[i]");
    rxt::abi_impl::CheckArg(values[i], __func__, "values[i]");
    if (!bound.emplace(names[i], rxt::CopyFromDLTensor(values[i]->dl_tensor)).second) {
      Throw(ErrorCode::kInvalidArgument, __func__, ": parameter '", names[i], "' is given twice");
    }
  }
  *out_module = rxt::abi_impl::Wrap(rxt::BindParams(function, std::move(bound))(ir));
  RXT_API_END();
}

}  // extern "C"
