/// The memory planner (memory_plan.h): lifetimes from the bytecode, then an arena layout for
/// static shapes and reuse slots for symbolic ones.
#include "memory_plan.h"

#include <algorithm>

#include "rxt/support/dtype.h"

namespace rxt {
namespace {

constexpr int64_t kMaxPlannedBytes = int64_t{1} << 40;  // far below what Validate accepts

/// One tensor made by an alloc_tensor, as the planner sees it.
struct PlannedTensor {
  size_t pc = 0;         // its alloc_tensor
  size_t last_use = 0;   // the last instruction that may read it
  bool escapes = false;  // may outlive the call
  bool is_static = true;
  int64_t nbytes = 0;
};

bool Overlap(const PlannedTensor& a, const PlannedTensor& b) { return !(a.last_use < b.pc || b.last_use < a.pc); }

/// The bytes a tensor takes in the arena: its size, rounded up to the alignment.
int64_t Footprint(const PlannedTensor& t) { return (t.nbytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment; }

/// The registers an instruction reads.
std::vector<int32_t> Reads(const Instruction& ins) {
  switch (ins.op) {
    case Opcode::kMove:
    case Opcode::kGetItem:
    case Opcode::kView:
    case Opcode::kMatch:
    case Opcode::kJumpIfFalse:
    case Opcode::kReturn: return {ins.arg};
    case Opcode::kMakeTuple:
    case Opcode::kCallKernel:
    case Opcode::kCallExtern:
    case Opcode::kCallFunc: return ins.operands;
    default: return {};
  }
}

void AddAll(std::vector<size_t>& into, const std::vector<size_t>& from) {
  for (size_t id : from) {
    if (std::find(into.begin(), into.end(), id) == into.end()) into.push_back(id);
  }
}

bool SameShapeExpr(const VMFunction& f, int32_t a, int32_t b) {
  if (a == b) return true;
  const ShapeExprOp& x = f.shape_exprs[a];
  const ShapeExprOp& y = f.shape_exprs[b];
  if (x.kind != y.kind) return false;
  if (x.kind == ShapeExprOp::Kind::kConst || x.kind == ShapeExprOp::Kind::kSlot) return x.value == y.value;
  return SameShapeExpr(f, x.a, y.a) && SameShapeExpr(f, x.b, y.b);
}

bool SameShapeExprs(const VMFunction& f, const Instruction& a, const Instruction& b) {
  if (a.index != b.index || a.operands.size() != b.operands.size()) return false;
  for (size_t i = 0; i < a.operands.size(); ++i) {
    if (!SameShapeExpr(f, a.operands[i], b.operands[i])) return false;
  }
  return true;
}

/// Every tensor's lifetime and whether it escapes; false if the code jumps backwards.
bool AnalyzeLifetimes(const VMFunction& f, std::vector<PlannedTensor>& tensors) {
  std::vector<std::vector<size_t>> holds(f.num_registers);  // tensors a register may hold
  for (size_t pc = 0; pc < f.code.size(); ++pc) {
    const Instruction& ins = f.code[pc];
    bool jumps = ins.op == Opcode::kJump || ins.op == Opcode::kJumpIfFalse;
    if (jumps && ins.index <= static_cast<int32_t>(pc)) return false;
    std::vector<size_t> read;
    for (int32_t r : Reads(ins)) AddAll(read, holds[r]);
    for (size_t id : read) tensors[id].last_use = pc;
    switch (ins.op) {
      case Opcode::kAllocTensor: {
        PlannedTensor t;
        t.pc = t.last_use = pc;
        int64_t numel = 1;
        for (int32_t e : ins.operands) {
          const ShapeExprOp& dim = f.shape_exprs[e];
          // Absurd static sizes are left to the run time (which fails to allocate them).
          t.is_static &= dim.kind == ShapeExprOp::Kind::kConst && dim.value >= 0 &&
                         (dim.value == 0 || numel <= kMaxPlannedBytes / dim.value);
          if (t.is_static) numel *= dim.value;
        }
        t.nbytes = t.is_static ? numel * static_cast<int64_t>(DTypeBytes(static_cast<DType>(ins.index))) : 0;
        t.is_static &= t.nbytes <= kMaxPlannedBytes;
        AddAll(holds[ins.dst], {tensors.size()});
        tensors.push_back(t);
        break;
      }
      // A value built from others (or a function's result, which may be one of its
      // arguments) may hold whatever they hold.
      case Opcode::kMove:
      case Opcode::kGetItem:
      case Opcode::kView:  // the same storage: reading the view reads the tensor
      case Opcode::kMakeTuple:
      case Opcode::kCallFunc: AddAll(holds[ins.dst], read); break;
      case Opcode::kReturn:
        for (size_t id : read) tensors[id].escapes = true;
        break;
      default: break;
    }
  }
  return true;
}

/// The lowest offset where |t| fits beside every placed tensor whose lifetime overlaps its.
int64_t PlaceInArena(const PlannedTensor& t, const std::vector<std::pair<const PlannedTensor*, int64_t>>& placed) {
  int64_t size = Footprint(t);
  std::vector<std::pair<int64_t, int64_t>> busy;  // [begin, end) of overlapping tensors
  for (const auto& [other, offset] : placed) {
    if (Overlap(t, *other)) busy.emplace_back(offset, offset + Footprint(*other));
  }
  std::sort(busy.begin(), busy.end());
  int64_t offset = 0;
  for (const auto& [begin, end] : busy) {
    if (offset + size <= begin) break;
    offset = std::max(offset, end);
  }
  return offset;
}

/// A view whose tensor always comes from planned storage (an arena tensor or a reuse slot,
/// the same storage call after call) gets aux 1: the VM keeps the view between calls instead
/// of making a new one (no heap allocation in steady state). Others (views of arguments,
/// constants, results of calls) get aux 0.
void MarkCachedViews(VMFunction& f) {
  // Per register, how many instructions write planned storage to it and how many anything
  // else (counted once, not once per view: a chain of views stays linear).
  std::vector<int> planned(f.num_registers, 0), other(f.num_registers, 0);
  for (const Instruction& writer : f.code) {
    if (writer.dst < 0 || writer.dst >= f.num_registers) continue;
    ++(writer.op == Opcode::kAllocTensor && writer.aux != 0 ? planned : other)[writer.dst];
  }
  for (Instruction& ins : f.code) {
    if (ins.op != Opcode::kView) continue;
    if (ins.arg < 0 || ins.arg >= f.num_registers) {
      ins.aux = 0;
      continue;
    }
    const int others = other[ins.arg] - (ins.dst == ins.arg ? 1 : 0);  // the view itself is no writer of its source
    ins.aux = planned[ins.arg] > 0 && others == 0 && ins.arg >= f.num_params() ? 1 : 0;
  }
}

/// Keeps an alloc_tensor's donor (docs/vm.md, "Donated inputs") only where its tensor escapes
/// (nothing planned takes a donor's storage), the code never jumps, the donor is a parameter,
/// and nothing reads it after the call the tensor is allocated for.
void ConfirmDonors(VMFunction& f) {
  bool jumps = std::any_of(f.code.begin(), f.code.end(), [](const Instruction& ins) {
    return ins.op == Opcode::kJump || ins.op == Opcode::kJumpIfFalse;
  });
  std::vector<size_t> last_read(f.num_registers, 0);  // pc + 1 of the last read, 0: never read
  for (size_t pc = 0; pc < f.code.size(); ++pc) {
    for (int32_t r : Reads(f.code[pc])) {
      if (r >= 0 && r < f.num_registers) last_read[r] = pc + 1;
    }
  }
  for (size_t pc = 0; pc < f.code.size(); ++pc) {
    Instruction& ins = f.code[pc];
    if (ins.op != Opcode::kAllocTensor || ins.arg < 0) continue;
    bool keep = !jumps && ins.aux == 0 && ins.arg < f.num_params();
    if (keep) {
      // The call the tensor is for: the first kernel call after it that takes it.
      size_t call = pc + 1;
      auto takes = [&](int32_t r) {
        const std::vector<int32_t>& ops = f.code[call].operands;
        return std::find(ops.begin(), ops.end(), r) != ops.end();
      };
      while (call < f.code.size() && !(f.code[call].op == Opcode::kCallKernel && takes(ins.dst))) ++call;
      keep = call < f.code.size() && takes(ins.arg) && last_read[ins.arg] == call + 1;
    }
    if (!keep) ins.arg = -1;
  }
}

}  // namespace

void ClearDonors(VMFunction& f) {
  for (Instruction& ins : f.code) {
    if (ins.op == Opcode::kAllocTensor) ins.arg = -1;
  }
}

void PlanMemory(VMFunction& f) {
  f.arena_bytes = 0;
  f.arena_tensors.clear();
  f.num_reuse_slots = 0;
  for (Instruction& ins : f.code) {
    if (ins.op == Opcode::kAllocTensor || ins.op == Opcode::kView) ins.aux = 0;
  }
  std::vector<PlannedTensor> tensors;
  if (!AnalyzeLifetimes(f, tensors)) {
    ClearDonors(f);
    return;
  }

  // Static shapes: the largest first, each at the lowest offset that is free for its lifetime.
  std::vector<size_t> order;
  for (size_t id = 0; id < tensors.size(); ++id) {
    if (!tensors[id].escapes && tensors[id].is_static) order.push_back(id);
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return tensors[a].nbytes > tensors[b].nbytes; });
  std::vector<std::pair<const PlannedTensor*, int64_t>> placed;
  std::vector<int64_t> offset_of(tensors.size(), -1);
  for (size_t id : order) {
    int64_t offset = PlaceInArena(tensors[id], placed);
    placed.emplace_back(&tensors[id], offset);
    offset_of[id] = offset;
    f.arena_bytes = std::max(f.arena_bytes, offset + Footprint(tensors[id]));
  }

  // Symbolic shapes, in program order: a slot is free once its last tensor is dead.
  struct Slot {
    size_t first_pc;  // an alloc_tensor of the slot: its dtype and shape expressions
    size_t last_use;
  };
  std::vector<Slot> slots;
  for (size_t id = 0; id < tensors.size(); ++id) {
    PlannedTensor& t = tensors[id];
    Instruction& ins = f.code[t.pc];
    if (t.escapes) continue;
    if (t.is_static) {
      f.arena_tensors.push_back({offset_of[id], t.nbytes});
      ins.aux = static_cast<int32_t>(f.arena_tensors.size());
      continue;
    }
    auto slot = std::find_if(slots.begin(), slots.end(), [&](const Slot& s) {
      return s.last_use < t.pc && SameShapeExprs(f, f.code[s.first_pc], ins);
    });
    if (slot == slots.end()) {
      slots.push_back({t.pc, t.last_use});
      slot = slots.end() - 1;
    }
    slot->last_use = t.last_use;
    ins.aux = -static_cast<int32_t>(slot - slots.begin()) - 1;
  }
  f.num_reuse_slots = static_cast<int32_t>(slots.size());
  MarkCachedViews(f);
  ConfirmDonors(f);
}

}  // namespace rxt
