// An Executable: the VM bytecode of a module's functions, their constants, the kernels they
// call (portable-kernel records) and the names of the external functions they call. It saves
// to one file and loads back (docs/vm.md describes the bytecode and the file format).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rxt/runtime/kernel.h"
#include "rxt/runtime/value.h"

namespace rxt {

/// The instructions of the VM. Registers are per call frame; "slots" hold the int64 values of
/// a function's symbolic dims (bound at entry by kMatch, read by shape expressions).
enum class Opcode : uint8_t {
  kMove,         // dst = reg[arg]
  kLoadConst,    // dst = constants[index]
  kMakeInt,      // dst = Int(shape_exprs[index])
  kMakeShape,    // dst = Shape(shape_exprs[operands...])
  kMakeTuple,    // dst = Tuple(reg[operands...])
  kGetItem,      // dst = reg[arg].tuple()[index]
  kAllocTensor,  // dst = a tensor of dtype |index| and shape shape_exprs[operands...]; aux: its storage (VMFunction)
  kCallKernel,   // kernels[index](reg[operands...]): inputs then the (allocated) outputs
  kCallExtern,   // externs[index](reg[operands...]), like kCallKernel
  kCallFunc,     // dst = functions[index](reg[operands...])
  kMatch,        // checks reg[arg] against patterns[index]; aux 0: kinds + binding, 1: derived dims
  kJumpIfFalse,  // if reg[arg] is false (0-d tensor or int), jump to instruction |index|
  kJump,         // jump to instruction |index|
  kReturn,       // return reg[arg]
  kView,         // dst = reg[arg] (a tensor of dtype |index|) seen with shape shape_exprs[operands...]: no copy
};
inline constexpr int kNumOpcodes = static_cast<int>(Opcode::kView) + 1;
const char* OpcodeName(Opcode op);

struct Instruction {
  Opcode op = Opcode::kMove;
  int32_t dst = -1;
  int32_t arg = -1;
  int32_t index = -1;
  int32_t aux = 0;
  std::vector<int32_t> operands;
};

/// A node of the integer programs that compute symbolic dims from slots.
struct ShapeExprOp {
  enum class Kind : uint8_t { kConst, kSlot, kAdd, kSub, kMul, kFloorDiv, kFloorMod, kMin, kMax };
  Kind kind = Kind::kConst;
  int64_t value = 0;  // kConst: the value; kSlot: the slot
  int32_t a = -1, b = -1;  // operands (earlier shape exprs)
};

/// One dim of a tensor (or shape) pattern.
struct DimPattern {
  enum class Kind : uint8_t {
    kAny,    // unknown dim
    kBind,   // a symbolic variable seen here first: slot |ref| = the dim
    kMatch,  // must equal shape expr |ref| (a constant, or a variable bound before)
  };
  Kind kind = Kind::kAny;
  int32_t ref = -1;
};

/// The checkable part of a struct info, compiled.
struct TypePattern {
  enum class Kind : uint8_t { kAny, kTensor, kTuple, kShape, kPrim };
  Kind kind = Kind::kAny;
  uint8_t dtype = 0;  // rxt::DType; kUnknown: any
  int32_t ndim = -1;  // -1: any
  bool dims_known = false;
  std::vector<DimPattern> dims;
  std::vector<TypePattern> fields;  // kTuple
  std::string text;     // the struct info as written: Tensor((1, m), float32)
  std::string context;  // top level only: "argument 0 (%x)", "match_cast of %y"
};

/// A tensor the memory plan places in its function's arena.
struct ArenaTensor {
  int64_t offset = 0;  // bytes from the start of the arena, a multiple of kArenaAlignment
  int64_t nbytes = 0;  // the tensor's size (its alloc_tensor's dtype and static shape)
};
inline constexpr int64_t kArenaAlignment = 64;

struct VMFunction {
  std::string name;
  std::vector<std::string> param_names;
  int32_t num_registers = 0;  // parameters are registers 0 .. num_params-1
  int32_t num_slots = 0;
  std::vector<Instruction> code;
  std::vector<ShapeExprOp> shape_exprs;
  std::vector<TypePattern> patterns;
  /// The symbolic variable held by each slot, for messages.
  std::vector<std::string> slot_names;
  /// The memory plan (docs/vm.md). The aux of an alloc_tensor says where its storage comes
  /// from: 0, allocated when it runs; k > 0, arena_tensors[k - 1] in the arena, one block of
  /// arena_bytes per call frame allocated once; k < 0, reuse slot -k - 1, which keeps the
  /// storage of its last tensor for the next one of the same dtype and dims.
  int64_t arena_bytes = 0;
  std::vector<ArenaTensor> arena_tensors;
  int32_t num_reuse_slots = 0;
  int32_t num_params() const { return static_cast<int32_t>(param_names.size()); }
};

class Executable {
 public:
  /// Version 2 added the memory plan of each function and the path of the ahead-of-time
  /// kernel library, version 3 the view instruction; older files still load.
  static constexpr uint32_t kFormatVersion = 3;
  static constexpr uint32_t kOldestFormatVersion = 1;

  std::vector<VMFunction> functions;
  std::vector<Value> constants;
  std::vector<KernelRecord> kernels;
  std::vector<std::string> externs;
  std::string backend;  // the backend the kernels were built for ("" = any)
  /// The shared library holding the kernels compiled ahead of time (their symbols are in the
  /// records; `rxt build --emit-library`), or "" for none. Save stores it relative to the
  /// executable's directory when it lies there; Load resolves it against that directory.
  std::string aot_library;
  /// The version of the file this executable was read from (Serialize writes kFormatVersion).
  uint32_t format_version = kFormatVersion;
  /// Where it was read from (Deserialize's |source|, Load's path), for messages; not saved.
  std::string source;

  /// "executable 'path'" (or "the executable" when it was not read from anywhere): how
  /// messages about it begin.
  std::string Label() const;

  /// Index of the function called |name|, or -1.
  int FindFunction(const std::string& name) const;
  /// Checks every index in the bytecode (registers, constants, kernels, jump targets, slots,
  /// shape exprs refer only backwards) so that running it cannot read out of bounds. Throws
  /// kDataLoss describing the first problem. Load() and the VM call it.
  void Validate() const;

  /// The whole executable as bytes: magic, format version, sections, checksum.
  std::vector<uint8_t> Serialize() const;
  /// Throws kDataLoss naming |source| and the problem for malformed bytes.
  static Executable Deserialize(const uint8_t* data, size_t size, const std::string& source = "<memory>");
  /// Writes to |path| through a temporary file renamed into place.
  void Save(const std::string& path) const;
  /// Reads |path|; a relative aot_library becomes a path relative to the file's directory.
  static Executable Load(const std::string& path);

  /// Readable listing of the bytecode, for debugging and docs.
  std::string Disassemble() const;
};

}  // namespace rxt
