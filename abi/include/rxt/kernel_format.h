// kernel_format.h: the portable kernel format of rxt (C++17, header-only, no dependencies).
//
// A kernel function (loop-level code: buffers, loops, stores, blocks, scalar expressions)
// crosses from the compiler to a backend plugin as bytes in this format. The core writes them
// (rxt/ir/kernel_encoding.h); a backend, which links nothing of rxt, reads them here:
//
//   #include <rxt/kernel_format.h>
//   rxt::kernel_format::DecodeResult r = rxt::kernel_format::DecodeKernel(bytes, size);
//   if (!r.ok()) return Fail(r.error);
//   const rxt::kernel_format::Kernel& k = r.kernel;   // k.stmts.back() is the body
//
// The decoded kernel is plain data mirroring the kernel IR: variables, buffers, expressions
// and statements live in flat vectors and refer to each other by index. DecodeKernel checks
// every byte and every invariant listed at ValidateKernel, so a backend may rely on them
// without checking again; malformed input gives an error string, never a crash or an
// out-of-bounds read. docs/kernel_format.md describes the bytes and the semantics.
#ifndef RXT_KERNEL_FORMAT_H_
#define RXT_KERNEL_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rxt {
namespace kernel_format {

// ---------------------------------------------------------------------------------------------
// Constants and enums. Their numeric values are part of the format: never renumber, only append
// (and bump kFormatVersion when a reader of the old version could not read the new bytes).

inline constexpr char kMagic[4] = {'R', 'X', 'T', 'K'};
inline constexpr uint32_t kFormatVersion = 1;
/// Deepest nesting accepted for expressions and, separately, for statements.
inline constexpr int kMaxDepth = 1024;
/// Most dimensions a buffer or tensor attribute may have.
inline constexpr int kMaxNdim = 64;
/// Deepest nesting of array attribute values.
inline constexpr int kMaxAttrDepth = 64;
/// Stands for "no statement" in optional statement references (If::else_case, Block::init).
inline constexpr int32_t kNone = -1;

enum class DType : uint8_t {
  kUnknown = 0,  // only as the value of a dtype attribute, never the type of data
  kFloat16 = 1,
  kBFloat16 = 2,
  kFloat32 = 3,
  kFloat64 = 4,
  kInt8 = 5,
  kInt16 = 6,
  kInt32 = 7,
  kInt64 = 8,
  kUInt8 = 9,
  kBool = 10,
};
inline constexpr int kNumDTypes = 11;

enum class ExprKind : uint8_t {
  kIntImm = 0,     // int_value (bool immediates: dtype bool, value 0 or 1)
  kFloatImm = 1,   // float_value
  kVar = 2,        // var
  kBinary = 3,     // binary_op, operands {a, b}
  kNot = 4,        // operands {x}
  kSelect = 5,     // operands {cond, if_true, if_false}
  kCast = 6,       // operands {x}
  kIntrinsic = 7,  // intrinsic, operands = arguments
  kLoad = 8,       // buffer, operands = indices
};
inline constexpr int kNumExprKinds = 9;

enum class BinaryOp : uint8_t {
  kAdd = 0, kSub = 1, kMul = 2, kDiv = 3, kFloorDiv = 4, kFloorMod = 5, kMin = 6, kMax = 7,
  kEq = 8, kNe = 9, kLt = 10, kLe = 11, kGt = 12, kGe = 13, kAnd = 14, kOr = 15,
};
inline constexpr int kNumBinaryOps = 16;

enum class Intrinsic : uint8_t {
  kExp = 0, kLog = 1, kSqrt = 2, kRsqrt = 3, kTanh = 4, kSigmoid = 5, kAbs = 6, kNeg = 7,
  kErf = 8, kFloor = 9, kCeil = 10, kRound = 11, kIsNan = 12, kPow = 13,
};
inline constexpr int kNumIntrinsics = 14;

enum class StmtKind : uint8_t { kSeq = 0, kFor = 1, kStore = 2, kIf = 3, kAllocate = 4, kBlock = 5 };
inline constexpr int kNumStmtKinds = 6;

enum class LoopKind : uint8_t { kSerial = 0, kParallel = 1, kVectorized = 2, kUnrolled = 3 };
inline constexpr int kNumLoopKinds = 4;

enum class IterKind : uint8_t { kSpatial = 0, kReduce = 1 };
enum class ParamKind : uint8_t { kBuffer = 0, kScalar = 1 };
enum class AttrKind : uint8_t {
  kNone = 0, kBool = 1, kInt = 2, kFloat = 3, kString = 4, kDType = 5, kTensor = 6, kArray = 7,
};
inline constexpr int kNumAttrKinds = 8;

// ---------------------------------------------------------------------------------------------
// The decoded kernel. Indices are int32_t positions in the Kernel's vectors.

/// A scalar variable: symbolic dim, scalar parameter, loop variable or block iterator.
struct Var {
  std::string name;
  DType dtype = DType::kInt64;
};

/// A multi-dimensional view of memory: a buffer parameter or a local allocation.
struct Buffer {
  std::string name;
  DType dtype = DType::kFloat32;
  std::vector<int32_t> shape;    // expressions (integer); a bare variable in a parameter's shape
                                 // is bound from the argument's shape at call time
  std::vector<int32_t> strides;  // expressions, in elements; empty = compact row-major
};

/// One scalar expression node. Which fields mean something depends on |kind| (see ExprKind).
struct Expr {
  ExprKind kind = ExprKind::kIntImm;
  DType dtype = DType::kInt64;  // the type of the result
  int64_t int_value = 0;
  double float_value = 0;
  int32_t var = kNone;
  int32_t buffer = kNone;
  BinaryOp binary_op = BinaryOp::kAdd;
  Intrinsic intrinsic = Intrinsic::kExp;
  std::vector<int32_t> operands;  // expressions, each with a smaller index than this one
};

struct IterVar {
  int32_t var = kNone;
  int32_t value = kNone;  // expression, evaluated outside the block
  IterKind kind = IterKind::kSpatial;
};

/// One statement node. Children (statements) have smaller indices than their parent.
struct Stmt {
  StmtKind kind = StmtKind::kSeq;
  std::vector<int32_t> stmts;      // kSeq
  int32_t var = kNone;             // kFor: the loop variable, 0 .. extent-1
  int32_t extent = kNone;          // kFor
  LoopKind loop_kind = LoopKind::kSerial;
  int32_t buffer = kNone;          // kStore, kAllocate
  std::vector<int32_t> indices;    // kStore
  int32_t value = kNone;           // kStore
  int32_t cond = kNone;            // kIf
  int32_t then_case = kNone;       // kIf
  int32_t else_case = kNone;       // kIf (kNone: no else)
  std::string name;                // kBlock
  std::vector<IterVar> iter_vars;  // kBlock
  int32_t init = kNone;            // kBlock (kNone: no init); runs when every reduce iterator is 0
  int32_t body = kNone;            // kFor, kAllocate, kBlock
};

/// A kernel parameter: a buffer (index into buffers) or a scalar (index into vars).
struct Param {
  ParamKind kind = ParamKind::kBuffer;
  int32_t index = kNone;
};

/// A tensor attribute value: raw little-endian element bytes, row-major.
struct TensorValue {
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;
};

struct AttrValue {
  AttrKind kind = AttrKind::kNone;
  bool bool_value = false;
  int64_t int_value = 0;
  double float_value = 0;
  std::string string_value;
  DType dtype_value = DType::kUnknown;
  TensorValue tensor_value;
  std::vector<AttrValue> array_value;
};

struct Attr {
  std::string name;
  AttrValue value;
};

struct Kernel {
  std::string name;
  std::vector<Var> vars;
  std::vector<Buffer> buffers;
  std::vector<Expr> exprs;
  std::vector<Stmt> stmts;   // the last one is the body
  std::vector<Param> params; // destination-passing style: outputs are the trailing buffers
  std::vector<Attr> attrs;

  int32_t body() const { return static_cast<int32_t>(stmts.size()) - 1; }
};

/// Either a valid kernel or why the bytes are not one.
struct DecodeResult {
  Kernel kernel;
  std::string error;  // empty on success
  bool ok() const { return error.empty(); }
};

// ---------------------------------------------------------------------------------------------
// Names and properties.

inline const char* DTypeName(DType t) {
  switch (t) {
    case DType::kUnknown: return "unknown";
    case DType::kFloat16: return "float16";
    case DType::kBFloat16: return "bfloat16";
    case DType::kFloat32: return "float32";
    case DType::kFloat64: return "float64";
    case DType::kInt8: return "int8";
    case DType::kInt16: return "int16";
    case DType::kInt32: return "int32";
    case DType::kInt64: return "int64";
    case DType::kUInt8: return "uint8";
    case DType::kBool: return "bool";
  }
  return "invalid";
}

/// Storage bits of one element (bool is stored as one byte).
inline int DTypeBits(DType t) {
  switch (t) {
    case DType::kFloat16: case DType::kBFloat16: case DType::kInt16: return 16;
    case DType::kFloat32: case DType::kInt32: return 32;
    case DType::kFloat64: case DType::kInt64: return 64;
    case DType::kInt8: case DType::kUInt8: case DType::kBool: return 8;
    case DType::kUnknown: return 0;
  }
  return 0;
}
inline bool IsFloat(DType t) {
  return t == DType::kFloat16 || t == DType::kBFloat16 || t == DType::kFloat32 || t == DType::kFloat64;
}
/// A signed or unsigned integer (not bool).
inline bool IsInt(DType t) {
  return t == DType::kInt8 || t == DType::kInt16 || t == DType::kInt32 || t == DType::kInt64 || t == DType::kUInt8;
}
/// A type that data may have (everything but kUnknown).
inline bool IsDataDType(DType t) { return IsFloat(t) || IsInt(t) || t == DType::kBool; }
/// Whether a float immediate of dtype |t| (a float dtype) may hold |value|: the quiet NaN without
/// payload (either sign), an infinity or a finite value no larger than the dtype's largest (the
/// IR text cannot write others).
inline bool FitsFloatDType(DType t, double value) {
  if (value != value) {
    uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return (bits & 0x7fffffffffffffffull) == 0x7ff8000000000000ull;
  }
  if (value - value != 0) return true;  // an infinity
  double max = t == DType::kFloat16 ? 65504.0 : t == DType::kBFloat16 ? 3.3895313892515355e38
             : t == DType::kFloat32 ? 3.4028234663852886e38 : 1.7976931348623157e308;
  return value <= max && value >= -max;
}

/// Whether an integer immediate of dtype |t| (an integer dtype) may hold |value|: the dtype's
/// range (the IR text cannot write others).
inline bool FitsIntDType(DType t, int64_t value) {
  switch (t) {
    case DType::kInt8: return value >= -128 && value <= 127;
    case DType::kInt16: return value >= -32768 && value <= 32767;
    case DType::kInt32: return value >= -2147483648LL && value <= 2147483647LL;
    case DType::kUInt8: return value >= 0 && value <= 255;
    default: return true;
  }
}

inline const char* BinaryOpName(BinaryOp op) {
  static const char* const kNames[kNumBinaryOps] = {"+", "-", "*", "/", "floordiv", "floormod", "min", "max",
                                                    "==", "!=", "<", "<=", ">", ">=", "&&", "||"};
  int i = static_cast<int>(op);
  return i < kNumBinaryOps ? kNames[i] : "invalid";
}
inline bool IsComparison(BinaryOp op) { return op >= BinaryOp::kEq && op <= BinaryOp::kGe; }
inline bool IsLogical(BinaryOp op) { return op == BinaryOp::kAnd || op == BinaryOp::kOr; }

inline const char* IntrinsicName(Intrinsic f) {
  static const char* const kNames[kNumIntrinsics] = {"exp",   "log", "sqrt", "rsqrt", "tanh",  "sigmoid", "abs",
                                                     "neg",   "erf", "floor", "ceil", "round", "isnan",   "pow"};
  int i = static_cast<int>(f);
  return i < kNumIntrinsics ? kNames[i] : "invalid";
}
inline int IntrinsicArity(Intrinsic f) { return f == Intrinsic::kPow ? 2 : 1; }
/// Integer arguments are accepted by abs, neg, floor, ceil, round and isnan; the others take
/// floats only.
inline bool IntrinsicAcceptsInt(Intrinsic f) {
  return f == Intrinsic::kAbs || f == Intrinsic::kNeg || f == Intrinsic::kFloor || f == Intrinsic::kCeil ||
         f == Intrinsic::kRound || f == Intrinsic::kIsNan;
}
/// Looks an intrinsic up by name ("exp"); false if there is none.
inline bool FindIntrinsic(std::string_view name, Intrinsic* out) {
  for (int i = 0; i < kNumIntrinsics; ++i) {
    if (name == IntrinsicName(static_cast<Intrinsic>(i))) {
      *out = static_cast<Intrinsic>(i);
      return true;
    }
  }
  return false;
}

inline const char* StmtKindName(StmtKind k) {
  static const char* const kNames[kNumStmtKinds] = {"seq", "for", "store", "if", "allocate", "block"};
  int i = static_cast<int>(k);
  return i < kNumStmtKinds ? kNames[i] : "invalid";
}

// ---------------------------------------------------------------------------------------------
// Bytes: little-endian; varuint = unsigned LEB128; varint = zigzag LEB128.

namespace detail {

class ByteWriter {
 public:
  void U8(uint8_t v) { out_.push_back(v); }
  void U32(uint32_t v) {
    for (int i = 0; i < 4; ++i) U8(static_cast<uint8_t>(v >> (8 * i)));
  }
  void VarUint(uint64_t v) {
    while (v >= 0x80) {
      U8(static_cast<uint8_t>(v | 0x80));
      v >>= 7;
    }
    U8(static_cast<uint8_t>(v));
  }
  void VarInt(int64_t v) {
    uint64_t u = static_cast<uint64_t>(v);
    VarUint((u << 1) ^ (v < 0 ? ~uint64_t{0} : 0));
  }
  void F64(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    for (int i = 0; i < 8; ++i) U8(static_cast<uint8_t>(bits >> (8 * i)));
  }
  void String(const std::string& s) {
    VarUint(s.size());
    out_.insert(out_.end(), s.begin(), s.end());
  }
  // An index is written as its 32-bit pattern: a negative (invalid) one stays invalid.
  void Index(int32_t i) { VarUint(static_cast<uint32_t>(i)); }
  // An optional statement index: 0 = none, otherwise index + 1.
  void OptionalIndex(int32_t i) { VarUint(i == kNone ? 0 : static_cast<uint32_t>(i) + uint64_t{1}); }
  void Indices(const std::vector<int32_t>& v) {
    VarUint(v.size());
    for (int32_t i : v) Index(i);
  }
  std::vector<uint8_t> Take() { return std::move(out_); }

 private:
  std::vector<uint8_t> out_;
};

/// Reads bytes, never past the end. The first failure is kept in error(); every later read
/// fails too, so a caller may check once at the end of a section.
class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : data_(data), size_(data ? size : 0) {}

  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  size_t position() const { return pos_; }
  size_t remaining() const { return size_ - pos_; }
  /// What is being read, for error messages ("expression 12").
  void SetContext(std::string context) { context_ = std::move(context); }

  bool Fail(const std::string& message) {
    if (!failed()) {
      error_ = "byte " + std::to_string(pos_) + (context_.empty() ? "" : " (" + context_ + ")") + ": " + message;
    }
    return false;
  }
  bool U8(uint8_t* v) {
    if (failed()) return false;
    if (pos_ >= size_) return Fail("unexpected end of data");
    *v = data_[pos_++];
    return true;
  }
  bool U32(uint32_t* v) {
    *v = 0;
    for (int i = 0; i < 4; ++i) {
      uint8_t b = 0;
      if (!U8(&b)) return false;
      *v |= uint32_t{b} << (8 * i);
    }
    return true;
  }
  bool VarUint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      uint8_t b = 0;
      if (!U8(&b)) return false;
      if (shift == 63 && b > 1) return Fail("variable-length integer overflows 64 bits");
      *v |= uint64_t{b & 0x7fu} << shift;
      if ((b & 0x80) == 0) return true;
    }
    return Fail("variable-length integer overflows 64 bits");
  }
  bool VarInt(int64_t* v) {
    uint64_t u = 0;
    if (!VarUint(&u)) return false;
    *v = static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
    return true;
  }
  bool F64(double* v) {
    uint64_t bits = 0;
    for (int i = 0; i < 8; ++i) {
      uint8_t b = 0;
      if (!U8(&b)) return false;
      bits |= uint64_t{b} << (8 * i);
    }
    std::memcpy(v, &bits, sizeof bits);
    return true;
  }
  /// A count of items that take at least one byte each: more than the bytes left is corrupt.
  bool Count(size_t* n, const char* what) {
    uint64_t v = 0;
    if (!VarUint(&v)) return false;
    if (v > remaining()) return Fail(std::string("count of ") + what + " (" + std::to_string(v) + ") exceeds the data");
    *n = static_cast<size_t>(v);
    return true;
  }
  bool Bytes(size_t n, const uint8_t** out) {
    if (failed()) return false;
    if (n > remaining()) return Fail("unexpected end of data");
    *out = data_ + pos_;
    pos_ += n;
    return true;
  }
  bool String(std::string* s) {
    size_t n = 0;
    const uint8_t* bytes = nullptr;
    if (!Count(&n, "string bytes") || !Bytes(n, &bytes)) return false;
    s->assign(reinterpret_cast<const char*>(bytes), n);
    return true;
  }
  /// An index; its range is checked by the validator, which knows the table sizes.
  bool Index(int32_t* i) {
    uint64_t v = 0;
    if (!VarUint(&v)) return false;
    if (v > 0x7fffffffu) return Fail("index " + std::to_string(v) + " is out of range");
    *i = static_cast<int32_t>(v);
    return true;
  }
  bool OptionalIndex(int32_t* i) {
    uint64_t v = 0;
    if (!VarUint(&v)) return false;
    if (v > 0x80000000u) return Fail("index " + std::to_string(v - 1) + " is out of range");
    *i = v == 0 ? kNone : static_cast<int32_t>(v - 1);
    return true;
  }
  bool Indices(std::vector<int32_t>* v, const char* what) {
    size_t n = 0;
    if (!Count(&n, what)) return false;
    v->resize(n);
    for (size_t k = 0; k < n; ++k) {
      if (!Index(&(*v)[k])) return false;
    }
    return true;
  }
  template <typename Enum>
  bool Enum8(Enum* e, int count, const char* what) {
    uint8_t b = 0;
    if (!U8(&b)) return false;
    if (b >= count) return Fail(std::string("invalid ") + what + " " + std::to_string(b));
    *e = static_cast<Enum>(b);
    return true;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  std::string error_;
  std::string context_;
};

// ---- Writing.

inline void WriteAttrValue(ByteWriter& w, const AttrValue& v) {
  w.U8(static_cast<uint8_t>(v.kind));
  switch (v.kind) {
    case AttrKind::kNone: break;
    case AttrKind::kBool: w.U8(v.bool_value ? 1 : 0); break;
    case AttrKind::kInt: w.VarInt(v.int_value); break;
    case AttrKind::kFloat: w.F64(v.float_value); break;
    case AttrKind::kString: w.String(v.string_value); break;
    case AttrKind::kDType: w.U8(static_cast<uint8_t>(v.dtype_value)); break;
    case AttrKind::kTensor:
      w.U8(static_cast<uint8_t>(v.tensor_value.dtype));
      w.VarUint(v.tensor_value.shape.size());
      for (int64_t d : v.tensor_value.shape) w.VarInt(d);
      w.VarUint(v.tensor_value.bytes.size());
      for (uint8_t b : v.tensor_value.bytes) w.U8(b);
      break;
    case AttrKind::kArray:
      w.VarUint(v.array_value.size());
      for (const AttrValue& e : v.array_value) WriteAttrValue(w, e);
      break;
  }
}

inline void WriteExpr(ByteWriter& w, const Expr& e) {
  w.U8(static_cast<uint8_t>(e.kind));
  w.U8(static_cast<uint8_t>(e.dtype));
  switch (e.kind) {
    case ExprKind::kIntImm: w.VarInt(e.int_value); break;
    case ExprKind::kFloatImm: w.F64(e.float_value); break;
    case ExprKind::kVar: w.Index(e.var); break;
    case ExprKind::kBinary:
      w.U8(static_cast<uint8_t>(e.binary_op));
      w.Index(e.operands.size() > 0 ? e.operands[0] : kNone);
      w.Index(e.operands.size() > 1 ? e.operands[1] : kNone);
      break;
    case ExprKind::kNot:
    case ExprKind::kCast: w.Index(e.operands.empty() ? kNone : e.operands[0]); break;
    case ExprKind::kSelect:
      for (size_t i = 0; i < 3; ++i) w.Index(i < e.operands.size() ? e.operands[i] : kNone);
      break;
    case ExprKind::kIntrinsic:
      w.U8(static_cast<uint8_t>(e.intrinsic));
      w.Indices(e.operands);
      break;
    case ExprKind::kLoad:
      w.Index(e.buffer);
      w.Indices(e.operands);
      break;
  }
}

inline void WriteStmt(ByteWriter& w, const Stmt& s) {
  w.U8(static_cast<uint8_t>(s.kind));
  switch (s.kind) {
    case StmtKind::kSeq: w.Indices(s.stmts); break;
    case StmtKind::kFor:
      w.Index(s.var);
      w.Index(s.extent);
      w.U8(static_cast<uint8_t>(s.loop_kind));
      w.Index(s.body);
      break;
    case StmtKind::kStore:
      w.Index(s.buffer);
      w.Indices(s.indices);
      w.Index(s.value);
      break;
    case StmtKind::kIf:
      w.Index(s.cond);
      w.Index(s.then_case);
      w.OptionalIndex(s.else_case);
      break;
    case StmtKind::kAllocate:
      w.Index(s.buffer);
      w.Index(s.body);
      break;
    case StmtKind::kBlock:
      w.String(s.name);
      w.VarUint(s.iter_vars.size());
      for (const IterVar& iv : s.iter_vars) {
        w.Index(iv.var);
        w.Index(iv.value);
        w.U8(static_cast<uint8_t>(iv.kind));
      }
      w.OptionalIndex(s.init);
      w.Index(s.body);
      break;
  }
}

// ---- Reading (syntax only: kinds and dtypes in range, counts within the data).

inline bool ReadDType(ByteReader& r, DType* t, bool allow_unknown) {
  uint8_t b = 0;
  if (!r.U8(&b)) return false;
  if (b >= kNumDTypes || (!allow_unknown && b == 0)) return r.Fail("invalid dtype " + std::to_string(b));
  *t = static_cast<DType>(b);
  return true;
}

inline bool ReadAttrValue(ByteReader& r, AttrValue* v, int depth) {
  if (depth > kMaxAttrDepth) return r.Fail("attribute arrays nest too deeply");
  if (!r.Enum8(&v->kind, kNumAttrKinds, "attribute kind")) return false;
  switch (v->kind) {
    case AttrKind::kNone: return true;
    case AttrKind::kBool: {
      uint8_t b = 0;
      if (!r.U8(&b)) return false;
      if (b > 1) return r.Fail("invalid bool " + std::to_string(b));
      v->bool_value = b == 1;
      return true;
    }
    case AttrKind::kInt: return r.VarInt(&v->int_value);
    case AttrKind::kFloat: return r.F64(&v->float_value);
    case AttrKind::kString: return r.String(&v->string_value);
    case AttrKind::kDType: return ReadDType(r, &v->dtype_value, /*allow_unknown=*/true);
    case AttrKind::kTensor: {
      TensorValue& t = v->tensor_value;
      size_t ndim = 0;
      if (!ReadDType(r, &t.dtype, false) || !r.Count(&ndim, "tensor dims")) return false;
      if (ndim > static_cast<size_t>(kMaxNdim)) {
        return r.Fail("tensor has more than " + std::to_string(kMaxNdim) + " dims");
      }
      // The element count saturates: a tensor whose count exceeds 2^56 cannot match its bytes.
      const uint64_t kLimit = uint64_t{1} << 56;
      uint64_t numel = 1;
      bool zero = false, huge = false;
      t.shape.resize(ndim);
      for (size_t i = 0; i < ndim; ++i) {
        if (!r.VarInt(&t.shape[i])) return false;
        if (t.shape[i] < 0) return r.Fail("tensor dim " + std::to_string(t.shape[i]) + " is negative");
        uint64_t d = static_cast<uint64_t>(t.shape[i]);
        if (d == 0) {
          zero = true;
        } else if (numel > kLimit / d) {
          huge = true;
        } else {
          numel *= d;
        }
      }
      if (zero) {
        numel = 0;
        huge = false;
      }
      size_t nbytes = 0;
      const uint8_t* bytes = nullptr;
      if (!r.Count(&nbytes, "tensor bytes")) return false;
      if (huge || numel * static_cast<uint64_t>(DTypeBits(t.dtype) / 8) != nbytes) {
        return r.Fail("tensor data has " + std::to_string(nbytes) + " bytes, which does not match its shape");
      }
      if (!r.Bytes(nbytes, &bytes)) return false;
      t.bytes.assign(bytes, bytes + nbytes);
      return true;
    }
    case AttrKind::kArray: {
      size_t n = 0;
      if (!r.Count(&n, "array elements")) return false;
      v->array_value.resize(n);
      for (size_t i = 0; i < n; ++i) {
        if (!ReadAttrValue(r, &v->array_value[i], depth + 1)) return false;
      }
      return true;
    }
  }
  return r.Fail("invalid attribute kind");
}

inline bool ReadExpr(ByteReader& r, Expr* e) {
  if (!r.Enum8(&e->kind, kNumExprKinds, "expression kind") || !ReadDType(r, &e->dtype, false)) return false;
  switch (e->kind) {
    case ExprKind::kIntImm: return r.VarInt(&e->int_value);
    case ExprKind::kFloatImm: return r.F64(&e->float_value);
    case ExprKind::kVar: return r.Index(&e->var);
    case ExprKind::kBinary:
      e->operands.resize(2);
      return r.Enum8(&e->binary_op, kNumBinaryOps, "binary operator") && r.Index(&e->operands[0]) &&
             r.Index(&e->operands[1]);
    case ExprKind::kNot:
    case ExprKind::kCast:
      e->operands.resize(1);
      return r.Index(&e->operands[0]);
    case ExprKind::kSelect:
      e->operands.resize(3);
      return r.Index(&e->operands[0]) && r.Index(&e->operands[1]) && r.Index(&e->operands[2]);
    case ExprKind::kIntrinsic:
      return r.Enum8(&e->intrinsic, kNumIntrinsics, "intrinsic") && r.Indices(&e->operands, "intrinsic arguments");
    case ExprKind::kLoad: return r.Index(&e->buffer) && r.Indices(&e->operands, "load indices");
  }
  return r.Fail("invalid expression kind");
}

inline bool ReadStmt(ByteReader& r, Stmt* s) {
  if (!r.Enum8(&s->kind, kNumStmtKinds, "statement kind")) return false;
  switch (s->kind) {
    case StmtKind::kSeq: return r.Indices(&s->stmts, "statements");
    case StmtKind::kFor:
      return r.Index(&s->var) && r.Index(&s->extent) && r.Enum8(&s->loop_kind, kNumLoopKinds, "loop kind") &&
             r.Index(&s->body);
    case StmtKind::kStore: return r.Index(&s->buffer) && r.Indices(&s->indices, "store indices") && r.Index(&s->value);
    case StmtKind::kIf: return r.Index(&s->cond) && r.Index(&s->then_case) && r.OptionalIndex(&s->else_case);
    case StmtKind::kAllocate: return r.Index(&s->buffer) && r.Index(&s->body);
    case StmtKind::kBlock: {
      size_t n = 0;
      if (!r.String(&s->name) || !r.Count(&n, "block iterators")) return false;
      s->iter_vars.resize(n);
      for (IterVar& iv : s->iter_vars) {
        if (!r.Index(&iv.var) || !r.Index(&iv.value) || !r.Enum8(&iv.kind, 2, "iterator kind")) return false;
      }
      return r.OptionalIndex(&s->init) && r.Index(&s->body);
    }
  }
  return r.Fail("invalid statement kind");
}

inline bool ReadKernel(ByteReader& r, Kernel* k) {
  const uint8_t* magic = nullptr;
  r.SetContext("header");
  if (!r.Bytes(4, &magic)) return false;
  if (std::memcmp(magic, kMagic, 4) != 0) return r.Fail("not a kernel: the magic number is not \"RXTK\"");
  uint32_t version = 0;
  if (!r.U32(&version)) return false;
  if (version != kFormatVersion) {
    return r.Fail("unsupported kernel format version " + std::to_string(version) + " (this reader reads version " +
                  std::to_string(kFormatVersion) + ")");
  }
  size_t n = 0;
  if (!r.String(&k->name)) return false;

  r.SetContext("variables");
  if (!r.Count(&n, "variables")) return false;
  k->vars.resize(n);
  for (size_t i = 0; i < n; ++i) {
    r.SetContext("variable " + std::to_string(i));
    if (!r.String(&k->vars[i].name) || !ReadDType(r, &k->vars[i].dtype, false)) return false;
  }

  r.SetContext("buffers");
  if (!r.Count(&n, "buffers")) return false;
  k->buffers.resize(n);
  for (size_t i = 0; i < n; ++i) {
    r.SetContext("buffer " + std::to_string(i));
    Buffer& b = k->buffers[i];
    uint8_t has_strides = 0;
    if (!r.String(&b.name) || !ReadDType(r, &b.dtype, false) || !r.Indices(&b.shape, "dims") || !r.U8(&has_strides)) {
      return false;
    }
    if (b.shape.size() > static_cast<size_t>(kMaxNdim)) {
      return r.Fail("more than " + std::to_string(kMaxNdim) + " dims");
    }
    if (has_strides > 1) return r.Fail("invalid strides flag " + std::to_string(has_strides));
    if (has_strides == 1) {
      b.strides.resize(b.shape.size());
      for (int32_t& s : b.strides) {
        if (!r.Index(&s)) return false;
      }
    }
  }

  r.SetContext("expressions");
  if (!r.Count(&n, "expressions")) return false;
  k->exprs.resize(n);
  for (size_t i = 0; i < n; ++i) {
    r.SetContext("expression " + std::to_string(i));
    if (!ReadExpr(r, &k->exprs[i])) return false;
  }

  r.SetContext("statements");
  if (!r.Count(&n, "statements")) return false;
  k->stmts.resize(n);
  for (size_t i = 0; i < n; ++i) {
    r.SetContext("statement " + std::to_string(i));
    if (!ReadStmt(r, &k->stmts[i])) return false;
  }

  r.SetContext("parameters");
  if (!r.Count(&n, "parameters")) return false;
  k->params.resize(n);
  for (size_t i = 0; i < n; ++i) {
    r.SetContext("parameter " + std::to_string(i));
    if (!r.Enum8(&k->params[i].kind, 2, "parameter kind") || !r.Index(&k->params[i].index)) return false;
  }

  r.SetContext("attributes");
  if (!r.Count(&n, "attributes")) return false;
  k->attrs.resize(n);
  for (size_t i = 0; i < n; ++i) {
    r.SetContext("attribute " + std::to_string(i));
    if (!r.String(&k->attrs[i].name) || !ReadAttrValue(r, &k->attrs[i].value, 0)) return false;
  }
  r.SetContext("end");
  if (r.remaining() != 0) return r.Fail(std::to_string(r.remaining()) + " unexpected bytes after the kernel");
  return true;
}

// ---- Validation.

/// Positions in a pre-order numbering of the statement tree, where 0 is the kernel's entry
/// (parameters) and statement s occupies [first[s], last[s]] with its subtree. A variable or
/// buffer is visible on an interval; an expression on the intersection of the intervals of
/// everything it reads.
struct Interval {
  int64_t lo, hi;
  bool Contains(int64_t site) const { return lo <= site && site <= hi; }
  Interval Intersect(Interval o) const { return {lo > o.lo ? lo : o.lo, hi < o.hi ? hi : o.hi}; }
};

class Validator {
 public:
  explicit Validator(const Kernel& k) : k_(k) {}

  std::string Run() {
    if (!CheckVars() || !CheckBuffers() || !CheckExprs() || !CheckBufferShapes() || !CheckStmts() ||
        !CheckParams() || !NumberStatements() || !CheckDefinitions() || !CheckScopes() || !CheckAttrs()) {
      return error_;
    }
    return {};
  }

 private:
  bool Fail(const std::string& message) {
    if (error_.empty()) error_ = message;
    return false;
  }
  static std::string Quote(const std::string& name) { return "'" + name + "'"; }
  std::string VarName(int32_t v) const { return "variable " + std::to_string(v) + " " + Quote(k_.vars[v].name); }
  std::string BufferName(int32_t b) const { return "buffer " + std::to_string(b) + " " + Quote(k_.buffers[b].name); }
  std::string StmtName(size_t s) const {
    return "statement " + std::to_string(s) + " (" + StmtKindName(k_.stmts[s].kind) + ")";
  }

  bool ValidVar(int32_t v) const { return v >= 0 && static_cast<size_t>(v) < k_.vars.size(); }
  bool ValidBuffer(int32_t b) const { return b >= 0 && static_cast<size_t>(b) < k_.buffers.size(); }
  bool ValidExpr(int32_t e) const { return e >= 0 && static_cast<size_t>(e) < k_.exprs.size(); }
  DType ExprType(int32_t e) const { return k_.exprs[e].dtype; }

  bool CheckVars() {
    for (size_t i = 0; i < k_.vars.size(); ++i) {
      if (!IsDataDType(k_.vars[i].dtype)) return Fail("variable " + std::to_string(i) + " has an invalid dtype");
    }
    return true;
  }

  bool CheckBuffers() {
    for (size_t i = 0; i < k_.buffers.size(); ++i) {
      const Buffer& b = k_.buffers[i];
      std::string what = BufferName(static_cast<int32_t>(i));
      if (!IsDataDType(b.dtype)) return Fail(what + " has an invalid dtype");
      if (b.shape.size() > static_cast<size_t>(kMaxNdim)) return Fail(what + " has too many dims");
      if (!b.strides.empty() && b.strides.size() != b.shape.size()) {
        return Fail(what + " has " + std::to_string(b.strides.size()) + " strides for " +
                    std::to_string(b.shape.size()) + " dims");
      }
      for (const std::vector<int32_t>* list : {&b.shape, &b.strides}) {
        for (int32_t e : *list) {
          if (!ValidExpr(e)) return Fail(what + ": dim or stride expression " + std::to_string(e) + " does not exist");
        }
      }
    }
    return true;
  }

  // Operands precede their users (so there are no cycles) and have the types the node needs.
  bool CheckExprs() {
    depth_.assign(k_.exprs.size(), 1);
    has_load_.assign(k_.exprs.size(), false);
    for (size_t i = 0; i < k_.exprs.size(); ++i) {
      const Expr& e = k_.exprs[i];
      std::string what = "expression " + std::to_string(i);
      if (!IsDataDType(e.dtype)) return Fail(what + " has an invalid dtype");
      for (int32_t op : e.operands) {
        if (op < 0 || static_cast<size_t>(op) >= i) {
          return Fail(what + ": operand " + std::to_string(op) + " does not precede it");
        }
        if (depth_[op] + 1 > depth_[i]) depth_[i] = depth_[op] + 1;
        if (has_load_[op]) has_load_[i] = true;
      }
      if (depth_[i] > kMaxDepth) return Fail(what + " nests more than " + std::to_string(kMaxDepth) + " levels deep");
      if (!CheckExprNode(i, what)) return false;
    }
    return true;
  }

  bool ExpectOperands(const Expr& e, size_t n, const std::string& what) {
    if (e.operands.size() == n) return true;
    return Fail(what + " has " + std::to_string(e.operands.size()) + " operands, expected " + std::to_string(n));
  }
  bool ExpectType(const std::string& what, DType actual, bool ok, const char* expected) {
    if (ok) return true;
    return Fail(what + ": expected " + expected + " but found " + DTypeName(actual));
  }

  bool CheckExprNode(size_t index, const std::string& what) {
    const Expr& e = k_.exprs[index];
    switch (e.kind) {
      case ExprKind::kIntImm:
        if (!ExpectOperands(e, 0, what)) return false;
        if (e.dtype == DType::kBool) {
          if (e.int_value != 0 && e.int_value != 1) return Fail(what + ": a bool immediate must be 0 or 1");
          return true;
        }
        if (!ExpectType(what, e.dtype, IsInt(e.dtype), "an integer or bool immediate")) return false;
        if (!FitsIntDType(e.dtype, e.int_value)) {
          return Fail(what + ": " + std::to_string(e.int_value) + " is out of range for " + DTypeName(e.dtype));
        }
        return true;
      case ExprKind::kFloatImm:
        if (!ExpectOperands(e, 0, what) || !ExpectType(what, e.dtype, IsFloat(e.dtype), "a float immediate")) return false;
        if (!FitsFloatDType(e.dtype, e.float_value)) {
          return Fail(what + ": " + std::to_string(e.float_value) + " is out of range for " + DTypeName(e.dtype));
        }
        return true;
      case ExprKind::kVar:
        if (!ExpectOperands(e, 0, what)) return false;
        if (!ValidVar(e.var)) return Fail(what + ": variable " + std::to_string(e.var) + " does not exist");
        return ExpectType(what, e.dtype, e.dtype == k_.vars[e.var].dtype, DTypeName(k_.vars[e.var].dtype));
      case ExprKind::kBinary: {
        if (static_cast<int>(e.binary_op) >= kNumBinaryOps) return Fail(what + " has an invalid binary operator");
        if (!ExpectOperands(e, 2, what)) return false;
        DType a = ExprType(e.operands[0]), b = ExprType(e.operands[1]);
        std::string op_what = what + " (" + BinaryOpName(e.binary_op) + ")";
        if (a != b) return Fail(op_what + ": operands are " + DTypeName(a) + " and " + DTypeName(b));
        if (IsLogical(e.binary_op)) {
          if (!ExpectType(op_what, a, a == DType::kBool, "bool operands")) return false;
        } else if (!IsComparison(e.binary_op)) {
          if (!ExpectType(op_what, a, IsInt(a) || IsFloat(a), "numeric operands")) return false;
        }
        DType result = IsLogical(e.binary_op) || IsComparison(e.binary_op) ? DType::kBool : a;
        return ExpectType(op_what + " result", e.dtype, e.dtype == result, DTypeName(result));
      }
      case ExprKind::kNot:
        return ExpectOperands(e, 1, what) &&
               ExpectType(what + " (!)", ExprType(e.operands[0]), ExprType(e.operands[0]) == DType::kBool, "bool") &&
               ExpectType(what + " (!) result", e.dtype, e.dtype == DType::kBool, "bool");
      case ExprKind::kSelect: {
        if (!ExpectOperands(e, 3, what)) return false;
        DType c = ExprType(e.operands[0]), t = ExprType(e.operands[1]), f = ExprType(e.operands[2]);
        if (!ExpectType(what + " (select condition)", c, c == DType::kBool, "bool")) return false;
        if (t != f || t != e.dtype) {
          return Fail(what + " (select): branches are " + DTypeName(t) + " and " + DTypeName(f) + ", result " +
                      DTypeName(e.dtype));
        }
        return true;
      }
      case ExprKind::kCast:
        // One form per kernel: the IR folds a cast to its operand's own dtype away, so its text
        // cannot write one either.
        return ExpectOperands(e, 1, what) && ExpectType(what + " (cast) result", e.dtype,
                                                         e.dtype != ExprType(e.operands[0]), "another dtype than its operand's");
      case ExprKind::kIntrinsic: {
        if (static_cast<int>(e.intrinsic) >= kNumIntrinsics) return Fail(what + " has an invalid intrinsic");
        std::string fn_what = what + " (" + IntrinsicName(e.intrinsic) + ")";
        if (!ExpectOperands(e, static_cast<size_t>(IntrinsicArity(e.intrinsic)), fn_what)) return false;
        DType a = ExprType(e.operands[0]);
        for (int32_t op : e.operands) {
          if (ExprType(op) != a) return Fail(fn_what + ": arguments have different dtypes");
        }
        bool ok = IsFloat(a) || (IntrinsicAcceptsInt(e.intrinsic) && IsInt(a));
        if (!ExpectType(fn_what, a, ok, IntrinsicAcceptsInt(e.intrinsic) ? "numeric arguments" : "float arguments")) {
          return false;
        }
        DType result = e.intrinsic == Intrinsic::kIsNan ? DType::kBool : a;
        return ExpectType(fn_what + " result", e.dtype, e.dtype == result, DTypeName(result));
      }
      case ExprKind::kLoad: {
        if (!ValidBuffer(e.buffer)) return Fail(what + ": buffer " + std::to_string(e.buffer) + " does not exist");
        const Buffer& b = k_.buffers[e.buffer];
        std::string load_what = what + " (load from " + Quote(b.name) + ")";
        if (!ExpectOperands(e, b.shape.size(), load_what)) return false;
        for (int32_t op : e.operands) {
          if (!ExpectType(load_what + " index", ExprType(op), IsInt(ExprType(op)), "an integer")) return false;
        }
        has_load_[index] = true;
        return ExpectType(load_what, e.dtype, e.dtype == b.dtype, DTypeName(b.dtype));
      }
    }
    return Fail(what + " has an invalid kind");
  }

  // Shapes and strides are integer expressions that read no buffer.
  bool CheckBufferShapes() {
    for (size_t i = 0; i < k_.buffers.size(); ++i) {
      const Buffer& b = k_.buffers[i];
      for (const std::vector<int32_t>* list : {&b.shape, &b.strides}) {
        for (int32_t e : *list) {
          std::string what =
              BufferName(static_cast<int32_t>(i)) + " dim or stride (expression " + std::to_string(e) + ")";
          if (!ExpectType(what, ExprType(e), IsInt(ExprType(e)), "an integer")) return false;
          if (has_load_[e]) return Fail(what + " reads a buffer");
        }
      }
    }
    return true;
  }

  bool CheckChildStmt(size_t parent, int32_t child, bool optional, const char* role) {
    if (optional && child == kNone) return true;
    if (child < 0 || static_cast<size_t>(child) >= parent) {
      return Fail(StmtName(parent) + ": " + role + " " + std::to_string(child) + " does not precede it");
    }
    if (parent_[child] != kNone) {
      return Fail("statement " + std::to_string(child) + " is used twice (by statements " +
                  std::to_string(parent_[child]) + " and " + std::to_string(parent) + ")");
    }
    parent_[child] = static_cast<int32_t>(parent);
    return true;
  }
  bool CheckStmtExpr(size_t s, int32_t e, const char* role, bool (*type_ok)(DType), const char* expected) {
    if (!ValidExpr(e)) return Fail(StmtName(s) + ": " + role + " expression " + std::to_string(e) + " does not exist");
    return ExpectType(StmtName(s) + " " + role, ExprType(e), type_ok(ExprType(e)), expected);
  }
  static bool AnyType(DType) { return true; }
  static bool IsBool(DType t) { return t == DType::kBool; }

  // Statements form one tree rooted at the last statement; children precede their parent.
  bool CheckStmts() {
    if (k_.stmts.empty()) return Fail("the kernel has no body (no statements)");
    parent_.assign(k_.stmts.size(), kNone);
    for (size_t s = 0; s < k_.stmts.size(); ++s) {
      const Stmt& st = k_.stmts[s];
      std::string what = StmtName(s);
      if (static_cast<int>(st.kind) >= kNumStmtKinds) return Fail(what + " has an invalid kind");
      switch (st.kind) {
        case StmtKind::kSeq:
          for (int32_t c : st.stmts) {
            if (!CheckChildStmt(s, c, false, "child")) return false;
          }
          break;
        case StmtKind::kFor:
          if (!ValidVar(st.var)) return Fail(what + ": variable " + std::to_string(st.var) + " does not exist");
          if (static_cast<int>(st.loop_kind) >= kNumLoopKinds) return Fail(what + " has an invalid loop kind");
          if (!ExpectType(what + " variable", k_.vars[st.var].dtype, IsInt(k_.vars[st.var].dtype), "an integer") ||
              !CheckStmtExpr(s, st.extent, "extent", IsInt, "an integer")) {
            return false;
          }
          if (ExprType(st.extent) != k_.vars[st.var].dtype) {
            return Fail(what + ": the extent is " + DTypeName(ExprType(st.extent)) + " but the loop variable is " +
                        DTypeName(k_.vars[st.var].dtype));
          }
          if (!CheckChildStmt(s, st.body, false, "body")) return false;
          break;
        case StmtKind::kStore: {
          if (!ValidBuffer(st.buffer)) return Fail(what + ": buffer " + std::to_string(st.buffer) + " does not exist");
          const Buffer& b = k_.buffers[st.buffer];
          if (st.indices.size() != b.shape.size()) {
            return Fail(what + ": " + std::to_string(st.indices.size()) + " indices for the " +
                        std::to_string(b.shape.size()) + "-d buffer " + Quote(b.name));
          }
          for (int32_t e : st.indices) {
            if (!CheckStmtExpr(s, e, "index", IsInt, "an integer")) return false;
          }
          if (!CheckStmtExpr(s, st.value, "value", AnyType, "")) return false;
          if (ExprType(st.value) != b.dtype) {
            return Fail(what + ": the value is " + DTypeName(ExprType(st.value)) + " but " + Quote(b.name) + " holds " +
                        DTypeName(b.dtype));
          }
          break;
        }
        case StmtKind::kIf:
          if (!CheckStmtExpr(s, st.cond, "condition", IsBool, "bool") ||
              !CheckChildStmt(s, st.then_case, false, "then branch") ||
              !CheckChildStmt(s, st.else_case, true, "else branch")) {
            return false;
          }
          break;
        case StmtKind::kAllocate:
          if (!ValidBuffer(st.buffer)) return Fail(what + ": buffer " + std::to_string(st.buffer) + " does not exist");
          if (!CheckChildStmt(s, st.body, false, "body")) return false;
          break;
        case StmtKind::kBlock: {
          bool has_reduce = false;
          for (const IterVar& iv : st.iter_vars) {
            if (!ValidVar(iv.var)) return Fail(what + ": variable " + std::to_string(iv.var) + " does not exist");
            if (iv.kind != IterKind::kSpatial && iv.kind != IterKind::kReduce) {
              return Fail(what + " has an invalid iterator kind");
            }
            if (!CheckStmtExpr(s, iv.value, "iterator value", IsInt, "an integer")) return false;
            if (ExprType(iv.value) != k_.vars[iv.var].dtype) {
              return Fail(what + ": iterator " + Quote(k_.vars[iv.var].name) + " is " +
                          DTypeName(k_.vars[iv.var].dtype) + " but its value is " + DTypeName(ExprType(iv.value)));
            }
            has_reduce = has_reduce || iv.kind == IterKind::kReduce;
          }
          if (st.init != kNone && !has_reduce) {
            return Fail(what + " " + Quote(st.name) + " has an init but no reduce iterator");
          }
          if (!CheckChildStmt(s, st.init, true, "init") || !CheckChildStmt(s, st.body, false, "body")) return false;
          break;
        }
      }
    }
    for (size_t s = 0; s + 1 < k_.stmts.size(); ++s) {
      if (parent_[s] == kNone) return Fail("statement " + std::to_string(s) + " is not part of the body");
    }
    return true;
  }

  bool CheckParams() {
    std::vector<bool> seen_buffer(k_.buffers.size()), seen_var(k_.vars.size());
    for (size_t i = 0; i < k_.params.size(); ++i) {
      const Param& p = k_.params[i];
      std::string what = "parameter " + std::to_string(i);
      if (p.kind != ParamKind::kBuffer && p.kind != ParamKind::kScalar) return Fail(what + " has an invalid kind");
      if (p.kind == ParamKind::kBuffer) {
        if (!ValidBuffer(p.index)) return Fail(what + ": buffer " + std::to_string(p.index) + " does not exist");
        if (seen_buffer[p.index]) return Fail(what + ": " + BufferName(p.index) + " is a parameter twice");
        seen_buffer[p.index] = true;
      } else {
        if (!ValidVar(p.index)) return Fail(what + ": variable " + std::to_string(p.index) + " does not exist");
        if (seen_var[p.index]) return Fail(what + ": " + VarName(p.index) + " is a parameter twice");
        seen_var[p.index] = true;
      }
    }
    return true;
  }

  // Pre-order numbering without recursion: subtree sizes bottom-up (children have smaller
  // indices), then first positions top-down. A block's init subtree precedes its body's.
  static void Children(const Stmt& st, std::vector<int32_t>* out) {
    out->clear();
    switch (st.kind) {
      case StmtKind::kSeq: *out = st.stmts; break;
      case StmtKind::kFor: case StmtKind::kAllocate: out->push_back(st.body); break;
      case StmtKind::kIf:
        out->push_back(st.then_case);
        if (st.else_case != kNone) out->push_back(st.else_case);
        break;
      case StmtKind::kBlock:
        if (st.init != kNone) out->push_back(st.init);
        out->push_back(st.body);
        break;
      case StmtKind::kStore: break;
    }
  }

  bool NumberStatements() {
    size_t n = k_.stmts.size();
    std::vector<int64_t> size(n, 1);
    std::vector<int32_t> depth(n, 1);
    std::vector<int32_t> children;
    for (size_t s = 0; s < n; ++s) {
      Children(k_.stmts[s], &children);
      for (int32_t c : children) size[s] += size[c];
    }
    first_.assign(n, 0);
    last_.assign(n, 0);
    first_[n - 1] = 1;
    for (size_t s = n; s-- > 0;) {
      last_[s] = first_[s] + size[s] - 1;
      if (depth[s] > kMaxDepth) return Fail("statements nest more than " + std::to_string(kMaxDepth) + " levels deep");
      Children(k_.stmts[s], &children);
      int64_t next = first_[s] + 1;
      for (int32_t c : children) {
        first_[c] = next;
        depth[c] = depth[s] + 1;
        next += size[c];
      }
    }
    num_sites_ = static_cast<int64_t>(n) + 1;
    return true;
  }

  // Each variable and buffer is defined once: parameters and bare dims of parameter buffers at
  // the entry (a scalar parameter may also be such a dim), loops and blocks in the body.
  bool CheckDefinitions() {
    const Interval everywhere{0, num_sites_ - 1}, nowhere{1, 0};
    var_scope_.assign(k_.vars.size(), nowhere);
    buffer_scope_.assign(k_.buffers.size(), nowhere);
    std::vector<bool> var_at_entry(k_.vars.size()), var_in_body(k_.vars.size());
    for (const Param& p : k_.params) {
      if (p.kind == ParamKind::kScalar) {
        var_at_entry[p.index] = true;
        continue;
      }
      buffer_scope_[p.index] = everywhere;
      const Buffer& b = k_.buffers[p.index];
      for (const std::vector<int32_t>* list : {&b.shape, &b.strides}) {
        for (int32_t e : *list) {
          if (k_.exprs[e].kind == ExprKind::kVar) var_at_entry[k_.exprs[e].var] = true;
        }
      }
    }
    for (size_t v = 0; v < k_.vars.size(); ++v) {
      if (var_at_entry[v]) var_scope_[v] = everywhere;
    }
    auto define_var = [&](int32_t v, size_t s, Interval scope) {
      if (var_at_entry[v] || var_in_body[v]) return Fail(StmtName(s) + " defines " + VarName(v) + " a second time");
      var_in_body[v] = true;
      var_scope_[v] = scope;
      return true;
    };
    for (size_t s = 0; s < k_.stmts.size(); ++s) {
      const Stmt& st = k_.stmts[s];
      Interval inside{first_[s] + 1, last_[s]};
      if (st.kind == StmtKind::kFor && !define_var(st.var, s, inside)) return false;
      if (st.kind == StmtKind::kAllocate) {
        if (buffer_scope_[st.buffer].lo <= buffer_scope_[st.buffer].hi) {
          return Fail(StmtName(s) + " defines " + BufferName(st.buffer) + " a second time");
        }
        buffer_scope_[st.buffer] = inside;
      }
      if (st.kind == StmtKind::kBlock) {
        // Reduce iterators are not visible in the init, which runs before the reduction.
        Interval body_only{first_[st.body], last_[s]};
        for (const IterVar& iv : st.iter_vars) {
          if (!define_var(iv.var, s, iv.kind == IterKind::kReduce ? body_only : inside)) return false;
        }
      }
    }
    return true;
  }

  bool CheckScopes() {
    // Where each expression may be evaluated: the intersection of what it reads.
    const Interval everywhere{0, num_sites_ - 1};
    expr_scope_.assign(k_.exprs.size(), everywhere);
    for (size_t i = 0; i < k_.exprs.size(); ++i) {
      const Expr& e = k_.exprs[i];
      Interval scope = everywhere;
      if (e.kind == ExprKind::kVar) scope = var_scope_[e.var];
      if (e.kind == ExprKind::kLoad) scope = buffer_scope_[e.buffer];
      for (int32_t op : e.operands) scope = scope.Intersect(expr_scope_[op]);
      expr_scope_[i] = scope;
    }
    for (const Param& p : k_.params) {
      if (p.kind != ParamKind::kBuffer) continue;
      const Buffer& b = k_.buffers[p.index];
      for (const std::vector<int32_t>* list : {&b.shape, &b.strides}) {
        for (int32_t e : *list) {
          if (!UsedAt(e, 0, "the shape of parameter " + BufferName(p.index))) return false;
        }
      }
    }
    for (size_t s = 0; s < k_.stmts.size(); ++s) {
      const Stmt& st = k_.stmts[s];
      int64_t site = first_[s];
      std::string what = StmtName(s);
      switch (st.kind) {
        case StmtKind::kFor:
          if (!UsedAt(st.extent, site, what)) return false;
          break;
        case StmtKind::kStore:
          if (!buffer_scope_[st.buffer].Contains(site)) {
            return Fail(what + " writes " + BufferName(st.buffer) + " where it is not defined");
          }
          for (int32_t e : st.indices) {
            if (!UsedAt(e, site, what)) return false;
          }
          if (!UsedAt(st.value, site, what)) return false;
          break;
        case StmtKind::kIf:
          if (!UsedAt(st.cond, site, what)) return false;
          break;
        case StmtKind::kAllocate: {
          const Buffer& b = k_.buffers[st.buffer];
          for (const std::vector<int32_t>* list : {&b.shape, &b.strides}) {
            for (int32_t e : *list) {
              if (!UsedAt(e, site, what + " of " + BufferName(st.buffer))) return false;
            }
          }
          break;
        }
        case StmtKind::kBlock:
          for (const IterVar& iv : st.iter_vars) {
            if (!UsedAt(iv.value, site, what)) return false;
          }
          break;
        case StmtKind::kSeq: break;
      }
    }
    return true;
  }

  // What the reader checks while reading attributes, for kernels built in memory.
  bool CheckAttrs() {
    for (const Attr& a : k_.attrs) {
      if (!CheckAttrValue(a.value, "attribute " + Quote(a.name), 0)) return false;
    }
    return true;
  }

  bool CheckAttrValue(const AttrValue& v, const std::string& what, int depth) {
    if (depth > kMaxAttrDepth) return Fail(what + ": arrays nest too deeply");
    switch (v.kind) {
      case AttrKind::kNone: case AttrKind::kBool: case AttrKind::kInt: case AttrKind::kFloat: case AttrKind::kString:
        return true;
      case AttrKind::kDType:
        if (static_cast<int>(v.dtype_value) >= kNumDTypes) return Fail(what + " has an invalid dtype");
        return true;
      case AttrKind::kTensor: {
        const TensorValue& t = v.tensor_value;
        if (!IsDataDType(t.dtype)) return Fail(what + ": the tensor has an invalid dtype");
        if (t.shape.size() > static_cast<size_t>(kMaxNdim)) return Fail(what + ": the tensor has too many dims");
        bool empty = false;
        for (int64_t d : t.shape) {
          if (d < 0) return Fail(what + ": the tensor has a negative dim");
          empty = empty || d == 0;
        }
        // Multiplied without overflow: once past the actual size, it can only be a mismatch.
        uint64_t bytes = empty ? 0 : static_cast<uint64_t>(DTypeBits(t.dtype) / 8);
        for (int64_t d : t.shape) {
          if (empty) break;
          if (bytes > t.bytes.size() / static_cast<uint64_t>(d)) {
            return Fail(what + ": the tensor's bytes do not match its shape");
          }
          bytes *= static_cast<uint64_t>(d);
        }
        if (bytes != t.bytes.size()) return Fail(what + ": the tensor's bytes do not match its shape");
        return true;
      }
      case AttrKind::kArray:
        for (const AttrValue& e : v.array_value) {
          if (!CheckAttrValue(e, what, depth + 1)) return false;
        }
        return true;
    }
    return Fail(what + " has an invalid kind");
  }

  // Expression |e| is used at |site|; on failure, names what it reads out of scope.
  bool UsedAt(int32_t e, int64_t site, const std::string& where) {
    if (expr_scope_[e].Contains(site)) return true;
    std::vector<bool> seen(k_.exprs.size());
    std::vector<int32_t> todo = {e};
    while (!todo.empty()) {
      int32_t i = todo.back();
      todo.pop_back();
      if (seen[i]) continue;
      seen[i] = true;
      const Expr& x = k_.exprs[i];
      if (x.kind == ExprKind::kVar && !var_scope_[x.var].Contains(site)) {
        return Fail(where + " reads " + VarName(x.var) + " where it is not defined");
      }
      if (x.kind == ExprKind::kLoad && !buffer_scope_[x.buffer].Contains(site)) {
        return Fail(where + " reads " + BufferName(x.buffer) + " where it is not defined");
      }
      for (int32_t op : x.operands) todo.push_back(op);
    }
    return Fail(where + " uses expression " + std::to_string(e) + " outside its scope");
  }

  const Kernel& k_;
  std::string error_;
  std::vector<int32_t> depth_;
  std::vector<bool> has_load_;
  std::vector<int32_t> parent_;
  std::vector<int64_t> first_, last_;
  int64_t num_sites_ = 0;
  std::vector<Interval> var_scope_, buffer_scope_, expr_scope_;
};

}  // namespace detail

// ---------------------------------------------------------------------------------------------
// The API.

/// Checks every invariant a backend may rely on; returns "" when |k| is valid, else why not:
///  - dtypes are data dtypes; kinds, operators and intrinsics are known; every index refers to
///    an existing entry;
///  - expression operands precede their user, statement children precede their parent, every
///    statement but the last (the body) has exactly one parent; nesting is at most kMaxDepth;
///  - types: binary operands share a dtype (bool for && ||, numeric for arithmetic), the result
///    is bool for comparisons and && || and the operand dtype otherwise; ! and if/select
///    conditions are bool; select branches share the result dtype; intrinsic arity and types
///    (IntrinsicAcceptsInt), isnan gives bool; loads and stores use one integer index per dim
///    and the buffer's dtype; loop variables, extents, iterators and their values are integers
///    of one dtype; immediates match their dtype (bool 0 or 1);
///  - buffer dims and strides are integer expressions that read no buffer; strides are empty or
///    one per dim;
///  - definitions: each variable is defined once, by a scalar parameter and/or as a bare dim or
///    stride of a parameter buffer (visible everywhere), or by one loop or block (visible in its
///    body; a reduce iterator not in the block's init); each buffer is a parameter once or
///    allocated once (visible in the allocation's body);
///  - scopes: every expression reads variables and buffers only where they are visible; the
///    dims of parameter buffers read only parameters and bare dims.
inline std::string ValidateKernel(const Kernel& k) { return detail::Validator(k).Run(); }

/// Reads and validates one kernel. Never throws for malformed input (only std::bad_alloc).
inline DecodeResult DecodeKernel(const uint8_t* data, size_t size) {
  DecodeResult result;
  detail::ByteReader reader(data, size);
  if (!detail::ReadKernel(reader, &result.kernel)) {
    result.error = "malformed kernel: " + reader.error();
    result.kernel = Kernel();
    return result;
  }
  std::string invalid = ValidateKernel(result.kernel);
  if (!invalid.empty()) {
    std::string name = result.kernel.name.empty() ? "" : " '" + result.kernel.name + "'";
    result.error = "invalid kernel" + name + ": " + invalid;
    result.kernel = Kernel();
  }
  return result;
}

/// Writes |k| as bytes, as it is: validate first (ValidateKernel) unless testing a reader with
/// deliberately bad input.
inline std::vector<uint8_t> SerializeKernel(const Kernel& k) {
  detail::ByteWriter w;
  for (char c : kMagic) w.U8(static_cast<uint8_t>(c));
  w.U32(kFormatVersion);
  w.String(k.name);
  w.VarUint(k.vars.size());
  for (const Var& v : k.vars) {
    w.String(v.name);
    w.U8(static_cast<uint8_t>(v.dtype));
  }
  w.VarUint(k.buffers.size());
  for (const Buffer& b : k.buffers) {
    w.String(b.name);
    w.U8(static_cast<uint8_t>(b.dtype));
    w.Indices(b.shape);
    w.U8(b.strides.empty() ? 0 : 1);
    if (!b.strides.empty()) {
      // One stride per dim (a miscounted list, in a deliberately bad kernel, pads with kNone).
      for (size_t d = 0; d < b.shape.size(); ++d) w.Index(d < b.strides.size() ? b.strides[d] : kNone);
    }
  }
  w.VarUint(k.exprs.size());
  for (const Expr& e : k.exprs) detail::WriteExpr(w, e);
  w.VarUint(k.stmts.size());
  for (const Stmt& s : k.stmts) detail::WriteStmt(w, s);
  w.VarUint(k.params.size());
  for (const Param& p : k.params) {
    w.U8(static_cast<uint8_t>(p.kind));
    w.Index(p.index);
  }
  w.VarUint(k.attrs.size());
  for (const Attr& a : k.attrs) {
    w.String(a.name);
    detail::WriteAttrValue(w, a.value);
  }
  return w.Take();
}

}  // namespace kernel_format
}  // namespace rxt

#endif  // RXT_KERNEL_FORMAT_H_
