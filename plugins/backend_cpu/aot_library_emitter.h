// Ahead-of-time compilation: kernels into one shared library that runs without LLVM. The
// kernels are compiled for this host like the JIT's, into one object file with the library's
// description (rxt_aot_library_info_t, rxt/compiled_kernel.h), and linked by the system C
// compiler (`cc -shared ... -lm`, found on PATH).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kernel_codegen.h"

namespace rxt::backend_cpu {

struct AotKernelSource {
  std::string name;               // for messages
  const uint8_t* bytes = nullptr;  // the portable kernel format
  size_t size = 0;
  std::string symbol;  // the C identifier the library exports the kernel under
};

/// Writes the library to |output_path| (through a temporary file renamed into place). Throws
/// std::runtime_error naming the kernel, symbol or step that failed (no `cc` on PATH, a
/// symbol that is not a C identifier or is given twice, a kernel that does not decode).
void EmitAotLibrary(const std::vector<AotKernelSource>& kernels, const std::string& output_path,
                    CodegenOptions options = {});

}  // namespace rxt::backend_cpu
