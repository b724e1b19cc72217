// The CPU backend as a plugin: registers the backend "cpu", whose kernels are compiled by LLVM
// in memory (load_kernel) or ahead of time into a shared library (emit_library). Only C crosses
// the plugin boundary, so every C++ exception stops here and becomes an error message.
#include <dlpack/dlpack.h>
#include <rxt/plugin.h>

#include <cstdio>
#include <exception>
#include <mutex>
#include <string>
#include <vector>

#include "aot_library_emitter.h"
#include "cpu_kernel.h"

namespace {

using rxt::backend_cpu::CpuKernel;
using rxt::backend_cpu::JitCompiler;

// The host's services (its thread pool) for parallel loops; null with an older host.
const rxt_kernel_runtime_t* g_runtime = nullptr;

void WriteError(char* error, size_t error_size, const char* message) {
  if (error != nullptr && error_size > 0) std::snprintf(error, error_size, "%s", message);
}

// Created on the first kernel: loading the plugin costs nothing until the backend is used.
JitCompiler& Jit() {
  static JitCompiler* jit = new JitCompiler();  // never destroyed: kernels may be freed at exit
  return *jit;
}

/// A loaded kernel with room for its error messages (one call per handle at a time).
struct KernelHandle {
  std::unique_ptr<CpuKernel> kernel;
  std::string error;
};

void* LoadKernel(void* /*state*/, const char* /*kernel_name*/, const uint8_t* bytes, size_t size, char* error,
                 size_t error_size) {
  try {
    auto handle = std::make_unique<KernelHandle>();
    handle->kernel = CpuKernel::Load(Jit(), bytes, size);
    return handle.release();
  } catch (const std::exception& e) {
    WriteError(error, error_size, e.what());
  } catch (...) {
    WriteError(error, error_size, "unknown error");
  }
  return nullptr;
}

rxt_code_t CallKernel(void* /*state*/, void* kernel, void* const* args, int num_args, char* error, size_t error_size) {
  if (kernel == nullptr) {
    WriteError(error, error_size, "null kernel");
    return RXT_INVALID_ARGUMENT;
  }
  auto& handle = *static_cast<KernelHandle*>(kernel);
  rxt_code_t code = handle.kernel->Call(reinterpret_cast<const DLTensor* const*>(args), num_args, g_runtime, handle.error);
  if (code != RXT_OK) WriteError(error, error_size, handle.error.c_str());
  return code;
}

void FreeKernel(void* /*state*/, void* kernel) { delete static_cast<KernelHandle*>(kernel); }

rxt_code_t EmitLibrary(void* /*state*/, const rxt_aot_kernel_t* kernels, size_t num_kernels, const char* output_path,
                       char* error, size_t error_size) {
  try {
    if (output_path == nullptr || (num_kernels > 0 && kernels == nullptr)) {
      WriteError(error, error_size, "null kernels or output path");
      return RXT_INVALID_ARGUMENT;
    }
    std::vector<rxt::backend_cpu::AotKernelSource> sources;
    for (size_t i = 0; i < num_kernels; ++i) {
      const rxt_aot_kernel_t& k = kernels[i];
      if (k.symbol == nullptr || (k.size > 0 && k.bytes == nullptr)) {
        WriteError(error, error_size, ("kernel " + std::to_string(i) + " has no symbol or no bytes").c_str());
        return RXT_INVALID_ARGUMENT;
      }
      sources.push_back({k.name != nullptr ? k.name : "", k.bytes, k.size, k.symbol});
    }
    rxt::backend_cpu::EmitAotLibrary(sources, output_path);
    return RXT_OK;
  } catch (const std::exception& e) {
    WriteError(error, error_size, e.what());
  } catch (...) {
    WriteError(error, error_size, "unknown error");
  }
  return RXT_INTERNAL;
}

const rxt_backend_t kBackend = {sizeof(rxt_backend_t), "cpu",        nullptr,     &LoadKernel,
                                &CallKernel,           &FreeKernel, &EmitLibrary};

const rxt_plugin_item_t kBackends[] = {
    {sizeof(rxt_plugin_item_t), "cpu",
     "Compiles portable kernels to native code for this CPU with LLVM (in memory, or ahead of time into a library).",
     nullptr, const_cast<rxt_backend_t*>(&kBackend)},
};

const rxt_plugin_descriptor_t kDescriptor = {
    sizeof(rxt_plugin_descriptor_t), RXT_PLUGIN_ABI_VERSION, "rxt_backend_cpu", "0.1.0",
    "The CPU backend: LLVM code generation for kernels.", nullptr, 0, nullptr, 0, nullptr, 0, kBackends, 1};

}  // namespace

RXT_PLUGIN_EXPORT const rxt_plugin_descriptor_t* rxt_plugin_entry(uint32_t host_abi_version,
                                                                  const rxt_host_api_t* host) {
  if (host_abi_version < RXT_PLUGIN_ABI_VERSION) {
    host->log(host->host, RXT_LOG_ERROR, "rxt_backend_cpu needs a newer host");
    return nullptr;
  }
  if (RXT_HOST_API_HAS(host, kernel_runtime)) g_runtime = host->kernel_runtime;
  return &kDescriptor;
}
