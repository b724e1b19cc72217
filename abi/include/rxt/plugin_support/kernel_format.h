// kernel_format.h (plugin SDK): the portable kernel format in C++ — the decoded kernel as plain
// structs, and the names and properties of its codes. The codes themselves are the C99 spec,
// rxt/kernel_format.h (these enums take their values from it); kernel_codec.h decodes, checks
// and writes kernels, kernel_validator.h holds the checks.
//
//   #include <rxt/plugin_support/kernel_codec.h>
//   namespace kf = rxt::plugin_support::kernel_format;
//   kf::DecodeResult r = kf::DecodeKernel(bytes, size);
//   if (!r.ok()) return Fail(r.error);
//   const kf::Kernel& k = r.kernel;   // k.stmts.back() is the body
//
// The decoded kernel is plain data mirroring the kernel IR: variables, buffers, expressions
// and statements live in flat vectors and refer to each other by index. Header-only C++17 with
// no dependency: backends (which link nothing of rxt) and the core (which writes kernels) both
// use it. docs/kernel_format.md describes the bytes and the semantics.
#ifndef RXT_PLUGIN_SUPPORT_KERNEL_FORMAT_H_
#define RXT_PLUGIN_SUPPORT_KERNEL_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rxt/kernel_format.h"

namespace rxt::plugin_support::kernel_format {

// ---------------------------------------------------------------------------------------------
// Constants and enums: the codes of rxt/kernel_format.h.

inline constexpr char kMagic[4] = {RXT_KF_MAGIC_0, RXT_KF_MAGIC_1, RXT_KF_MAGIC_2, RXT_KF_MAGIC_3};
inline constexpr uint32_t kFormatVersion = RXT_KF_VERSION;
/// Deepest nesting accepted for expressions and, separately, for statements.
inline constexpr int kMaxDepth = RXT_KF_MAX_DEPTH;
/// Most dimensions a buffer or tensor attribute may have.
inline constexpr int kMaxNdim = RXT_KF_MAX_NDIM;
/// Deepest nesting of array attribute values.
inline constexpr int kMaxAttrDepth = RXT_KF_MAX_ATTR_DEPTH;
/// Stands for "no statement" in optional statement references (If::else_case, Block::init).
inline constexpr int32_t kNone = RXT_KF_NONE;

enum class DType : uint8_t {
  kUnknown = RXT_KF_DTYPE_UNKNOWN,  // only as the value of a dtype attribute, never the type of data
  kFloat16 = RXT_KF_DTYPE_FLOAT16,
  kBFloat16 = RXT_KF_DTYPE_BFLOAT16,
  kFloat32 = RXT_KF_DTYPE_FLOAT32,
  kFloat64 = RXT_KF_DTYPE_FLOAT64,
  kInt8 = RXT_KF_DTYPE_INT8,
  kInt16 = RXT_KF_DTYPE_INT16,
  kInt32 = RXT_KF_DTYPE_INT32,
  kInt64 = RXT_KF_DTYPE_INT64,
  kUInt8 = RXT_KF_DTYPE_UINT8,
  kBool = RXT_KF_DTYPE_BOOL,
};
inline constexpr int kNumDTypes = RXT_KF_NUM_DTYPES;

enum class ExprKind : uint8_t {
  kIntImm = RXT_KF_EXPR_INT_IMM,       // int_value (bool immediates: dtype bool, value 0 or 1)
  kFloatImm = RXT_KF_EXPR_FLOAT_IMM,   // float_value
  kVar = RXT_KF_EXPR_VAR,              // var
  kBinary = RXT_KF_EXPR_BINARY,        // binary_op, operands {a, b}
  kNot = RXT_KF_EXPR_NOT,              // operands {x}
  kSelect = RXT_KF_EXPR_SELECT,        // operands {cond, if_true, if_false}
  kCast = RXT_KF_EXPR_CAST,            // operands {x}
  kIntrinsic = RXT_KF_EXPR_INTRINSIC,  // intrinsic, operands = arguments
  kLoad = RXT_KF_EXPR_LOAD,            // buffer, operands = indices
};
inline constexpr int kNumExprKinds = RXT_KF_NUM_EXPR_KINDS;

enum class BinaryOp : uint8_t {
  kAdd = RXT_KF_OP_ADD, kSub = RXT_KF_OP_SUB, kMul = RXT_KF_OP_MUL, kDiv = RXT_KF_OP_DIV,
  kFloorDiv = RXT_KF_OP_FLOOR_DIV, kFloorMod = RXT_KF_OP_FLOOR_MOD, kMin = RXT_KF_OP_MIN, kMax = RXT_KF_OP_MAX,
  kEq = RXT_KF_OP_EQ, kNe = RXT_KF_OP_NE, kLt = RXT_KF_OP_LT, kLe = RXT_KF_OP_LE, kGt = RXT_KF_OP_GT,
  kGe = RXT_KF_OP_GE, kAnd = RXT_KF_OP_AND, kOr = RXT_KF_OP_OR,
};
inline constexpr int kNumBinaryOps = RXT_KF_NUM_BINARY_OPS;

enum class Intrinsic : uint8_t {
  kExp = RXT_KF_INTRINSIC_EXP, kLog = RXT_KF_INTRINSIC_LOG, kSqrt = RXT_KF_INTRINSIC_SQRT,
  kRsqrt = RXT_KF_INTRINSIC_RSQRT, kTanh = RXT_KF_INTRINSIC_TANH, kSigmoid = RXT_KF_INTRINSIC_SIGMOID,
  kAbs = RXT_KF_INTRINSIC_ABS, kNeg = RXT_KF_INTRINSIC_NEG, kErf = RXT_KF_INTRINSIC_ERF,
  kFloor = RXT_KF_INTRINSIC_FLOOR, kCeil = RXT_KF_INTRINSIC_CEIL, kRound = RXT_KF_INTRINSIC_ROUND,
  kIsNan = RXT_KF_INTRINSIC_ISNAN, kPow = RXT_KF_INTRINSIC_POW,
  kSin = RXT_KF_INTRINSIC_SIN, kCos = RXT_KF_INTRINSIC_COS, kTan = RXT_KF_INTRINSIC_TAN, kAsin = RXT_KF_INTRINSIC_ASIN, kAcos = RXT_KF_INTRINSIC_ACOS, kAtan = RXT_KF_INTRINSIC_ATAN, kSinh = RXT_KF_INTRINSIC_SINH, kCosh = RXT_KF_INTRINSIC_COSH, kAsinh = RXT_KF_INTRINSIC_ASINH, kAcosh = RXT_KF_INTRINSIC_ACOSH, kAtanh = RXT_KF_INTRINSIC_ATANH,
};
inline constexpr int kNumIntrinsics = RXT_KF_NUM_INTRINSICS;

enum class StmtKind : uint8_t {
  kSeq = RXT_KF_STMT_SEQ, kFor = RXT_KF_STMT_FOR, kStore = RXT_KF_STMT_STORE, kIf = RXT_KF_STMT_IF,
  kAllocate = RXT_KF_STMT_ALLOCATE, kBlock = RXT_KF_STMT_BLOCK,
};
inline constexpr int kNumStmtKinds = RXT_KF_NUM_STMT_KINDS;

enum class LoopKind : uint8_t {
  kSerial = RXT_KF_LOOP_SERIAL, kParallel = RXT_KF_LOOP_PARALLEL, kVectorized = RXT_KF_LOOP_VECTORIZED,
  kUnrolled = RXT_KF_LOOP_UNROLLED,
};
inline constexpr int kNumLoopKinds = RXT_KF_NUM_LOOP_KINDS;

enum class IterKind : uint8_t { kSpatial = RXT_KF_ITER_SPATIAL, kReduce = RXT_KF_ITER_REDUCE };
enum class ParamKind : uint8_t { kBuffer = RXT_KF_PARAM_BUFFER, kScalar = RXT_KF_PARAM_SCALAR };
enum class AttrKind : uint8_t {
  kNone = RXT_KF_ATTR_NONE, kBool = RXT_KF_ATTR_BOOL, kInt = RXT_KF_ATTR_INT, kFloat = RXT_KF_ATTR_FLOAT,
  kString = RXT_KF_ATTR_STRING, kDType = RXT_KF_ATTR_DTYPE, kTensor = RXT_KF_ATTR_TENSOR,
  kArray = RXT_KF_ATTR_ARRAY,
};
inline constexpr int kNumAttrKinds = RXT_KF_NUM_ATTR_KINDS;

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
  static const char* const kNames[kNumIntrinsics] = {
      "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "abs",  "neg",  "erf",   "floor", "ceil",  "round", "isnan",
      "pow", "sin", "cos",  "tan",   "asin", "acos",    "atan", "sinh", "cosh",  "asinh", "acosh", "atanh"};
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

}  // namespace rxt::plugin_support::kernel_format

#endif  // RXT_PLUGIN_SUPPORT_KERNEL_FORMAT_H_
