// What FuseOps may group and FuseKernels can merge: structural checks on single kernels,
// shared by the two passes so that every group FuseOps makes is one FuseKernels can merge.
#pragma once

#include <cstddef>
#include <string>

#include "rxt/ir/kernel.h"

namespace rxt {

/// The function attribute FuseOps puts on the functions it makes for groups.
inline constexpr const char* kPrimitiveAttr = "primitive";

/// Every parameter is a compact buffer (no scalars, no strides) and the body has the stage
/// structure of kernel_stages.h.
bool HasFusibleStructure(const KernelFunctionNode& kernel);

/// A canonical spatial stage as the last stage, writing the kernel's only output (its last
/// parameter): its value can replace the loads of a consumer (compute_inline). Stages before
/// it must write local buffers; they stay (run before the consumer's work) and the last
/// stage's value reads their results.
bool IsInlinableProducer(const KernelFunctionNode& kernel);

/// A canonical reduction as the last stage, writing the kernel's only output (spatial stages
/// before it write local buffers): elementwise work can follow it in its loop nest.
bool IsEpilogueAnchor(const KernelFunctionNode& kernel);

/// One canonical spatial stage that reads parameter |param| only at the element it stores.
bool ReadsParamElementwise(const KernelFunctionNode& kernel, size_t param);

/// |name| without the "_<n>" suffix IRModule::UniqueName adds: "add_1" -> "add".
std::string BaseKernelName(const std::string& name);

}  // namespace rxt
