// The reference backend as a plugin: registers the backend "reference", whose kernels are
// ReferenceInterpreters. Only C crosses the plugin boundary, so every C++ exception stops here
// and becomes an error message.
#include <dlpack/dlpack.h>
#include <rxt/plugin.h>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "reference_interpreter.h"

namespace {

using rxt::backend_reference::KernelArg;
using rxt::backend_reference::ReferenceInterpreter;

void WriteError(char* error, size_t error_size, const char* message) {
  if (error != nullptr && error_size > 0) std::snprintf(error, error_size, "%s", message);
}

void* LoadKernel(void* /*state*/, const char* /*kernel_name*/, const uint8_t* bytes, size_t size, char* error,
                 size_t error_size) {
  try {
    return new ReferenceInterpreter(ReferenceInterpreter::FromBytes(bytes, size));
  } catch (const std::exception& e) {
    WriteError(error, error_size, e.what());
  } catch (...) {
    WriteError(error, error_size, "unknown error");
  }
  return nullptr;
}

// A scalar parameter arrives as a 0-d int64 or float64 tensor (see rxt_backend_t).
rxt_code_t ScalarArg(const DLTensor* t, int index, KernelArg& arg, char* error, size_t error_size) {
  bool is_int64 = t->dtype.code == kDLInt && t->dtype.bits == 64;
  bool is_float64 = t->dtype.code == kDLFloat && t->dtype.bits == 64;
  if (t->ndim != 0 || (!is_int64 && !is_float64) || t->data == nullptr) {
    std::string message = "scalar argument " + std::to_string(index) + " is not a 0-d int64 or float64 tensor";
    WriteError(error, error_size, message.c_str());
    return RXT_INVALID_ARGUMENT;
  }
  const auto* data = static_cast<const uint8_t*>(t->data) + t->byte_offset;
  arg = is_float64 ? KernelArg::Float(*reinterpret_cast<const double*>(data))
                   : KernelArg::Int(*reinterpret_cast<const int64_t*>(data));
  return RXT_OK;
}

rxt_code_t CallKernel(void* /*state*/, void* kernel, void* const* args, int num_args, char* error,
                      size_t error_size) {
  if (kernel == nullptr || (num_args > 0 && args == nullptr)) {
    WriteError(error, error_size, "null kernel or arguments");
    return RXT_INVALID_ARGUMENT;
  }
  try {
    const auto& interpreter = *static_cast<const ReferenceInterpreter*>(kernel);
    const auto& params = interpreter.kernel().params;
    if (num_args != static_cast<int>(params.size())) {
      std::string message = "expected " + std::to_string(params.size()) + " arguments, got " + std::to_string(num_args);
      WriteError(error, error_size, message.c_str());
      return RXT_INVALID_ARGUMENT;
    }
    std::vector<KernelArg> kernel_args(num_args);
    for (int i = 0; i < num_args; ++i) {
      const auto* t = static_cast<const DLTensor*>(args[i]);
      if (t == nullptr) {
        WriteError(error, error_size, ("argument " + std::to_string(i) + " is null").c_str());
        return RXT_INVALID_ARGUMENT;
      }
      if (params[i].kind == rxt::plugin_support::kernel_format::ParamKind::kScalar) {
        rxt_code_t code = ScalarArg(t, i, kernel_args[i], error, error_size);
        if (code != RXT_OK) return code;
      } else {
        kernel_args[i] = KernelArg::Tensor(t);
      }
    }
    interpreter.Run(kernel_args);
    return RXT_OK;
  } catch (const std::exception& e) {
    // KernelError: a bad argument or a fault while running (out of bounds, division by zero).
    WriteError(error, error_size, e.what());
  } catch (...) {
    WriteError(error, error_size, "unknown error");
  }
  return RXT_INVALID_ARGUMENT;
}

void FreeKernel(void* /*state*/, void* kernel) { delete static_cast<ReferenceInterpreter*>(kernel); }

// No emit_library: the reference backend only interprets.
const rxt_backend_t kBackend = {sizeof(rxt_backend_t), "reference", nullptr, &LoadKernel, &CallKernel, &FreeKernel, nullptr};

const rxt_plugin_item_t kBackends[] = {
    {sizeof(rxt_plugin_item_t), "reference",
     "Interprets portable kernels, checked and serial: the correctness oracle of every backend.", nullptr,
     const_cast<rxt_backend_t*>(&kBackend)},
};

const rxt_plugin_descriptor_t kDescriptor = {
    sizeof(rxt_plugin_descriptor_t), RXT_PLUGIN_ABI_VERSION, "rxt_backend_reference", "0.1.0",
    "The reference backend: an interpreter of portable kernels.", nullptr, 0, nullptr, 0, nullptr, 0, kBackends, 1};

}  // namespace

RXT_PLUGIN_EXPORT const rxt_plugin_descriptor_t* rxt_plugin_entry(uint32_t host_abi_version,
                                                                  const rxt_host_api_t* host) {
  if (host_abi_version < RXT_PLUGIN_ABI_VERSION) {
    host->log(host->host, RXT_LOG_ERROR, "rxt_backend_reference needs a newer host");
    return nullptr;
  }
  return &kDescriptor;
}
