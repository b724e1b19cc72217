// The Executable's in-memory checks and its listing; executable_io.cc reads and writes files.
#include "rxt/runtime/executable.h"

#include <algorithm>
#include <sstream>

#include "rxt/support/error.h"
#include "rxt/support/message_text.h"

namespace rxt {
namespace {

constexpr int kMaxPatternDepth = 64;
constexpr int64_t kMaxArenaBytes = int64_t{1} << 48;
// A dim expression the compiler writes has a handful of terms; this bounds the VM's evaluation.
constexpr int64_t kMaxShapeExprNodes = 1024;

class Validator {
 public:
  Validator(const Executable& exec, const VMFunction& f) : exec_(exec), f_(f) {}

  void Run() {
    if (f_.num_registers < f_.num_params() || f_.num_registers > (1 << 24)) {
      Fail("has ", f_.num_registers, " registers for ", f_.num_params(), " parameters");
    }
    if (f_.num_slots < 0 || f_.num_slots > (1 << 24)) Fail("has ", f_.num_slots, " slots");
    if (f_.slot_names.size() != static_cast<size_t>(f_.num_slots)) Fail("names ", f_.slot_names.size(), " slots of ", f_.num_slots);
    expr_nodes_.assign(f_.shape_exprs.size(), 0);
    for (size_t i = 0; i < f_.shape_exprs.size(); ++i) CheckShapeExpr(f_.shape_exprs[i], static_cast<int32_t>(i));
    for (const TypePattern& p : f_.patterns) CheckPattern(p, 0);
    CheckMemoryPlan();
    if (f_.code.empty()) Fail("has no instructions");
    Opcode last = f_.code.back().op;
    if (last != Opcode::kReturn && last != Opcode::kJump) Fail("does not end with a return or a jump");
    for (size_t pc = 0; pc < f_.code.size(); ++pc) CheckInstruction(f_.code[pc], pc);
    CheckArenaUsed();
  }

 private:
  template <typename... Args>
  [[noreturn]] void Fail(const Args&... args) const {
    Throw(ErrorCode::kDataLoss, exec_.Label(), ": function ", Quoted(f_.name), " ", args...);
  }

  void Register(int32_t r, size_t pc) const {
    if (r < 0 || r >= f_.num_registers) Fail("instruction ", pc, " uses register ", r, " of ", f_.num_registers);
  }
  void Index(int32_t i, size_t size, const char* what, size_t pc) const {
    if (i < 0 || static_cast<size_t>(i) >= size) Fail("instruction ", pc, " refers to ", what, " ", i, " of ", size);
  }

  // The arena must be of a sane size and hold every planned tensor, aligned.
  void CheckMemoryPlan() {
    if (f_.arena_bytes < 0 || f_.arena_bytes > kMaxArenaBytes) Fail("has an arena of ", f_.arena_bytes, " bytes");
    if (f_.arena_tensors.size() > (1u << 24)) Fail("places ", f_.arena_tensors.size(), " tensors in its arena");
    for (size_t i = 0; i < f_.arena_tensors.size(); ++i) {
      const ArenaTensor& t = f_.arena_tensors[i];
      if (t.offset < 0 || t.nbytes < 0 || t.offset % kArenaAlignment != 0 || t.offset > f_.arena_bytes ||
          t.nbytes > f_.arena_bytes - t.offset) {
        Fail("places arena tensor ", i, " (", t.nbytes, " bytes at ", t.offset, ") outside its arena of ",
             f_.arena_bytes, " bytes");
      }
    }
    // The plan's arena ends where its last tensor does: it cannot ask for more than it places.
    int64_t end = 0;
    for (const ArenaTensor& t : f_.arena_tensors) {
      end = std::max(end, t.offset + (t.nbytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment);
    }
    if (f_.arena_bytes != end) {
      Fail("has an arena of ", f_.arena_bytes, " bytes, but its planned tensors end at byte ", end);
    }
    if (f_.num_reuse_slots < 0 || f_.num_reuse_slots > (1 << 24)) Fail("has ", f_.num_reuse_slots, " reuse slots");
    arena_used_.assign(f_.arena_tensors.size(), false);
  }

  /// Every arena tensor is placed by an alloc_tensor (a plan holds nothing it does not use).
  void CheckArenaUsed() const {
    for (size_t i = 0; i < arena_used_.size(); ++i) {
      if (!arena_used_[i]) Fail("places arena tensor ", i, " but no instruction allocates it");
    }
  }

  /// A planned alloc_tensor: its arena tensor exists, belongs to it alone, and has exactly the
  /// bytes of its static shape; a reuse slot exists.
  void CheckAllocPlan(const Instruction& ins, size_t pc) {
    if (ins.aux < 0) {
      int64_t slot = -static_cast<int64_t>(ins.aux) - 1;
      if (slot >= f_.num_reuse_slots) Fail("instruction ", pc, " uses reuse slot ", slot, " of ", f_.num_reuse_slots);
      return;
    }
    if (ins.aux == 0) return;
    size_t entry = static_cast<size_t>(ins.aux) - 1;
    Index(static_cast<int32_t>(entry), f_.arena_tensors.size(), "arena tensor", pc);
    if (arena_used_[entry]) Fail("instruction ", pc, " reuses arena tensor ", entry, " of another instruction");
    arena_used_[entry] = true;
    int64_t bytes = static_cast<int64_t>(DTypeBytes(static_cast<DType>(ins.index)));
    for (int32_t e : ins.operands) {
      const ShapeExprOp& dim = f_.shape_exprs[e];
      if (dim.kind != ShapeExprOp::Kind::kConst || dim.value < 0 || dim.value > kMaxArenaBytes) {
        Fail("instruction ", pc, " places a tensor of non-constant shape in the arena");
      }
      if (dim.value != 0 && bytes > kMaxArenaBytes / dim.value) Fail("instruction ", pc, " places too large a tensor");
      bytes *= dim.value;
    }
    if (bytes != f_.arena_tensors[entry].nbytes) {
      Fail("instruction ", pc, " needs ", bytes, " bytes but arena tensor ", entry, " has ", f_.arena_tensors[entry].nbytes);
    }
  }

  void CheckShapeExpr(const ShapeExprOp& e, int32_t self) {
    using K = ShapeExprOp::Kind;
    if (static_cast<int>(e.kind) > static_cast<int>(K::kMax)) Fail("shape expr ", self, " has an unknown kind");
    expr_nodes_[self] = 1;
    if (e.kind == K::kConst) return;
    if (e.kind == K::kSlot) {
      if (e.value < 0 || e.value >= f_.num_slots) Fail("shape expr ", self, " reads slot ", e.value);
      return;
    }
    if (e.a < 0 || e.a >= self || e.b < 0 || e.b >= self) Fail("shape expr ", self, " has operands out of order");
    // The VM evaluates an expr as a tree: its operands' trees, shared or not, count in full.
    int64_t nodes = 1 + expr_nodes_[e.a] + expr_nodes_[e.b];
    if (nodes > kMaxShapeExprNodes) Fail("shape expr ", self, " has more than ", kMaxShapeExprNodes, " terms");
    expr_nodes_[self] = nodes;
  }

  void CheckPattern(const TypePattern& p, int depth) const {
    if (depth > kMaxPatternDepth) Fail("has a type pattern nested too deeply");
    if (static_cast<int>(p.kind) > static_cast<int>(TypePattern::Kind::kPrim)) Fail("has a pattern of unknown kind");
    if (p.dtype > static_cast<uint8_t>(DType::kBool)) Fail("has a pattern of unknown dtype ", int{p.dtype});
    if (p.dims_known && p.ndim != static_cast<int32_t>(p.dims.size())) Fail("has a pattern with ", p.dims.size(), " dims for ndim ", p.ndim);
    for (const DimPattern& d : p.dims) {
      if (d.kind == DimPattern::Kind::kBind && (d.ref < 0 || d.ref >= f_.num_slots)) Fail("binds slot ", d.ref);
      if (d.kind == DimPattern::Kind::kMatch && (d.ref < 0 || static_cast<size_t>(d.ref) >= f_.shape_exprs.size())) {
        Fail("matches shape expr ", d.ref);
      }
      if (static_cast<int>(d.kind) > static_cast<int>(DimPattern::Kind::kMatch)) Fail("has a dim of unknown kind");
    }
    for (const TypePattern& field : p.fields) CheckPattern(field, depth + 1);
  }

  void CheckInstruction(const Instruction& ins, size_t pc) {
    auto registers = [&] { for (int32_t r : ins.operands) Register(r, pc); };
    auto shape_exprs = [&] { for (int32_t e : ins.operands) Index(e, f_.shape_exprs.size(), "shape expr", pc); };
    switch (ins.op) {
      case Opcode::kMove: Register(ins.dst, pc); Register(ins.arg, pc); return;
      case Opcode::kLoadConst: Register(ins.dst, pc); Index(ins.index, exec_.constants.size(), "constant", pc); return;
      case Opcode::kMakeInt: Register(ins.dst, pc); Index(ins.index, f_.shape_exprs.size(), "shape expr", pc); return;
      case Opcode::kMakeShape: Register(ins.dst, pc); shape_exprs(); return;
      case Opcode::kMakeTuple: Register(ins.dst, pc); registers(); return;
      case Opcode::kGetItem:
        Register(ins.dst, pc);
        Register(ins.arg, pc);
        if (ins.index < 0) Fail("instruction ", pc, " reads item ", ins.index);
        return;
      case Opcode::kAllocTensor:
        Register(ins.dst, pc);
        if (ins.index <= 0 || ins.index > static_cast<int32_t>(DType::kBool)) Fail("instruction ", pc, " allocates dtype ", ins.index);
        shape_exprs();
        CheckAllocPlan(ins, pc);
        if (ins.arg != -1) {  // a donor: an argument whose storage an unplanned tensor may take
          Register(ins.arg, pc);
          if (ins.arg >= f_.num_params() || ins.aux != 0) {
            Fail("instruction ", pc, " gives register ", ins.arg, "'s storage to a tensor, but only an argument's can go "
                 "to an unplanned one");
          }
        }
        return;
      case Opcode::kCallKernel: Index(ins.index, exec_.kernels.size(), "kernel", pc); registers(); return;
      case Opcode::kCallExtern: Index(ins.index, exec_.externs.size(), "extern function", pc); registers(); return;
      case Opcode::kCallFunc:
        Register(ins.dst, pc);
        Index(ins.index, exec_.functions.size(), "function", pc);
        registers();
        return;
      case Opcode::kMatch:
        Register(ins.arg, pc);
        Index(ins.index, f_.patterns.size(), "pattern", pc);
        if (ins.aux != 0 && ins.aux != 1) Fail("instruction ", pc, " has match phase ", ins.aux);
        return;
      case Opcode::kJumpIfFalse: Register(ins.arg, pc); Index(ins.index, f_.code.size(), "instruction", pc); return;
      case Opcode::kJump: Index(ins.index, f_.code.size(), "instruction", pc); return;
      case Opcode::kReturn: Register(ins.arg, pc); return;
      case Opcode::kView:
        Register(ins.dst, pc);
        Register(ins.arg, pc);
        if (ins.index <= 0 || ins.index > static_cast<int32_t>(DType::kBool)) Fail("instruction ", pc, " views dtype ", ins.index);
        if (ins.aux != 0 && ins.aux != 1) Fail("instruction ", pc, " has view mode ", ins.aux);
        shape_exprs();
        return;
    }
    Fail("instruction ", pc, " has unknown opcode ", static_cast<int>(ins.op));
  }

  const Executable& exec_;
  const VMFunction& f_;
  std::vector<bool> arena_used_;  // per arena tensor: an alloc_tensor places it
  std::vector<int64_t> expr_nodes_;  // per shape expr: its size as a tree
};

}  // namespace

const char* OpcodeName(Opcode op) {
  switch (op) {
    case Opcode::kMove: return "move";
    case Opcode::kLoadConst: return "load_const";
    case Opcode::kMakeInt: return "make_int";
    case Opcode::kMakeShape: return "make_shape";
    case Opcode::kMakeTuple: return "make_tuple";
    case Opcode::kGetItem: return "get_item";
    case Opcode::kAllocTensor: return "alloc_tensor";
    case Opcode::kCallKernel: return "call_kernel";
    case Opcode::kCallExtern: return "call_extern";
    case Opcode::kCallFunc: return "call_func";
    case Opcode::kMatch: return "match";
    case Opcode::kJumpIfFalse: return "jump_if_false";
    case Opcode::kJump: return "jump";
    case Opcode::kReturn: return "return";
    case Opcode::kView: return "view";
  }
  return "?";
}

std::string Executable::Label() const {
  return source.empty() ? std::string("the executable") : StrCat("executable ", Quoted(source));
}

int Executable::FindFunction(const std::string& name) const {
  for (size_t i = 0; i < functions.size(); ++i) {
    if (functions[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

void Executable::Validate() const {
  if (format_version < kOldestFormatVersion || format_version > kFormatVersion) {
    Throw(ErrorCode::kDataLoss, Label(), ": format version ", format_version, " is not supported (this build reads ",
          kOldestFormatVersion, " to ", kFormatVersion, ")");
  }
  for (const VMFunction& f : functions) Validator(*this, f).Run();
}

std::string Executable::Disassemble() const {
  std::ostringstream os;
  os << "executable (backend '" << backend << "', format " << format_version << "): " << functions.size()
     << " functions, " << constants.size() << " constants, " << kernels.size() << " kernels, " << externs.size()
     << " externs\n";
  for (const VMFunction& f : functions) {
    os << "function " << f.name << " (" << f.num_params() << " params, " << f.num_registers << " registers, "
       << f.num_slots << " slots)\n";
    if (!f.arena_tensors.empty() || f.num_reuse_slots > 0) {
      os << "  memory plan: arena " << f.arena_bytes << " bytes for " << f.arena_tensors.size() << " tensors, "
         << f.num_reuse_slots << " reuse slots\n";
    }
    for (size_t pc = 0; pc < f.code.size(); ++pc) {
      const Instruction& ins = f.code[pc];
      os << "  " << pc << ": " << OpcodeName(ins.op);
      if (ins.dst >= 0) os << " r" << ins.dst << " <-";
      if (ins.arg >= 0 && ins.op != Opcode::kAllocTensor) os << " r" << ins.arg;
      if (ins.index >= 0) os << " #" << ins.index;
      if (ins.op == Opcode::kCallKernel && ins.index < static_cast<int>(kernels.size())) os << " (" << kernels[ins.index].name << ")";
      if (ins.op == Opcode::kCallExtern && ins.index < static_cast<int>(externs.size())) os << " (" << externs[ins.index] << ")";
      if (ins.op == Opcode::kMatch) os << " phase " << ins.aux;
      if (ins.op == Opcode::kView && ins.aux == 1) os << " kept";
      if (ins.op == Opcode::kAllocTensor && ins.arg >= 0) os << " donor r" << ins.arg;
      if (!ins.operands.empty()) {
        os << " [";
        for (size_t i = 0; i < ins.operands.size(); ++i) os << (i ? " " : "") << ins.operands[i];
        os << "]";
      }
      if (ins.op == Opcode::kAllocTensor) {
        if (ins.aux > 0 && static_cast<size_t>(ins.aux) <= f.arena_tensors.size()) {
          const ArenaTensor& t = f.arena_tensors[ins.aux - 1];
          os << " arena +" << t.offset << " (" << t.nbytes << " bytes)";
        } else if (ins.aux < 0) {
          os << " reuse slot " << -static_cast<int64_t>(ins.aux) - 1;
        }
      }
      os << "\n";
    }
  }
  return os.str();
}

}  // namespace rxt
