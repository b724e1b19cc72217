// The memory planner: decides where the outputs of a function's kernel and extern calls live
// (the aux of each alloc_tensor, VMFunction's arena and reuse slots; docs/vm.md).
#pragma once

#include "rxt/runtime/executable.h"

namespace rxt {

/// Plans |f|'s alloc_tensor instructions from the lifetimes of the tensors they make (from
/// the allocation to the last instruction reading a register that may hold the tensor,
/// directly or inside a tuple). A tensor that may escape the call (returned, or reachable from
/// the result of a function call that was given it) is allocated per call. Of the others, those
/// of static shape get offsets in one arena, shared when lifetimes do not overlap; those of
/// symbolic shape get reuse slots, shared by tensors of equal dtype and shape expressions whose
/// lifetimes do not overlap. A function with a backward jump is left unplanned.
void PlanMemory(VMFunction& f);

/// Drops every alloc_tensor's donor (an unplanned function takes no donated storage).
void ClearDonors(VMFunction& f);

}  // namespace rxt
