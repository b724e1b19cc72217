// Scalar expressions: symbolic tensor dimensions (`n`, `n * 2`) in struct info and the
// arithmetic of kernel functions (loads, intrinsics, selects) share this one type.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rxt/support/dtype.h"
#include "rxt/support/error.h"

namespace rxt {

enum class PrimKind : uint8_t {
  kIntImm,
  kFloatImm,
  kVar,        // a named scalar variable: symbolic dim, loop variable, block iterator
  kBinary,     // + - * / floordiv floormod min max, comparisons, && ||
  kNot,        // logical not
  kSelect,     // select(cond, a, b)
  kCast,       // dtype(x)
  kIntrinsic,  // exp(x), log(x), pow(a, b) ... (see IntrinsicNames in prim_expr.cc)
  kLoad,       // Buffer[i, j]
};

enum class BinaryOp : uint8_t {
  kAdd, kSub, kMul, kDiv, kFloorDiv, kFloorMod, kMin, kMax,
  kEq, kNe, kLt, kLe, kGt, kGe, kAnd, kOr,
};
const char* BinaryOpName(BinaryOp op);  // "+", "floordiv", "==", "&&" ...
bool IsComparison(BinaryOp op);

struct BufferNode;
using Buffer = std::shared_ptr<const BufferNode>;

struct PrimExprNode {
  PrimExprNode(PrimKind k, DType t) : kind(k), dtype(t) {}
  virtual ~PrimExprNode() = default;
  const PrimKind kind;
  const DType dtype;

  template <typename T>
  const T* As() const { return kind == T::kKind ? static_cast<const T*>(this) : nullptr; }
};
using PrimExpr = std::shared_ptr<const PrimExprNode>;

struct IntImmNode : PrimExprNode {
  static constexpr PrimKind kKind = PrimKind::kIntImm;
  IntImmNode(DType t, int64_t v) : PrimExprNode(kKind, t), value(v) {}
  const int64_t value;  // bool immediates are IntImm with dtype bool
};

struct FloatImmNode : PrimExprNode {
  static constexpr PrimKind kKind = PrimKind::kFloatImm;
  FloatImmNode(DType t, double v) : PrimExprNode(kKind, t), value(v) {}
  const double value;
};

/// A variable is identified by its node (pointer), not by its name.
struct PrimVarNode : PrimExprNode {
  static constexpr PrimKind kKind = PrimKind::kVar;
  PrimVarNode(std::string n, DType t) : PrimExprNode(kKind, t), name(std::move(n)) {}
  const std::string name;
};
using PrimVar = std::shared_ptr<const PrimVarNode>;

struct BinaryNode : PrimExprNode {
  static constexpr PrimKind kKind = PrimKind::kBinary;
  BinaryNode(DType t, BinaryOp o, PrimExpr l, PrimExpr r)
      : PrimExprNode(kKind, t), op(o), a(std::move(l)), b(std::move(r)) {}
  const BinaryOp op;
  const PrimExpr a, b;
};

struct NotNode : PrimExprNode {
  static constexpr PrimKind kKind = PrimKind::kNot;
  explicit NotNode(PrimExpr x) : PrimExprNode(kKind, DType::kBool), value(std::move(x)) {}
  const PrimExpr value;
};

struct SelectNode : PrimExprNode {
  static constexpr PrimKind kKind = PrimKind::kSelect;
  SelectNode(PrimExpr c, PrimExpr t, PrimExpr f)
      : PrimExprNode(kKind, t->dtype), cond(std::move(c)), if_true(std::move(t)), if_false(std::move(f)) {}
  const PrimExpr cond, if_true, if_false;
};

struct CastNode : PrimExprNode {
  static constexpr PrimKind kKind = PrimKind::kCast;
  CastNode(DType t, PrimExpr x) : PrimExprNode(kKind, t), value(std::move(x)) {}
  const PrimExpr value;
};

struct IntrinsicNode : PrimExprNode {
  static constexpr PrimKind kKind = PrimKind::kIntrinsic;
  IntrinsicNode(DType t, std::string n, std::vector<PrimExpr> a)
      : PrimExprNode(kKind, t), name(std::move(n)), args(std::move(a)) {}
  const std::string name;
  const std::vector<PrimExpr> args;
};

struct LoadNode : PrimExprNode {
  static constexpr PrimKind kKind = PrimKind::kLoad;
  LoadNode(DType t, Buffer b, std::vector<PrimExpr> i)
      : PrimExprNode(kKind, t), buffer(std::move(b)), indices(std::move(i)) {}
  const Buffer buffer;
  const std::vector<PrimExpr> indices;
};

// ---- Constructors. Arithmetic on two integer immediates folds to an immediate, and
// x + 0, x * 1, x * 0 simplify, so that shapes like (n, 1 * 4) print as (n, 4).
PrimExpr IntImm(int64_t value, DType dtype = DType::kInt64);
/// Whether |value| is representable in the integer dtype |dtype| (what an IntImm of that
/// dtype may hold; the text form and the kernel format refuse others).
bool IntFitsDType(int64_t value, DType dtype);
PrimExpr FloatImm(double value, DType dtype = DType::kFloat32);
PrimExpr BoolImm(bool value);
PrimVar MakePrimVar(std::string name, DType dtype = DType::kInt64);
/// Builds a binary expression; the dtype is the operands' (bool for comparisons and && ||).
/// Throws kInvalidArgument if the operand dtypes differ.
PrimExpr MakeBinary(BinaryOp op, PrimExpr a, PrimExpr b);
PrimExpr MakeNot(PrimExpr x);
PrimExpr MakeSelect(PrimExpr cond, PrimExpr if_true, PrimExpr if_false);
PrimExpr MakeCast(DType dtype, PrimExpr x);
/// Intrinsics: unary exp log sqrt rsqrt tanh sigmoid abs neg erf floor ceil round
/// isnan; binary pow; the result dtype is the first argument's (isnan: bool).
PrimExpr MakeIntrinsic(const std::string& name, std::vector<PrimExpr> args);
PrimExpr MakeLoad(Buffer buffer, std::vector<PrimExpr> indices);
bool IsKnownIntrinsic(const std::string& name, int* arity = nullptr);

inline PrimExpr operator+(PrimExpr a, PrimExpr b) { return MakeBinary(BinaryOp::kAdd, a, b); }
inline PrimExpr operator-(PrimExpr a, PrimExpr b) { return MakeBinary(BinaryOp::kSub, a, b); }
inline PrimExpr operator*(PrimExpr a, PrimExpr b) { return MakeBinary(BinaryOp::kMul, a, b); }

/// The value of an integer immediate, or nullptr-like empty optional-ish: returns false if
/// |e| is not an IntImm.
bool GetConstInt(const PrimExpr& e, int64_t* value);
/// True when |a| and |b| are provably equal: same immediate, same variable, or
/// structurally identical trees (no algebra beyond that).
bool ProvablyEqual(const PrimExpr& a, const PrimExpr& b);

}  // namespace rxt
