// The CPU backend as a plugin: registers the backend "cpu", whose kernels are compiled by LLVM
// in memory (load_kernel) or ahead of time into a shared library (emit_library). Only C crosses
// the plugin boundary, so every C++ exception stops here and becomes a status.
#include <dlpack/dlpack.h>
#include <rxt/plugin.h>
#include <rxt/plugin_support/host.h>

#include <cstddef>
#include <exception>
#include <stdexcept>
#include <memory>
#include <string>
#include <vector>

#include "aot_library_emitter.h"
#include "cpu_kernel.h"

namespace {

using rxt::backend_cpu::CpuKernel;
using rxt::backend_cpu::JitCompiler;
using rxt::plugin_support::MakeStatus;

// The host's services (its thread pool) for parallel loops.
const rxt_kernel_runtime_t* g_runtime = nullptr;

// Created on the first kernel: loading the plugin costs nothing until the backend is used.
JitCompiler& Jit() {
  // never destroyed: kernels may be freed at exit. Objects are cached on disk (object_cache.h).
  static JitCompiler* jit = new JitCompiler({}, rxt::backend_cpu::ObjectCache::DirectoryFromEnvironment());
  return *jit;
}

/// A loaded kernel with room for its error messages (one call per handle at a time).
struct KernelHandle {
  std::unique_ptr<CpuKernel> kernel;
  std::string error;
};

// Bytes that do not decode or compile are a corrupt kernel.
rxt_status_t LoadKernel(void* /*state*/, const char* /*kernel_name*/, const uint8_t* bytes, size_t size,
                        void** out_kernel) {
  try {
    auto handle = std::make_unique<KernelHandle>();
    handle->kernel = CpuKernel::Load(Jit(), bytes, size);
    *out_kernel = handle.release();
    return nullptr;
  } catch (const std::exception& e) {
    return MakeStatus(RXT_DATA_LOSS, e.what());
  } catch (...) {
    return MakeStatus(RXT_DATA_LOSS, "unknown error");
  }
}

rxt_status_t CallKernel(void* /*state*/, void* kernel, DLTensor* const* args, int num_args) {
  if (kernel == nullptr) return MakeStatus(RXT_INVALID_ARGUMENT, "null kernel");
  auto& handle = *static_cast<KernelHandle*>(kernel);
  rxt_code_t code = handle.kernel->Call(args, num_args, g_runtime, handle.error);
  return code == RXT_OK ? nullptr : MakeStatus(code, handle.error);
}

void FreeKernel(void* /*state*/, void* kernel) { delete static_cast<KernelHandle*>(kernel); }

// The text of an optional string field: NULL reads as "".
std::string TextOf(const char* text) { return text != nullptr ? text : ""; }

rxt_status_t EmitLibraryFor(void* /*state*/, const rxt_aot_kernel_t* kernels, size_t num_kernels,
                            const rxt_aot_target_t* target, const char* output_path) {
  try {
    if (output_path == nullptr || (num_kernels > 0 && kernels == nullptr)) {
      return MakeStatus(RXT_INVALID_ARGUMENT, "null kernels or output path");
    }
    std::vector<rxt::backend_cpu::AotKernelSource> sources;
    for (size_t i = 0; i < num_kernels; ++i) {
      const rxt_aot_kernel_t& k = kernels[i];
      if (k.symbol == nullptr || (k.size > 0 && k.bytes == nullptr)) {
        return MakeStatus(RXT_INVALID_ARGUMENT, "kernel " + std::to_string(i) + " has no symbol or no bytes");
      }
      sources.push_back({k.name != nullptr ? k.name : "", k.bytes, k.size, k.symbol});
    }
    rxt::backend_cpu::MachineTarget machine = rxt::backend_cpu::Host();
    if (target != nullptr) {
      if (target->struct_size < offsetof(rxt_aot_target_t, features) + sizeof(target->features)) {
        return MakeStatus(RXT_INVALID_ARGUMENT, "the target's struct_size is too small");
      }
      machine = rxt::backend_cpu::ResolveTarget(TextOf(target->triple), TextOf(target->cpu), TextOf(target->features));
    }
    rxt::backend_cpu::EmitAotLibrary(sources, output_path, machine);
    return nullptr;
  } catch (const std::invalid_argument& e) {
    return MakeStatus(RXT_INVALID_ARGUMENT, e.what());
  } catch (const rxt::backend_cpu::MissingToolError& e) {
    return MakeStatus(RXT_FAILED_PRECONDITION, e.what());
  } catch (const std::exception& e) {
    return MakeStatus(RXT_INTERNAL, e.what());
  } catch (...) {
    return MakeStatus(RXT_INTERNAL, "unknown error");
  }
}

rxt_status_t EmitLibrary(void* state, const rxt_aot_kernel_t* kernels, size_t num_kernels, const char* output_path) {
  return EmitLibraryFor(state, kernels, num_kernels, nullptr, output_path);
}

// oneDNN's GEMM and convolutions beat generated kernels on this CPU (docs/libraries.md).
const char* const kPreferredLibraries[] = {"dnnl", nullptr};
const rxt_backend_t kBackend = {
    sizeof(rxt_backend_t), "cpu",
    "Compiles portable kernels to native code with LLVM: in memory for this CPU, or ahead of time into a library for this or another machine.",
    nullptr, &LoadKernel, &CallKernel, &FreeKernel, &EmitLibrary, kPreferredLibraries,
    RXT_BACKEND_CONCURRENT_LOAD,  // the JIT compiles from several threads at once
    &EmitLibraryFor};
const rxt_backend_t* const kBackends[] = {&kBackend};

const rxt_plugin_descriptor_t kDescriptor = {
    sizeof(rxt_plugin_descriptor_t), RXT_PLUGIN_ABI_VERSION, "rxt_backend_cpu", "0.1.0",
    "The CPU backend: LLVM code generation for kernels.", nullptr, 0, nullptr, 0, nullptr, 0, kBackends, 1, nullptr, 0, nullptr, 0, nullptr, 0};

}  // namespace

RXT_PLUGIN_EXPORT const rxt_plugin_descriptor_t* rxt_plugin_entry(uint32_t host_abi_version,
                                                                  const rxt_host_api_t* host) {
  if (!rxt::plugin_support::ConnectHost(host_abi_version, host, "rxt_backend_cpu")) return nullptr;
  g_runtime = host->kernel_runtime;
  return &kDescriptor;
}
