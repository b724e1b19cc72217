#include "cpu_kernel.h"

#include <stdexcept>

namespace rxt::backend_cpu {

rxt_code_t KernelCodeStatus(int32_t code) {
  switch (code) {
    case RXT_KERNEL_OK: return RXT_OK;
    case RXT_KERNEL_DIVISION_BY_ZERO: return RXT_INVALID_ARGUMENT;  // as the reference reports it
    default: return RXT_INTERNAL;
  }
}

std::unique_ptr<CpuKernel> CpuKernel::Load(JitCompiler& jit, const uint8_t* bytes, size_t size) {
  plugin_support::kernel_format::DecodeResult decoded = plugin_support::kernel_format::DecodeKernel(bytes, size);
  if (!decoded.ok()) throw std::runtime_error(decoded.error);
  std::unique_ptr<CpuKernel> kernel(new CpuKernel(std::move(decoded.kernel)));
  if (!kernel->binder_.error().empty()) throw std::runtime_error(kernel->binder_.error());
  kernel->code_ = jit.CompileShared(kernel->binder_.kernel(), std::string(reinterpret_cast<const char*>(bytes), size));
  return kernel;
}

rxt_code_t CpuKernel::Call(const DLTensor* const* args, int num_args, const rxt_kernel_runtime_t* runtime,
                           std::string& error) {
  if (!binder_.Bind(args, num_args, call_, error) || !binder_.CheckWrittenBuffersDistinct(call_, error)) {
    return RXT_INVALID_ARGUMENT;
  }
  int32_t code = code_->function()(call_.buffers.data(), call_.int_vars.data(), call_.float_vars.data(), runtime);
  if (code == RXT_KERNEL_OK) return RXT_OK;
  error = rxt_kernel_code_message(code);
  return KernelCodeStatus(code);
}

}  // namespace rxt::backend_cpu
