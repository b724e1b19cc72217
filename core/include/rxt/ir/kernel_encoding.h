// Kernel functions in the portable kernel format: how they cross to backend plugins, which
// read them with the header-only decoder of abi/include/rxt/plugin_support/kernel_codec.h.
// docs/kernel_format.md describes the format.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "rxt/ir/kernel.h"
#include "rxt/plugin_support/kernel_codec.h"

namespace rxt {

/// The format's plain structs for |kernel| (named |name|): variables, buffers and expressions
/// are numbered in the order first met (parameters first); a node shared in the IR is shared
/// (one index) in the result. Throws kInvalidArgument, naming the kernel, if the kernel cannot
/// be represented or breaks an invariant of the format (plugin_support::kernel_format::ValidateKernel).
plugin_support::kernel_format::Kernel ToPortableKernel(const KernelFunction& kernel, const std::string& name);

/// ToPortableKernel, serialized: the bytes a backend decodes with plugin_support::kernel_format::DecodeKernel.
std::vector<uint8_t> EncodeKernel(const KernelFunction& kernel, const std::string& name = "");

/// The kernel function that |kernel| (a valid one: ValidateKernel) describes, built as the IR
/// builds every kernel (integer arithmetic on constants folds, `x * 1` is `x`). For a kernel
/// EncodeKernel made, encoding it again gives the same bytes, and it is StructuralEqual to the
/// function that was encoded.
KernelFunction FromPortableKernel(const plugin_support::kernel_format::Kernel& kernel);

/// Decodes bytes back to IR, for tests and tools. Throws kDataLoss with the decoder's message
/// when the bytes are malformed. |name|, if given, receives the kernel's name.
KernelFunction DecodeKernelToIR(const uint8_t* data, size_t size, std::string* name = nullptr);
KernelFunction DecodeKernelToIR(const std::vector<uint8_t>& bytes, std::string* name = nullptr);

/// The format's dtype for an rxt dtype, and back (the numbering is the same; kept explicit).
plugin_support::kernel_format::DType ToPortableDType(DType dtype);
DType FromPortableDType(plugin_support::kernel_format::DType dtype);

}  // namespace rxt
