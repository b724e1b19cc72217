// Kernels as the VM sees them: something callable on DLPack tensors, loaded by a backend
// (a KernelProvider) from the kernel's record in an executable.
#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace rxt {

/// One compiled (or interpreted) kernel function. Arguments follow the kernel's parameters in
/// order, outputs last (destination-passing style); a scalar parameter is passed as a 0-d
/// tensor (int64 or float64). Implementations throw rxt::Error (or std::exception) on failure.
class Kernel {
 public:
  virtual ~Kernel() = default;
  virtual void Call(DLTensor* const* args, int num_args) = 0;
};

/// What an executable stores about one kernel: its name and its code in the portable kernel
/// format (abi/include/rxt/plugin_support/kernel_codec.h); later also the symbol of an ahead-of-time build.
struct KernelRecord {
  std::string name;
  std::vector<uint8_t> portable;  // EncodeKernel's bytes
  std::string aot_symbol;         // empty: none
};

/// What a backend gives the VM: turns kernel records into callable kernels when an executable
/// is loaded.
class KernelProvider {
 public:
  virtual ~KernelProvider() = default;
  /// The backend's name ("reference", "cpu"), recorded in executables built for it.
  virtual std::string name() const = 0;
  /// Throws rxt::Error naming the kernel if it cannot be loaded.
  virtual std::unique_ptr<Kernel> Load(const KernelRecord& record) = 0;
  /// Whether Load may run on several threads at once (the VM then loads an executable's
  /// kernels in parallel: compiling them is most of the time a VM takes to start).
  virtual bool ConcurrentLoads() const { return false; }
};

}  // namespace rxt
