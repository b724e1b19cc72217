// Op pattern kinds: what the fusion passes (FuseOps, FuseKernels) need to know about a
// kernel, as in TVM's OpPatternKind. The KernelBuilder (tensor_expr.h) stores the kind of
// every kernel it builds in the kernel's attributes as `op_pattern = "broadcast"`; a kernel
// without the attribute (e.g. written by hand) counts as opaque.
//
//   elementwise        out[i] = f(a[i], b[i]): every input read at exactly the output's index
//   broadcast          out[i, j] = f(a[i, j], b[j]): inputs read at a selection of the
//                      output's iterators (in order) or constants
//   injective          out[i] = f(x[g(i)]): any spatial computation, no reduction
//   comm_reduce        out[i] = sum_k f(x[i, k]): a reduction (spatial stages before it allowed)
//   out_ewise_fusable  out[i, j] = sum_k a[i, k] * b[k, j]: a multiply-accumulate of two
//                      inputs (matmul, convolution); elementwise work can follow it in one kernel
//   opaque             anything else: never fused
#pragma once

#include <string>

#include "rxt/ir/kernel.h"

namespace rxt {

/// Ordered as in TVM: a smaller kind is easier to fuse.
enum class OpPatternKind : uint8_t {
  kElementwise = 0,
  kBroadcast = 1,
  kInjective = 2,
  kCommReduce = 3,
  kOutEWiseFusable = 4,
  kOpaque = 8,
};

/// The kernel attribute that holds the kind.
inline constexpr const char* kOpPatternAttr = "op_pattern";

/// "elementwise", "broadcast", "injective", "comm_reduce", "out_ewise_fusable", "opaque".
const char* OpPatternName(OpPatternKind kind);
/// The kind named |name|; opaque for an unknown name.
OpPatternKind OpPatternFromName(const std::string& name);

/// Derives the kind from the kernel's loop nest: each stage is a block (under loops and
/// local allocations) storing one element per iteration. One spatial stage is elementwise,
/// broadcast or injective by its loads; several spatial stages are injective; a reduction
/// (after spatial stages into local buffers) is out_ewise_fusable when it accumulates a
/// product of two loads, else comm_reduce; anything else is opaque.
OpPatternKind AnalyzeOpPattern(const KernelFunctionNode& kernel);

/// The kind recorded in |kernel|'s attributes; opaque when there is none.
OpPatternKind GetOpPattern(const KernelFunctionNode& kernel);

/// |kernel| with its attribute set to AnalyzeOpPattern(kernel) (or to |kind| when given).
KernelFunction WithOpPattern(const KernelFunction& kernel);
KernelFunction WithOpPattern(const KernelFunction& kernel, OpPatternKind kind);

}  // namespace rxt
