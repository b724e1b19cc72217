// Struct info: the static type-and-shape of every Relax value.
#pragma once

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rxt/ir/prim_expr.h"

namespace rxt {

enum class StructInfoKind : uint8_t { kObject, kPrim, kShape, kTensor, kTuple, kFunc };

/// How deeply struct info may nest (a tuple of a tuple of ...): every walk over a type, and
/// its destruction, recurses once per level. Built deeper (a chain of bindings can), TupleSI
/// and FuncSI refuse it with kInvalidArgument.
inline constexpr int kMaxStructInfoDepth = 1024;

struct StructInfoNode {
  explicit StructInfoNode(StructInfoKind k, int d = 1) : kind(k), depth(d) {}
  virtual ~StructInfoNode() = default;
  const StructInfoKind kind;
  /// 1 for a leaf; 1 + the deepest field, parameter or result for tuples and functions.
  const int depth;

  template <typename T>
  const T* As() const { return kind == T::kKind ? static_cast<const T*>(this) : nullptr; }
};
using StructInfo = std::shared_ptr<const StructInfoNode>;

/// Any value (the top of the lattice).
struct ObjectSINode : StructInfoNode {
  static constexpr StructInfoKind kKind = StructInfoKind::kObject;
  ObjectSINode() : StructInfoNode(kKind) {}
};

/// A scalar of |dtype|, optionally with a known (possibly symbolic) value.
struct PrimSINode : StructInfoNode {
  static constexpr StructInfoKind kKind = StructInfoKind::kPrim;
  PrimSINode(DType t, PrimExpr v) : StructInfoNode(kKind), dtype(t), value(std::move(v)) {}
  const DType dtype;
  const PrimExpr value;  // may be null
};

/// A shape value: ndim (-1 when unknown) and optionally its dims.
struct ShapeSINode : StructInfoNode {
  static constexpr StructInfoKind kKind = StructInfoKind::kShape;
  ShapeSINode(int n, std::optional<std::vector<PrimExpr>> v)
      : StructInfoNode(kKind), ndim(n), values(std::move(v)) {}
  const int ndim;
  const std::optional<std::vector<PrimExpr>> values;
};

/// A tensor: dtype (kUnknown if any), ndim (-1 if unknown) and optionally a shape whose
/// dims are int64 expressions (static or symbolic).
struct TensorSINode : StructInfoNode {
  static constexpr StructInfoKind kKind = StructInfoKind::kTensor;
  TensorSINode(DType t, int n, std::optional<std::vector<PrimExpr>> s)
      : StructInfoNode(kKind), dtype(t), ndim(n), shape(std::move(s)) {}
  const DType dtype;
  const int ndim;
  const std::optional<std::vector<PrimExpr>> shape;
  /// All dims are integer immediates.
  bool IsStatic() const;
  /// The static shape; requires IsStatic().
  std::vector<int64_t> StaticShape() const;
};

/// The deepest of |infos| (0 for none).
inline int MaxDepth(const std::vector<StructInfo>& infos) {
  int depth = 0;
  for (const StructInfo& s : infos) depth = std::max(depth, s ? s->depth : 0);
  return depth;
}

struct TupleSINode : StructInfoNode {
  static constexpr StructInfoKind kKind = StructInfoKind::kTuple;
  explicit TupleSINode(std::vector<StructInfo> f) : StructInfoNode(kKind, 1 + MaxDepth(f)), fields(std::move(f)) {}
  const std::vector<StructInfo> fields;
};

/// The signature of a Relax function (the struct info of a GlobalVar).
struct FuncSINode : StructInfoNode {
  static constexpr StructInfoKind kKind = StructInfoKind::kFunc;
  FuncSINode(std::vector<StructInfo> p, StructInfo r, bool pure)
      : StructInfoNode(kKind, 1 + std::max(MaxDepth(p), r ? r->depth : 0)),
        params(std::move(p)), ret(std::move(r)), is_pure(pure) {}
  const std::vector<StructInfo> params;
  const StructInfo ret;
  const bool is_pure;
};

StructInfo ObjectSI();
StructInfo PrimSI(DType dtype, PrimExpr value = nullptr);
StructInfo ShapeSI(std::vector<PrimExpr> values);
StructInfo ShapeSI(int ndim);  // dims unknown
StructInfo TensorSI(std::vector<PrimExpr> shape, DType dtype);
StructInfo TensorSI(const std::vector<int64_t>& shape, DType dtype);
StructInfo TensorSI(DType dtype, int ndim = -1);  // shape unknown
StructInfo TupleSI(std::vector<StructInfo> fields);
StructInfo FuncSI(std::vector<StructInfo> params, StructInfo ret, bool is_pure = true);

/// A short human-readable form for messages, the same as the text format's:
/// Tensor((n, 4), float32). Bounded: past kMaxMessageValueChars characters (message_text.h)
/// the rest is left out and the text ends with `…`, in time proportional to that budget.
/// PrintStructInfo (printer.h) gives the whole text.
std::string ToString(const StructInfo& sinfo);

/// True if every value described by |derived| is also described by |base|
/// (e.g. Tensor((2, 3), float32) is a Tensor(ndim=2, float32) is an Object).
/// Symbolic dims compare with ProvablyEqual; when that cannot decide, returns false
/// unless |assume_unknown_equal| is set.
bool IsBaseOf(const StructInfo& base, const StructInfo& derived, bool assume_unknown_equal = false);

/// The least upper bound of two struct infos (used to join If branches).
StructInfo Unify(const StructInfo& a, const StructInfo& b);

}  // namespace rxt
