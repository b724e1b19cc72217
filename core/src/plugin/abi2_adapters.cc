#include "abi2_adapters.h"

#include <cstring>

#include "rxt/support/c_status.h"
#include "rxt/support/error.h"

namespace rxt::plugin_detail {
namespace {

// The message buffers hosts of version 2 handed out (plugins may fill one without a NUL).
constexpr size_t kKernelErrorCapacity = 1024;
constexpr size_t kLibraryErrorCapacity = 2048;
constexpr size_t kExternErrorCapacity = 512;

std::string BufferText(const char* buffer, size_t capacity) { return std::string(buffer, strnlen(buffer, capacity)); }

/// Version 2's outcome of an IR generator: the builder's error, if any, is the failure (the host
/// reports it, as an invalid argument); a failing code without one is reported by its name.
rxt_status_t GeneratorOutcome(const rxt_ir_api_t* ir, rxt_ir_builder_t* b, rxt_code_t code) {
  ErrorCode error = ErrorCodeFromC(code);
  if (error == ErrorCode::kOk || ir->error(b) != nullptr) return nullptr;
  return MakeCStatus(ErrorCode::kInvalidArgument, StrCat("failed with ", ErrorCodeName(error), " without a message"));
}

template <typename Fn>
Fn FunctionOf(void* state) {
  return reinterpret_cast<Fn>(static_cast<const Abi2Callback*>(state)->function);
}

rxt_status_t BuildUpdate(void* state, const rxt_ir_api_t* ir, rxt_ir_builder_t* b, const char* options,
                         const rxt_ir_expr_t* params, const rxt_ir_expr_t* grads, int num_params,
                         rxt_ir_expr_t* new_params) {
  rxt_code_t code = FunctionOf<abi2::OptimizerFn>(state)(ir, b, options, params, grads, num_params, new_params);
  return GeneratorOutcome(ir, b, code);
}

rxt_status_t BuildLoss(void* state, const rxt_ir_api_t* ir, rxt_ir_builder_t* b, const char* options,
                       rxt_ir_expr_t prediction, rxt_ir_expr_t* loss) {
  return GeneratorOutcome(ir, b, FunctionOf<abi2::LossFn>(state)(ir, b, options, prediction, loss));
}

rxt_status_t BuildGradient(void* state, const rxt_ir_api_t* ir, rxt_ir_builder_t* b, rxt_ir_expr_t call,
                           rxt_ir_expr_t output, rxt_ir_expr_t output_grad, rxt_ir_expr_t* input_grads) {
  rxt_code_t code = FunctionOf<abi2::GradientRuleFn>(state)(ir, b, call, output, output_grad, input_grads);
  return GeneratorOutcome(ir, b, code);
}

// A failed load was a corrupt kernel to hosts of version 2, whatever the backend said.
rxt_status_t LoadKernel(void* state, const char* kernel_name, const uint8_t* bytes, size_t size, void** out_kernel) {
  const auto& backend = *static_cast<const abi2::Backend*>(state);
  char error[kKernelErrorCapacity] = {};
  void* kernel = backend.load_kernel(backend.state, kernel_name, bytes, size, error, sizeof error);
  if (kernel == nullptr) return MakeCStatus(ErrorCode::kDataLoss, BufferText(error, sizeof error));
  *out_kernel = kernel;
  return nullptr;
}

rxt_status_t CallKernel(void* state, void* kernel, DLTensor* const* args, int num_args) {
  const auto& backend = *static_cast<const abi2::Backend*>(state);
  // DLTensor* and void* share their representation: the array is passed as it is.
  char error[kKernelErrorCapacity];
  error[0] = '\0';
  rxt_code_t code = backend.call_kernel(backend.state, kernel, reinterpret_cast<void* const*>(args), num_args, error,
                                        sizeof error);
  ErrorCode failure = ErrorCodeFromC(code);
  return failure == ErrorCode::kOk ? nullptr : MakeCStatus(failure, BufferText(error, sizeof error));
}

void FreeKernel(void* state, void* kernel) {
  const auto& backend = *static_cast<const abi2::Backend*>(state);
  backend.free_kernel(backend.state, kernel);
}

rxt_status_t EmitLibrary(void* state, const rxt_aot_kernel_t* kernels, size_t num_kernels, const char* output_path) {
  const auto& backend = *static_cast<const abi2::Backend*>(state);
  char error[kLibraryErrorCapacity] = {};
  rxt_code_t code = backend.emit_library(backend.state, kernels, num_kernels, output_path, error, sizeof error);
  ErrorCode failure = ErrorCodeFromC(code);
  return failure == ErrorCode::kOk ? nullptr : MakeCStatus(failure, BufferText(error, sizeof error));
}

rxt_status_t CallExtern(void* state, DLTensor* const* args, int num_args) {
  const auto& callback = *static_cast<const Abi2Callback*>(state);
  char error[kExternErrorCapacity] = {};
  int failed = reinterpret_cast<abi2::ExternFn>(callback.function)(reinterpret_cast<void* const*>(args), num_args,
                                                                    callback.user_data, error, sizeof error);
  if (failed == 0) return nullptr;
  std::string message = BufferText(error, sizeof error);
  return MakeCStatus(ErrorCode::kInvalidArgument, message.empty() ? "failed (no message)" : message);
}

}  // namespace

Abi2Callback* Abi2Adapters::Keep(abi2::Fn function, void* user_data) {
  return &callbacks_.emplace_back(Abi2Callback{function, user_data});
}

const rxt_optimizer_t* Abi2Adapters::Optimizer(const abi2::Item& item) {
  return &optimizers_.emplace_back(
      rxt_optimizer_t{sizeof(rxt_optimizer_t), item.name, item.summary, Keep(item.callback, nullptr), &BuildUpdate});
}

const rxt_loss_t* Abi2Adapters::Loss(const abi2::Item& item) {
  return &losses_.emplace_back(
      rxt_loss_t{sizeof(rxt_loss_t), item.name, item.summary, Keep(item.callback, nullptr), &BuildLoss});
}

const rxt_gradient_rule_t* Abi2Adapters::GradientRule(const abi2::Item& item) {
  return &rules_.emplace_back(rxt_gradient_rule_t{sizeof(rxt_gradient_rule_t), item.name, item.summary,
                                                  Keep(item.callback, nullptr), &BuildGradient});
}

const rxt_backend_t* Abi2Adapters::Backend(const abi2::Item& item, const std::string& where) {
  if (item.user_data == nullptr) {
    Throw(ErrorCode::kFailedPrecondition, where, " cannot run kernels: the plugin gives no rxt_backend_t");
  }
  const auto& backend = *static_cast<const abi2::Backend*>(item.user_data);
  if (backend.struct_size < offsetof(abi2::Backend, free_kernel) + sizeof(backend.free_kernel)) {
    Throw(ErrorCode::kInvalidArgument, where, ": its rxt_backend_t is too small (struct_size ", backend.struct_size,
          ")");
  }
  if (backend.name == nullptr || std::strcmp(item.name, backend.name) != 0) {
    Throw(ErrorCode::kInvalidArgument, where, ": its rxt_backend_t is named '",
          backend.name == nullptr ? "" : backend.name, "'");
  }
  if (backend.load_kernel == nullptr || backend.call_kernel == nullptr || backend.free_kernel == nullptr) {
    Throw(ErrorCode::kInvalidArgument, where, ": its rxt_backend_t lacks a callback");
  }
  bool emits = backend.struct_size >= offsetof(abi2::Backend, emit_library) + sizeof(backend.emit_library) &&
               backend.emit_library != nullptr;
  return &backends_.emplace_back(rxt_backend_t{sizeof(rxt_backend_t), item.name, item.summary,
                                               const_cast<abi2::Backend*>(&backend), &LoadKernel, &CallKernel,
                                               &FreeKernel, emits ? &EmitLibrary : nullptr});
}

const rxt_extern_t* Abi2Adapters::Extern(const std::string& name, abi2::ExternFn function, void* user_data) {
  const std::string& kept = names_.emplace_back(name);
  return &externs_.emplace_back(rxt_extern_t{sizeof(rxt_extern_t), kept.c_str(), nullptr,
                                             Keep(reinterpret_cast<abi2::Fn>(function), user_data), &CallExtern});
}

}  // namespace rxt::plugin_detail
