// Ahead-of-time compilation: kernels into one shared library that runs without LLVM. The
// kernels are compiled for a machine (this host by default, like the JIT's; or another CPU or
// architecture, target.h) into one object file with the library's description
// (rxt_aot_library_info_t, rxt/compiled_kernel.h), and linked by a C compiler found on PATH:
// `cc -shared ... -lm` for this host, the cross compiler `<arch>-<os>-<env>-gcc`
// ("aarch64-linux-gnu-gcc", Debian's gcc-aarch64-linux-gnu) for another architecture.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernel_codegen.h"
#include "target.h"

namespace rxt::backend_cpu {

struct AotKernelSource {
  std::string name;               // for messages
  const uint8_t* bytes = nullptr;  // the portable kernel format
  size_t size = 0;
  std::string symbol;  // the C identifier the library exports the kernel under
};

/// A program the library needs that is not on PATH (the C compiler that links it).
struct MissingToolError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Writes the library for |target| to |output_path| (through a temporary file renamed into
/// place). Throws MissingToolError when no linker for |target| is on PATH, and
/// std::runtime_error naming the kernel, symbol or step that failed otherwise (a symbol that is
/// not a C identifier or is given twice, a kernel that does not decode).
void EmitAotLibrary(const std::vector<AotKernelSource>& kernels, const std::string& output_path,
                    const MachineTarget& target = Host(), CodegenOptions options = {});

}  // namespace rxt::backend_cpu
