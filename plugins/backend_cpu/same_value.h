// Structural equality of a kernel's integer expressions, for the backend's loop analyses
// (loop_collapse.h, disjoint_iterations.h): whether a buffer's dim equals a loop's extent, or
// two buffers have one shape.
#pragma once

#include <cstdint>

#include "rxt/plugin_support/kernel_codec.h"

namespace rxt::backend_cpu {

/// Whether integer expressions |a| and |b| of |kernel| compute the same value: the same
/// expression, or the same structure over the same variables (immediates compared by value, so
/// an extent and a dim of different integer dtypes compare equal).
bool SameValue(const plugin_support::kernel_format::Kernel& kernel, int32_t a, int32_t b);

}  // namespace rxt::backend_cpu
