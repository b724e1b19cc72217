// The reference backend as a plugin: registers the backend "reference", whose kernels are
// ReferenceInterpreters. Only C crosses the plugin boundary, so every C++ exception stops here
// and becomes a status.
#include <dlpack/dlpack.h>
#include <rxt/plugin.h>
#include <rxt/plugin_support/host.h>

#include <exception>
#include <string>
#include <vector>

#include "reference_interpreter.h"

namespace {

using rxt::backend_reference::KernelArg;
using rxt::backend_reference::ReferenceInterpreter;
using rxt::plugin_support::MakeStatus;

// Bytes that do not decode are a corrupt kernel.
rxt_status_t LoadKernel(void* /*state*/, const char* /*kernel_name*/, const uint8_t* bytes, size_t size,
                        void** out_kernel) {
  try {
    *out_kernel = new ReferenceInterpreter(ReferenceInterpreter::FromBytes(bytes, size));
    return nullptr;
  } catch (const std::exception& e) {
    return MakeStatus(RXT_DATA_LOSS, e.what());
  } catch (...) {
    return MakeStatus(RXT_DATA_LOSS, "unknown error");
  }
}

// A scalar parameter arrives as a 0-d int64 or float64 tensor (see rxt_backend_t).
rxt_status_t ScalarArg(const DLTensor* t, int index, KernelArg& arg) {
  bool is_int64 = t->dtype.code == kDLInt && t->dtype.bits == 64;
  bool is_float64 = t->dtype.code == kDLFloat && t->dtype.bits == 64;
  if (t->ndim != 0 || (!is_int64 && !is_float64) || t->data == nullptr) {
    return MakeStatus(RXT_INVALID_ARGUMENT,
                      "scalar argument " + std::to_string(index) + " is not a 0-d int64 or float64 tensor");
  }
  const auto* data = static_cast<const uint8_t*>(t->data) + t->byte_offset;
  arg = is_float64 ? KernelArg::Float(*reinterpret_cast<const double*>(data))
                   : KernelArg::Int(*reinterpret_cast<const int64_t*>(data));
  return nullptr;
}

rxt_status_t CallKernel(void* /*state*/, void* kernel, DLTensor* const* args, int num_args) {
  if (kernel == nullptr || (num_args > 0 && args == nullptr)) {
    return MakeStatus(RXT_INVALID_ARGUMENT, "null kernel or arguments");
  }
  try {
    const auto& interpreter = *static_cast<const ReferenceInterpreter*>(kernel);
    const auto& params = interpreter.kernel().params;
    if (num_args != static_cast<int>(params.size())) {
      return MakeStatus(RXT_INVALID_ARGUMENT, "expected " + std::to_string(params.size()) + " arguments, got " +
                                                  std::to_string(num_args));
    }
    std::vector<KernelArg> kernel_args(num_args);
    for (int i = 0; i < num_args; ++i) {
      const DLTensor* t = args[i];
      if (t == nullptr) return MakeStatus(RXT_INVALID_ARGUMENT, "argument " + std::to_string(i) + " is null");
      if (params[i].kind == rxt::plugin_support::kernel_format::ParamKind::kScalar) {
        if (rxt_status_t bad = ScalarArg(t, i, kernel_args[i])) return bad;
      } else {
        kernel_args[i] = KernelArg::Tensor(t);
      }
    }
    interpreter.Run(kernel_args);
    return nullptr;
  } catch (const std::exception& e) {
    // KernelError: a bad argument or a fault while running (out of bounds, division by zero).
    return MakeStatus(RXT_INVALID_ARGUMENT, e.what());
  } catch (...) {
    return MakeStatus(RXT_INVALID_ARGUMENT, "unknown error");
  }
}

void FreeKernel(void* /*state*/, void* kernel) { delete static_cast<ReferenceInterpreter*>(kernel); }

// No emit_library: the reference backend only interprets.
const rxt_backend_t kBackend = {
    sizeof(rxt_backend_t), "reference",
    "Interprets portable kernels, checked and serial: the correctness oracle of every backend.", nullptr,
    &LoadKernel, &CallKernel, &FreeKernel, nullptr};
const rxt_backend_t* const kBackends[] = {&kBackend};

const rxt_plugin_descriptor_t kDescriptor = {
    sizeof(rxt_plugin_descriptor_t), RXT_PLUGIN_ABI_VERSION, "rxt_backend_reference", "0.1.0",
    "The reference backend: an interpreter of portable kernels.", nullptr, 0, nullptr, 0, nullptr, 0, kBackends, 1,
    nullptr, 0, nullptr, 0, nullptr, 0};

}  // namespace

RXT_PLUGIN_EXPORT const rxt_plugin_descriptor_t* rxt_plugin_entry(uint32_t host_abi_version,
                                                                  const rxt_host_api_t* host) {
  if (!rxt::plugin_support::ConnectHost(host_abi_version, host, "rxt_backend_reference")) return nullptr;
  return &kDescriptor;
}
