// The VM's interpreter loop. Each function has a frame per call depth (registers, symbolic-dim
// slots, DLTensor argument arrays, the memory plan's arena and reuse slots) created on its first
// call and reused after, so a steady-state call of a planned function allocates no storage for
// its intermediates. The tensors it returns are recycled: each per-call alloc_tensor keeps its
// last two tensors and hands one out again once the caller has dropped it (a training step
// whose new parameters replace the old ones alternates between two buffers).
#include "rxt/runtime/vm.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <thread>

#include <cstring>

#include "rxt/runtime/allocator.h"
#include "rxt/runtime/dlpack.h"
#include "rxt/runtime/memory_limit.h"
#include "rxt/support/checked_math.h"
#include "rxt/support/error.h"
#include "rxt/support/message_text.h"

namespace rxt {
namespace {

constexpr int kMaxCallDepth = 256;
using Clock = std::chrono::steady_clock;

int64_t FloorDiv(int64_t a, int64_t b) {
  if (b == 0) Throw(ErrorCode::kInvalidArgument, "shape expression divides by zero");
  if (a == INT64_MIN && b == -1) Throw(ErrorCode::kOutOfRange, "shape expression overflows (", a, " / -1)");
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// Dims come from arguments and files: arithmetic on them is checked (Validate bounds the size
// of an expression, so the recursion is shallow).
int64_t EvalShapeExpr(const VMFunction& f, const std::vector<int64_t>& slots, int32_t index) {
  const ShapeExprOp& e = f.shape_exprs[index];
  using K = ShapeExprOp::Kind;
  if (e.kind == K::kConst) return e.value;
  if (e.kind == K::kSlot) return slots[e.value];
  int64_t a = EvalShapeExpr(f, slots, e.a), b = EvalShapeExpr(f, slots, e.b);
  int64_t result = 0;
  auto checked = [&](bool ok) {
    if (!ok) Throw(ErrorCode::kOutOfRange, f.name, ": a dim expression overflows (", a, " and ", b, ")");
    return result;
  };
  switch (e.kind) {
    case K::kAdd: return checked(CheckedAdd(a, b, &result));
    case K::kSub: return checked(!__builtin_sub_overflow(a, b, &result));
    case K::kMul: return checked(CheckedMul(a, b, &result));
    case K::kFloorDiv: return FloorDiv(a, b);
    case K::kFloorMod: return a - FloorDiv(a, b) * b;
    case K::kMin: return std::min(a, b);
    case K::kMax: return std::max(a, b);
    default: return 0;
  }
}

bool IsTrue(const Value& v) {
  if (v.is_int()) return v.int_value() != 0;
  if (v.is_tensor() && v.tensor().defined() && v.tensor().numel() == 1) return v.tensor().GetAsDouble(0) != 0.0;
  Throw(ErrorCode::kInvalidArgument, "if: the condition must be a bool scalar, got ", v.Describe());
}

}  // namespace

struct VirtualMachine::Frame {
  std::vector<Value> registers;
  std::vector<int64_t> slots;
  std::vector<Value> call_args;
  std::vector<DLTensor> dl_args;
  std::vector<DLTensor*> dl_pointers;
  std::vector<int64_t> int_scalars;   // storage of scalar arguments passed as 0-d tensors
  std::vector<double> float_scalars;
  std::vector<int64_t> dims;          // an alloc_tensor's dims, evaluated
  // The memory plan: the arena, a tensor viewing it per arena tensor (made on first use), and
  // the last tensor of each reuse slot.
  std::shared_ptr<std::byte> arena;
  std::vector<Value> arena_values;
  std::vector<Value> reuse_values;
  // Per instruction (empty unless the function has per-call allocations): the last tensors an
  // unplanned alloc_tensor made, newest first, to be reused once nothing else holds them.
  std::vector<std::array<Value, 2>> recycled;
  // Per instruction (empty unless the function has one): the last view a cached view made.
  std::vector<Value> views;
};

namespace {

/// 64-byte aligned, zero-filled storage of at least one alignment unit.
std::shared_ptr<std::byte> AllocateArena(int64_t nbytes) {
  return AllocateZeroed(static_cast<size_t>(std::max<int64_t>(nbytes, 1)), static_cast<size_t>(kArenaAlignment),
                        "a VM arena");
}

/// The kernels of |records| loaded by |provider|: on several threads when it allows (compiling
/// is most of a VM's start-up), each thread taking the next kernel not yet taken; the error of
/// the first kernel (in order) that fails is thrown.
std::vector<std::unique_ptr<Kernel>> LoadKernels(const std::vector<KernelRecord>& records, KernelProvider& provider) {
  std::vector<std::unique_ptr<Kernel>> kernels(records.size());
  const size_t threads = provider.ConcurrentLoads()
                             ? std::min<size_t>(records.size(), std::max(1u, std::thread::hardware_concurrency()))
                             : 1;
  if (threads <= 1) {
    for (size_t i = 0; i < records.size(); ++i) kernels[i] = provider.Load(records[i]);
    return kernels;
  }
  std::vector<std::exception_ptr> errors(records.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < records.size(); i = next++) {
      try {
        kernels[i] = provider.Load(records[i]);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  for (const std::exception_ptr& error : errors) {
    if (error) std::rethrow_exception(error);
  }
  return kernels;
}

}  // namespace

VirtualMachine::VirtualMachine(Executable exec, KernelProvider& provider, const ExternRegistry& externs)
    : exec_(std::move(exec)) {
  exec_.Validate();
  if (!exec_.backend.empty() && exec_.backend != provider.name()) {
    Throw(ErrorCode::kFailedPrecondition, exec_.Label(), " was built for backend ", Quoted(exec_.backend), ", not for ",
          Quoted(provider.name()));
  }
  CheckPlannedMemory();
  try {
    kernels_ = LoadKernels(exec_.kernels, provider);
  } catch (const Error& e) {  // the backend's message names the kernel, not the file
    throw Error(e.code(), StrCat(exec_.Label(), ": ", e.what()));
  }
  for (const std::string& name : exec_.externs) {
    ExternFunction f = externs.Find(name);
    if (!f) {
      Throw(ErrorCode::kNotFound, exec_.Label(), ": extern function ", Quoted(name),
            " is not registered (load the plugin that provides it)");
    }
    externs_.push_back(std::move(f));
  }
  frames_.resize(exec_.functions.size());
  instruction_profile_.resize(kNumOpcodes);
  for (int i = 0; i < kNumOpcodes; ++i) instruction_profile_[i].name = OpcodeName(static_cast<Opcode>(i));
  for (const KernelRecord& k : exec_.kernels) kernel_profile_.push_back({"kernel " + k.name, 0, 0});
  for (const std::string& e : exec_.externs) kernel_profile_.push_back({"extern " + e, 0, 0});
}

VirtualMachine::~VirtualMachine() = default;

// The memory a function's plan takes on its first call, and every tensor of constant shape it
// allocates, against the memory limit: refused at load, naming the file, not mid-run.
void VirtualMachine::CheckPlannedMemory() const {
  for (const VMFunction& f : exec_.functions) {
    auto what = [&](const auto&... parts) { return StrCat(exec_.Label(), ": function ", Quoted(f.name), parts...); };
    if (f.arena_bytes > MemoryLimit()) CheckMemoryLimit(f.arena_bytes, what("'s memory plan (its arena)"));
    for (size_t pc = 0; pc < f.code.size(); ++pc) {
      const Instruction& ins = f.code[pc];
      if (ins.op != Opcode::kAllocTensor || ins.aux > 0) continue;
      std::vector<int64_t> dims;
      for (int32_t e : ins.operands) {
        if (f.shape_exprs[e].kind != ShapeExprOp::Kind::kConst) break;
        dims.push_back(f.shape_exprs[e].value);
      }
      if (dims.size() != ins.operands.size()) continue;  // a symbolic shape: checked when it runs
      int64_t bytes = 0;
      bool fits = CheckedByteSize(dims.data(), dims.size(), DTypeBytes(static_cast<DType>(ins.index)), MemoryLimit(), &bytes);
      if (!fits) {
        if (!CheckedByteSize(dims.data(), dims.size(), DTypeBytes(static_cast<DType>(ins.index)), int64_t{1} << 62, &bytes)) {
          bytes = int64_t{1} << 62;
        }
        CheckMemoryLimit(bytes, what(", instruction ", pc, ": a ", DTypeName(static_cast<DType>(ins.index)),
                                     " tensor of shape ", ShapeText(dims.data(), dims.size())));
      }
    }
  }
}

void VirtualMachine::SetProfiling(bool on) {
  profiling_ = on;
  if (!on) return;
  for (ProfileRow& r : kernel_profile_) r.calls = r.total_ns = 0;
  for (ProfileRow& r : instruction_profile_) r.calls = r.total_ns = 0;
}

Profile VirtualMachine::GetProfile() const {
  Profile p;
  auto used = [](const ProfileRow& r) { return r.calls > 0; };
  auto by_time = [](const ProfileRow& a, const ProfileRow& b) { return a.total_ns > b.total_ns; };
  std::copy_if(kernel_profile_.begin(), kernel_profile_.end(), std::back_inserter(p.kernels), used);
  std::copy_if(instruction_profile_.begin(), instruction_profile_.end(), std::back_inserter(p.instructions), used);
  std::stable_sort(p.kernels.begin(), p.kernels.end(), by_time);
  std::stable_sort(p.instructions.begin(), p.instructions.end(), by_time);
  return p;
}

Value VirtualMachine::Invoke(const std::string& name, const std::vector<Value>& args) {
  int index = exec_.FindFunction(name);
  if (index < 0) Throw(ErrorCode::kNotFound, "vm: no function named '", name, "'");
  ThreadPool::Scope pool(pool_);
  Allocator::Scope allocator(allocator_);
  return Run(index, args.data(), static_cast<int>(args.size()), 0);
}

Value VirtualMachine::InvokeTakingArguments(const std::string& name, std::vector<Value>& args) {
  int index = exec_.FindFunction(name);
  if (index < 0) Throw(ErrorCode::kNotFound, "vm: no function named '", name, "'");
  ThreadPool::Scope pool(pool_);
  Allocator::Scope allocator(allocator_);
  try {
    Value result = Run(index, args.data(), static_cast<int>(args.size()), 0, /*take=*/true);
    args.clear();
    return result;
  } catch (...) {
    // The arguments back to the caller: the frame still holds them (no instruction writes a
    // parameter's register; only a return clears them).
    auto& frames = frames_[index];
    if (!frames.empty() && frames[0] != nullptr) {
      std::vector<Value>& regs = frames[0]->registers;
      for (size_t i = 0; i < args.size() && i < regs.size(); ++i) {
        if (!regs[i].is_none()) args[i] = std::move(regs[i]);  // else it was never taken
      }
    }
    throw;
  }
}

VirtualMachine::Frame& VirtualMachine::AcquireFrame(int function, int depth) {
  auto& frames = frames_[function];
  while (static_cast<int>(frames.size()) <= depth) frames.push_back(nullptr);
  if (frames[depth] == nullptr) {
    const VMFunction& f = exec_.functions[function];
    auto frame = std::make_unique<Frame>();
    size_t max_operands = 0;
    for (const Instruction& ins : f.code) max_operands = std::max(max_operands, ins.operands.size());
    frame->registers.resize(f.num_registers);
    frame->slots.resize(f.num_slots);
    frame->call_args.resize(max_operands);
    frame->dl_args.resize(max_operands);
    frame->dl_pointers.resize(max_operands);
    frame->int_scalars.resize(max_operands);
    frame->float_scalars.resize(max_operands);
    frame->dims.resize(max_operands);
    if (!f.arena_tensors.empty()) {
      frame->arena = AllocateArena(f.arena_bytes);
      ++num_storage_allocations_;
    }
    frame->arena_values.resize(f.arena_tensors.size());
    frame->reuse_values.resize(f.num_reuse_slots);
    bool allocates_per_call = std::any_of(f.code.begin(), f.code.end(), [](const Instruction& ins) {
      return ins.op == Opcode::kAllocTensor && ins.aux == 0;
    });
    if (allocates_per_call) frame->recycled.resize(f.code.size());
    bool caches_views = std::any_of(f.code.begin(), f.code.end(), [](const Instruction& ins) {
      return ins.op == Opcode::kView && ins.aux == 1;
    });
    if (caches_views) frame->views.resize(f.code.size());
    frames[depth] = std::move(frame);
  }
  return *frames[depth];
}

namespace {

/// Where phase 0 of |f| binds slot |slot|: "argument 0 (%x) dim 1", or "" if nowhere.
std::string FindBinder(const VMFunction& f, const TypePattern& p, int32_t slot, const std::string& path) {
  for (size_t i = 0; i < p.dims.size(); ++i) {
    if (p.dims[i].kind == DimPattern::Kind::kBind && p.dims[i].ref == slot) return StrCat(path, " dim ", i);
  }
  for (size_t i = 0; i < p.fields.size(); ++i) {
    std::string found = FindBinder(f, p.fields[i], slot, StrCat(path, " field ", i));
    if (!found.empty()) return found;
  }
  return {};
}

std::string SlotBinder(const VMFunction& f, int32_t slot) {
  for (const Instruction& ins : f.code) {
    if (ins.op != Opcode::kMatch || ins.aux != 0) continue;
    const TypePattern& p = f.patterns[ins.index];
    std::string found = FindBinder(f, p, slot, MessageText(p.context, 80));
    if (!found.empty()) return found;
  }
  return {};
}

void CollectSlots(const VMFunction& f, int32_t index, std::vector<int64_t>& out) {
  const ShapeExprOp& e = f.shape_exprs[index];
  if (e.kind == ShapeExprOp::Kind::kSlot) {
    if (std::find(out.begin(), out.end(), e.value) == out.end()) out.push_back(e.value);
  } else if (e.kind != ShapeExprOp::Kind::kConst) {
    CollectSlots(f, e.a, out);
    CollectSlots(f, e.b, out);
  }
}

/// Where an expected dim comes from, for a mismatch message: " (n = 4 from argument 0 (%x)
/// dim 1)"; "" for a constant of the signature (the expected type shows it).
std::string ExplainDim(const VMFunction& f, int32_t expr, const std::vector<int64_t>& slots) {
  std::vector<int64_t> used;
  CollectSlots(f, expr, used);
  std::string text;
  for (size_t i = 0; i < used.size() && i < 4; ++i) {
    int64_t slot = used[i];
    std::string binder = SlotBinder(f, static_cast<int32_t>(slot));
    text += StrCat(i == 0 ? "" : ", ", MessageText(f.slot_names[slot], 40), " = ", slots[slot],
                   binder.empty() ? "" : " from " + binder);
  }
  return text.empty() ? text : ": " + text;
}

// Checks |value| against |p|. Phase 0 checks kinds, dtypes and ranks and binds symbolic dims
// seen first; phase 1 checks dims derived from bound ones. Returns an empty string when it
// matches, else what is wrong (for the caller's message).
std::string MatchPattern(const VMFunction& f, const TypePattern& p, const Value& value, int phase,
                         std::vector<int64_t>& slots) {
  switch (p.kind) {
    case TypePattern::Kind::kAny: return {};
    case TypePattern::Kind::kPrim:
      if (phase == 0 && !value.is_int() && !value.is_float() &&
          !(value.is_tensor() && value.tensor().defined() && value.tensor().ndim() == 0)) {
        return "not a scalar";
      }
      return {};
    case TypePattern::Kind::kTuple: {
      if (!value.is_tuple()) return phase == 0 ? "not a tuple" : "";
      if (value.tuple().size() != p.fields.size()) return StrCat("a tuple of ", value.tuple().size(), " fields");
      for (size_t i = 0; i < p.fields.size(); ++i) {
        std::string why = MatchPattern(f, p.fields[i], value.tuple()[i], phase, slots);
        if (!why.empty()) return StrCat("field ", i, ": ", why);
      }
      return {};
    }
    case TypePattern::Kind::kShape:
    case TypePattern::Kind::kTensor: {
      const std::vector<int64_t>* dims = nullptr;
      if (p.kind == TypePattern::Kind::kShape) {
        if (!value.is_shape()) return "not a shape";
        dims = &value.shape();
      } else {
        if (!value.is_tensor() || !value.tensor().defined()) return "not a tensor";
        const Tensor& t = value.tensor();
        if (p.dtype != 0 && static_cast<uint8_t>(t.dtype()) != p.dtype) return "wrong dtype";
        dims = &t.shape();
      }
      if (p.ndim >= 0 && static_cast<int32_t>(dims->size()) != p.ndim) return "wrong rank";
      if (!p.dims_known) return {};
      for (size_t i = 0; i < p.dims.size(); ++i) {
        const DimPattern& d = p.dims[i];
        int64_t actual = (*dims)[i];
        if (phase == 0 && d.kind == DimPattern::Kind::kBind) slots[d.ref] = actual;
        if (phase == 1 && d.kind == DimPattern::Kind::kMatch) {
          int64_t expected = EvalShapeExpr(f, slots, d.ref);
          if (expected != actual) return StrCat("dim ", i, " is ", actual, " but should be ", expected, ExplainDim(f, d.ref, slots));
        }
      }
      return {};
    }
  }
  return "unknown pattern";
}

}  // namespace

void VirtualMachine::Match(const VMFunction& f, const Instruction& ins, Frame& frame, bool top_level) {
  const TypePattern& p = f.patterns[ins.index];
  const Value& value = frame.registers[ins.arg];
  std::string why = MatchPattern(f, p, value, ins.aux, frame.slots);
  if (why.empty()) return;
  std::string detail = (why == "wrong dtype" || why == "wrong rank" || why.rfind("not a", 0) == 0) ? "" : " (" + why + ")";
  std::string message = StrCat(f.name, ": ", MessageText(p.context), ": expected ", MessageText(p.text), ", got ",
                               value.Describe(), detail);
  if (top_level && ins.arg < f.num_params()) throw ArgumentError(ins.arg, message);
  Throw(ErrorCode::kInvalidArgument, message);
}

void VirtualMachine::CallKernelLike(const Instruction& ins, Frame& frame) {
  bool is_kernel = ins.op == Opcode::kCallKernel;
  const std::string& name = is_kernel ? exec_.kernels[ins.index].name : exec_.externs[ins.index];
  int n = static_cast<int>(ins.operands.size());
  for (int i = 0; i < n; ++i) {
    const Value& v = frame.registers[ins.operands[i]];
    DLTensor& dl = frame.dl_args[i];
    if (v.is_tensor()) {
      dl = ToDLTensorView(v.tensor());
    } else if (v.is_int() || v.is_float()) {
      dl = DLTensor{};
      dl.device = DLDevice{kDLCPU, 0};
      dl.ndim = 0;
      if (v.is_int()) {
        frame.int_scalars[i] = v.int_value();
        dl.data = &frame.int_scalars[i];
        dl.dtype = ToDLDataType(DType::kInt64);
      } else {
        frame.float_scalars[i] = v.float_value();
        dl.data = &frame.float_scalars[i];
        dl.dtype = ToDLDataType(DType::kFloat64);
      }
    } else {
      Throw(ErrorCode::kInvalidArgument, is_kernel ? "kernel '" : "extern function '", name, "': argument ", i,
            " must be a tensor or a scalar, got ", v.Describe());
    }
    frame.dl_pointers[i] = &dl;
  }
  Clock::time_point start;
  if (profiling_) start = Clock::now();
  try {
    if (is_kernel) {
      kernels_[ins.index]->Call(frame.dl_pointers.data(), n);
    } else {
      externs_[ins.index](frame.dl_pointers.data(), n);
    }
  } catch (const Error& e) {
    throw Error(e.code(), StrCat(is_kernel ? "kernel '" : "extern function '", name, "': ", e.what()));
  } catch (const std::exception& e) {
    throw Error(ErrorCode::kInternal, StrCat(is_kernel ? "kernel '" : "extern function '", name, "': ", e.what()));
  }
  if (profiling_) {
    ProfileRow& row = kernel_profile_[is_kernel ? ins.index : exec_.kernels.size() + ins.index];
    row.calls++;
    row.total_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
  }
}

// Where the tensor's storage comes from is the memory plan's choice (aux, executable.h).
void VirtualMachine::AllocTensor(const VMFunction& f, const Instruction& ins, Frame& frame) {
  DType dtype = static_cast<DType>(ins.index);
  if (ins.aux > 0) {  // the arena: the view is made once per frame
    Value& planned = frame.arena_values[ins.aux - 1];
    if (!planned.is_tensor()) {
      std::vector<int64_t> dims(ins.operands.size());
      for (size_t i = 0; i < dims.size(); ++i) dims[i] = EvalShapeExpr(f, frame.slots, ins.operands[i]);
      std::shared_ptr<std::byte> view(frame.arena, frame.arena.get() + f.arena_tensors[ins.aux - 1].offset);
      planned = Value(Tensor::FromSharedStorage(std::move(dims), dtype, std::move(view)));
    }
    frame.registers[ins.dst] = planned;
    return;
  }
  size_t n = ins.operands.size();
  for (size_t i = 0; i < n; ++i) {
    frame.dims[i] = EvalShapeExpr(f, frame.slots, ins.operands[i]);
    if (frame.dims[i] < 0) {
      Throw(ErrorCode::kInvalidArgument, f.name, ": output dim ", i, " is negative (", frame.dims[i], ")");
    }
  }
  auto dims = [&] { return std::vector<int64_t>(frame.dims.begin(), frame.dims.begin() + static_cast<ptrdiff_t>(n)); };
  if (ins.aux < 0) {  // a reuse slot: its last tensor, when the dims match
    Value& slot = frame.reuse_values[-static_cast<int64_t>(ins.aux) - 1];
    bool fits = slot.is_tensor() && slot.tensor().dtype() == dtype && slot.tensor().shape().size() == n &&
                std::equal(slot.tensor().shape().begin(), slot.tensor().shape().end(), frame.dims.begin());
    if (!fits) {
      slot = Value(Tensor::Empty(dims(), dtype));
      ++num_storage_allocations_;
    }
    frame.registers[ins.dst] = slot;
    return;
  }
  // A donated argument (docs/vm.md, "Donated inputs"): its storage, when the caller gave the
  // tensor up and nothing else holds it; the kernel then writes the result over it.
  if (ins.arg >= 0) {
    const Value& donor = frame.registers[ins.arg];
    if (donor.is_sole_tensor_owner() && donor.tensor().dtype() == dtype && donor.tensor().shape().size() == n &&
        std::equal(donor.tensor().shape().begin(), donor.tensor().shape().end(), frame.dims.begin())) {
      frame.registers[ins.dst] = donor;
      ++num_donated_;
      return;
    }
  }
  // Per call (the tensor may escape): a recycled tensor that only this frame still holds.
  std::array<Value, 2>& recycled = frame.recycled[static_cast<size_t>(&ins - f.code.data())];
  for (Value& old : recycled) {
    if (old.is_sole_tensor_owner() && old.tensor().dtype() == dtype && old.tensor().shape().size() == n &&
        std::equal(old.tensor().shape().begin(), old.tensor().shape().end(), frame.dims.begin())) {
      frame.registers[ins.dst] = old;
      return;
    }
  }
  recycled[1] = std::move(recycled[0]);
  recycled[0] = Value(Tensor::Empty(dims(), dtype));
  ++num_storage_allocations_;
  frame.registers[ins.dst] = recycled[0];
}

// A view of a planned tensor (aux 1) is kept in the frame and handed out again while its
// tensor and dims are the same (the storage is the frame's, so holding the view keeps nothing
// else alive); other views are made anew.
void VirtualMachine::View(const VMFunction& f, const Instruction& ins, Frame& frame) {
  const Value& source = frame.registers[ins.arg];
  DType dtype = static_cast<DType>(ins.index);
  if (!source.is_tensor() || !source.tensor().defined() || source.tensor().dtype() != dtype) {
    Throw(ErrorCode::kInvalidArgument, f.name, ": a view needs a ", DTypeName(dtype), " tensor, got ", source.Describe());
  }
  const Tensor& tensor = source.tensor();
  size_t n = ins.operands.size();
  int64_t elements = 1;
  for (size_t i = 0; i < n; ++i) {
    frame.dims[i] = EvalShapeExpr(f, frame.slots, ins.operands[i]);
    if (frame.dims[i] < 0) Throw(ErrorCode::kInvalidArgument, f.name, ": view dim ", i, " is negative (", frame.dims[i], ")");
    if (!CheckedMul(elements, frame.dims[i], &elements)) {
      Throw(ErrorCode::kInvalidArgument, f.name, ": a view of ", tensor.numel(), " elements cannot have more than 2^63");
    }
  }
  if (elements != tensor.numel()) {
    Throw(ErrorCode::kInvalidArgument, f.name, ": a view of ", tensor.numel(), " elements cannot have ", elements);
  }
  auto dims = frame.dims.begin();
  if (ins.aux == 1) {
    Value& cached = frame.views[static_cast<size_t>(&ins - f.code.data())];
    if (cached.is_tensor() && cached.tensor().data() == tensor.data() && cached.tensor().shape().size() == n &&
        std::equal(cached.tensor().shape().begin(), cached.tensor().shape().end(), dims)) {
      frame.registers[ins.dst] = cached;
      return;
    }
    cached = Value(tensor.Reshaped(std::vector<int64_t>(dims, dims + static_cast<ptrdiff_t>(n))));
    frame.registers[ins.dst] = cached;
    return;
  }
  frame.registers[ins.dst] = Value(tensor.Reshaped(std::vector<int64_t>(dims, dims + static_cast<ptrdiff_t>(n))));
}

Value VirtualMachine::Run(int function, const Value* args, int num_args, int depth, bool take) {
  const VMFunction& f = exec_.functions[function];
  if (num_args != f.num_params()) {
    Throw(ErrorCode::kInvalidArgument, f.name, ": expected ", f.num_params(), " argument", f.num_params() == 1 ? "" : "s",
          ", got ", num_args);
  }
  if (depth >= kMaxCallDepth) Throw(ErrorCode::kOutOfRange, f.name, ": calls nested deeper than ", kMaxCallDepth);
  Frame& frame = AcquireFrame(function, depth);
  std::vector<Value>& regs = frame.registers;
  for (int i = 0; i < num_args; ++i) {
    if (take) {
      regs[i] = std::move(const_cast<Value&>(args[i]));  // InvokeTakingArguments' vector, given to the call
    } else {
      regs[i] = args[i];
    }
  }

  size_t pc = 0;
  while (true) {
    if (pc >= f.code.size()) Throw(ErrorCode::kInternal, f.name, ": ran past the end of its code");
    const Instruction& ins = f.code[pc];
    Clock::time_point start;
    if (profiling_) start = Clock::now();
    size_t next = pc + 1;
    switch (ins.op) {
      case Opcode::kMove: regs[ins.dst] = regs[ins.arg]; break;
      case Opcode::kLoadConst: regs[ins.dst] = exec_.constants[ins.index]; break;
      case Opcode::kMakeInt: regs[ins.dst] = Value::Int(EvalShapeExpr(f, frame.slots, ins.index)); break;
      case Opcode::kMakeShape: {
        std::vector<int64_t> dims(ins.operands.size());
        for (size_t i = 0; i < dims.size(); ++i) dims[i] = EvalShapeExpr(f, frame.slots, ins.operands[i]);
        regs[ins.dst] = Value::Shape(std::move(dims));
        break;
      }
      case Opcode::kMakeTuple: {
        std::vector<Value> fields(ins.operands.size());
        for (size_t i = 0; i < fields.size(); ++i) fields[i] = regs[ins.operands[i]];
        regs[ins.dst] = Value::Tuple(std::move(fields));
        break;
      }
      case Opcode::kGetItem: {
        const Value& t = regs[ins.arg];
        if (!t.is_tuple() || static_cast<size_t>(ins.index) >= t.tuple().size()) {
          Throw(ErrorCode::kInvalidArgument, f.name, ": item ", ins.index, " of ", t.Describe(), " does not exist");
        }
        Value item = t.tuple()[ins.index];  // copied first: dst may be the tuple's register
        regs[ins.dst] = std::move(item);
        break;
      }
      case Opcode::kAllocTensor:
        try {
          AllocTensor(f, ins, frame);
        } catch (const Error& e) {
          throw Error(e.code(), StrCat(f.name, ": instruction ", pc, " (alloc_tensor): ", e.what()));
        }
        break;
      case Opcode::kCallKernel:
      case Opcode::kCallExtern: CallKernelLike(ins, frame); break;
      case Opcode::kCallFunc: {
        int n = static_cast<int>(ins.operands.size());
        for (int i = 0; i < n; ++i) frame.call_args[i] = regs[ins.operands[i]];
        Value result = Run(ins.index, frame.call_args.data(), n, depth + 1);
        for (int i = 0; i < n; ++i) frame.call_args[i] = Value();
        regs[ins.dst] = std::move(result);
        break;
      }
      case Opcode::kMatch: Match(f, ins, frame, depth == 0); break;
      case Opcode::kView: View(f, ins, frame); break;
      case Opcode::kJumpIfFalse:
        if (!IsTrue(regs[ins.arg])) next = ins.index;
        break;
      case Opcode::kJump: next = ins.index; break;
      case Opcode::kReturn: {
        Value result = regs[ins.arg];
        for (Value& r : regs) r = Value();  // release intermediates now, not at the next call
        if (profiling_) {
          instruction_profile_[static_cast<int>(ins.op)].calls++;
        }
        return result;
      }
    }
    if (profiling_) {
      ProfileRow& row = instruction_profile_[static_cast<int>(ins.op)];
      row.calls++;
      row.total_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
    }
    pc = next;
  }
}

}  // namespace rxt
