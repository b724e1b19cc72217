// Shared helpers for the ops' struct-info inference: reading a call's arguments and
// attributes, dtype rules, NumPy broadcasting, axis normalization and dimension arithmetic.
// Every check reports through OpError, so messages name the op and the argument.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rxt/ir/op.h"

namespace rxt::infer {

using Dims = std::vector<PrimExpr>;

// ---- Arguments

/// The struct info of argument |index|.
const StructInfo& ArgSI(const CallNode& call, int index);
/// Argument |index| as a tensor; a bad call if it is anything else.
const TensorSINode& TensorArg(const CallNode& call, int index);
const TupleSINode& TupleArg(const CallNode& call, int index);
const ShapeSINode& ShapeArg(const CallNode& call, int index);
const PrimSINode& PrimArg(const CallNode& call, int index);
/// The name the op's schema gives argument |index| ("x1"), or "#index" past the schema.
std::string ArgName(const CallNode& call, int index);
/// "field 1 (Tensor((2, 3), float32)) of argument tensors": how errors name a tuple field.
std::string DescribeField(const CallNode& call, int arg, int field);
/// Field |field| of the Tuple argument |arg| as a tensor; a bad call otherwise.
const TensorSINode& TensorField(const CallNode& call, int arg, int field);
/// For ops declared Variadic(): the call has between |min| and |max| arguments.
void CheckArgCount(const CallNode& call, size_t min, size_t max);

// ---- Attributes. An attribute missing from the call takes the op's schema default; a
// value of the wrong kind is a bad call.

int64_t IntAttr(const CallNode& call, const std::string& name);
double FloatAttr(const CallNode& call, const std::string& name);  // ints are accepted too
bool BoolAttr(const CallNode& call, const std::string& name);
std::string StringAttr(const CallNode& call, const std::string& name);
DType DTypeAttr(const CallNode& call, const std::string& name);
std::vector<int64_t> IntListAttr(const CallNode& call, const std::string& name);
std::optional<int64_t> OptionalIntAttr(const CallNode& call, const std::string& name);
std::optional<std::vector<int64_t>> OptionalIntListAttr(const CallNode& call, const std::string& name);
/// A string attribute that must be one of |allowed|.
std::string ChoiceAttr(const CallNode& call, const std::string& name, const std::vector<std::string>& allowed);

// ---- DTypes (DType::kUnknown matches anything)

/// The dtype shared by tensor arguments |args|: a bad call if two known dtypes differ.
DType CommonDType(const CallNode& call, const std::vector<int>& args);
void RequireFloat(const CallNode& call, int arg);
void RequireInt(const CallNode& call, int arg);  // signed or unsigned integer
void RequireBool(const CallNode& call, int arg);

// ---- Shapes

/// A tensor's struct info from a dtype, an ndim (-1: unknown) and optional dims.
StructInfo MakeTensorSI(DType dtype, int ndim, const std::optional<Dims>& shape);

/// The static value of a dim, if it is an integer immediate.
std::optional<int64_t> StaticDim(const PrimExpr& dim);

struct BroadcastOperand {
  int arg;    // the argument the dims come from (for messages)
  Dims dims;  // right-aligned against the other operands
};
/// NumPy broadcasting of known dims: a bad call if two static dims differ and neither is 1;
/// nullopt if some dims cannot be related (e.g. `n` against 4).
std::optional<Dims> BroadcastDims(const CallNode& call, const std::vector<BroadcastOperand>& operands);

struct BroadcastShape {
  int ndim = -1;
  std::optional<Dims> shape;
};
/// Broadcasts the shapes of tensor arguments |args|; unknown ndims or shapes give less
/// precise results.
BroadcastShape BroadcastArgs(const CallNode& call, const std::vector<int>& args);

/// Maps |axis| in [-ndim, ndim) to [0, ndim); a bad call naming |arg| otherwise.
int NormalizeAxis(const CallNode& call, int arg, int64_t axis, int ndim);
/// Normalizes each axis and rejects repeated ones; keeps the given order.
std::vector<int> NormalizeAxes(const CallNode& call, int arg, const std::vector<int64_t>& axes, int ndim);

/// Like the Python formatting of a list: "[1, -1]".
std::string IntListToString(const std::vector<int64_t>& values);

// ---- Dimension arithmetic that keeps symbolic shapes readable ((n + 2) - 2 is n).

PrimExpr AddConst(const PrimExpr& dim, int64_t c);
PrimExpr MulDims(const PrimExpr& a, const PrimExpr& b);
/// The product of |dims| (1 for none).
PrimExpr Product(const Dims& dims);
PrimExpr FloorDivConst(const PrimExpr& dim, int64_t c);

/// A product of dims split into its static part and its symbolic factors: (n, 4, m * 2)
/// is 8 * [n, m]. Used to compare element counts and to solve a reshape's -1.
struct Factors {
  int64_t constant = 1;
  Dims symbols;
  bool overflow = false;  // the static part does not fit in int64: compare nothing
};
Factors Factorize(const Dims& dims);
/// Removes the symbolic factors |a| and |b| share (provably equal ones).
void CancelCommonFactors(Factors& a, Factors& b);

}  // namespace rxt::infer
