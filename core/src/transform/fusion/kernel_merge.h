// Merges the kernels of a fused group into one kernel (the body of FuseKernels). The group
// is a chain or tree of kernel calls: every member's output but the last feeds a later
// member, or is an output of the group.
//
// Each member's kernel is copied with fresh loop variables, iterators and buffers, its
// symbolic dims mapped to the group's (from the struct info of its arguments). Then:
//  - a producer whose last stage is spatial is inlined into the loads of its consumer:
//    out[v] = f(v) turns a consumer's load out[e] into f(e) (compute_inline); its earlier
//    stages (into local buffers, e.g. the first maxima of max_pool2d_backward) run first;
//  - a reduction (the anchor, e.g. matmul) followed by elementwise work keeps its loop nest,
//    and the work runs in place on its output right after the reduction of each element
//    completes (a second block inside the spatial loops, after the reduce loops);
//  - the last member (or the anchor, with that epilogue) writes the group's result;
//  - multi-output groups (no anchor): an output member other than the last (an extra output)
//    gets a block of its own inside the last member's loop nest, before the last member's
//    block: it is stored there, and later members load it back at the same element (one
//    evaluation, so its value is exactly the unfused kernel's); it must have the last
//    member's shape and dtype, and be read only at the element being written. A member read
//    by several later members that is not an output is inlined into each.
// The merged kernel's parameters are the group's inputs, then the outputs in member order.
#pragma once

#include <string>
#include <vector>

#include "rxt/ir/kernel.h"
#include "rxt/ir/struct_info.h"

namespace rxt {

struct MergeMember {
  KernelFunction kernel;
  /// Per input parameter of the kernel: >= 0, that group input; < 0, the output of member
  /// -(value + 1) (an earlier member).
  std::vector<int> inputs;
  /// The tensor struct info of every parameter (inputs, then the output), in the group's
  /// symbolic dims: the kernel's own dims are mapped from these.
  std::vector<StructInfo> param_sinfo;
};

/// The merged kernel, with its own symbolic dims and its op_pattern attribute; its input
/// buffers are named |input_names|, its outputs after their members' outputs. |outputs| are
/// the members that are outputs of the group, ascending, ending with the last (empty: only
/// the last). Throws
/// kUnimplemented saying why when the group cannot be merged (fusion_rules.h lists what the
/// members must look like).
KernelFunction MergeKernels(const std::vector<MergeMember>& members, const std::vector<StructInfo>& group_inputs,
                            const std::vector<std::string>& input_names, const std::vector<size_t>& outputs = {});

}  // namespace rxt
