// Kernels compiled ahead of time into a shared library (`rxt build --emit-library`, the CPU
// backend's emit_library): a KernelProvider of the runtime library that needs no compiler, no
// plugin and no LLVM. It opens the library, checks what it says about itself
// (rxt_aot_library_info_t in rxt/compiled_kernel.h), finds each kernel's symbol and calls it
// with arguments bound by rxt/plugin_support/kernel_binding.h, on the process's thread pool.
//
//   Executable exec = Executable::Load("mlp.rxtx");       // names mlp.so
//   AotKernelProvider kernels = AotKernelProvider::ForExecutable(exec);
//   VirtualMachine vm(std::move(exec), kernels);
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rxt/runtime/executable.h"
#include "rxt/runtime/kernel.h"

namespace rxt {

class AotKernelProvider : public KernelProvider {
 public:
  /// Opens the library at |path| for the backend |backend| (the name executables record).
  /// Throws kNotFound if it cannot be opened, kDataLoss if it is not an rxt kernel library,
  /// kFailedPrecondition if it was built for another library or kernel format version or for
  /// CPU instructions this machine lacks.
  explicit AotKernelProvider(const std::string& path, std::string backend = "cpu");
  /// The library |exec| names (kFailedPrecondition if it names none), for its backend.
  static AotKernelProvider ForExecutable(const Executable& exec);
  /// A library given as its bytes (a trainer file carries one), loaded from memory without a
  /// file on disk; messages begin with |label| ("trainer file 'x.rxtt': kernel library").
  static AotKernelProvider FromBytes(const std::vector<uint8_t>& bytes, const std::string& label,
                                     std::string backend = "cpu");

  std::string name() const override { return backend_; }
  /// Throws kFailedPrecondition if the record has no symbol, kNotFound if the library lacks
  /// it, kDataLoss if its portable code does not decode. The kernel keeps the library open.
  std::unique_ptr<Kernel> Load(const KernelRecord& record) override;
  /// Looking symbols up in the library is safe from several threads.
  bool ConcurrentLoads() const override { return true; }

  /// The library's path (its label when it was loaded from bytes).
  const std::string& path() const;
  /// The library's bytes: those it was loaded from, or its file's (a trainer file carries them).
  std::vector<uint8_t> LibraryBytes() const;

  struct Library;  // the open library (aot_library.cc), shared with its kernels

 private:
  AotKernelProvider(const std::string& path, const std::string& where, std::string backend);

  std::shared_ptr<Library> library_;
  std::string backend_;
};

}  // namespace rxt
