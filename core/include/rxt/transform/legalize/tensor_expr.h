// Tensor expressions: kernel functions from compute definitions, in the style of TVM's
// te.compute. A definition gives an output shape and the value of one element as a function
// of its index (and, for a reduction, of the reduction index); the builder turns each into a
// loop nest around a `block` (kernel.h) and assembles a kernel in destination-passing style.
//
//   KernelBuilder kb;
//   TensorRef x = kb.Input("x", x_sinfo);            // a buffer parameter
//   TensorRef y = kb.Compute("y", x.shape(), [&](const Index& i) { return te::Max(x(i), te::Zero(x.dtype())); });
//   TensorRef s = kb.Reduce("s", {x.dim(0)}, {x.dim(1)}, ReduceKind::kSum,
//                           [&](const Index& i, const Index& k) { return y({i[0], k[0]}); });
//   KernelFunction kernel = kb.Build({s});           // params: x, then s; y becomes an `alloc`
//
// Shapes are written with the symbolic dims of the caller (the Relax function's `n`); Build
// gives the kernel its own variables of the same names, bound from the parameters' shapes at
// run time. Index expressions are int64.
#pragma once

#include <functional>
#include <string>
#include <unordered_set>
#include <vector>

#include "rxt/ir/kernel.h"
#include "rxt/ir/struct_info.h"

namespace rxt {

using Index = std::vector<PrimExpr>;

/// A tensor of a kernel being built: an input parameter or the result of a stage.
class TensorRef {
 public:
  TensorRef() = default;
  explicit TensorRef(Buffer buffer) : buffer_(std::move(buffer)) {}

  bool defined() const { return buffer_ != nullptr; }
  const Buffer& buffer() const { return buffer_; }
  DType dtype() const { return buffer_->dtype; }
  const std::vector<PrimExpr>& shape() const { return buffer_->shape; }
  int ndim() const { return static_cast<int>(buffer_->shape.size()); }
  /// Dim |axis|; a negative axis counts from the end.
  const PrimExpr& dim(int axis) const;
  /// The element at |index| (a load): one int64 expression per dim.
  PrimExpr operator()(const Index& index) const;

 private:
  Buffer buffer_;
};

// Mirrored by the plugin ABI's rxt_te_reduce_t (te_builder_host.cc): append new kinds only.
enum class ReduceKind : uint8_t { kSum, kMax, kMin, kProd };

using ComputeFn = std::function<PrimExpr(const Index& index)>;
using ReduceFn = std::function<PrimExpr(const Index& index, const Index& reduce_index)>;

class KernelBuilder {
 public:
  /// A buffer parameter described by tensor struct info (known ndim and dtype; unknown dims
  /// become fresh variables). Throws kUnimplemented for a tensor of unknown ndim or dtype.
  TensorRef Input(const std::string& name, const StructInfo& tensor_sinfo);
  TensorRef Input(const std::string& name, DType dtype, std::vector<PrimExpr> shape);
  /// A scalar parameter (e.g. a fill value that is only known at run time).
  PrimExpr ScalarInput(const std::string& name, DType dtype);

  /// A stage: element |index| of the result is fn(index); its dtype is the value's.
  TensorRef Compute(const std::string& name, std::vector<PrimExpr> shape, const ComputeFn& fn);
  /// A reduction stage: element |index| combines fn(index, k) over every k in
  /// |reduce_extents|, starting from |init| (null: the identity of |kind|: 0, lowest, highest, 1).
  /// The init step runs on the first iteration of the reduction, so a symbolic extent must not
  /// be 0 at run time (a static 0 gives init).
  TensorRef Reduce(const std::string& name, std::vector<PrimExpr> shape, std::vector<PrimExpr> reduce_extents,
                   ReduceKind kind, const ReduceFn& fn, PrimExpr init = nullptr);

  /// The kernel: the inputs in declaration order, then |outputs| (stages of this builder);
  /// every other stage becomes a local allocation. The kernel's attributes record its op
  /// pattern kind (op_pattern.h). Throws kUnimplemented when a symbolic dim cannot be bound
  /// from the parameters' shapes.
  KernelFunction Build(const std::vector<TensorRef>& outputs) const;

 private:
  struct Stage {
    Buffer buffer;
    Stmt stmt;
  };
  /// Loop variables and block iterators of |count| dims, named prefix0, prefix1...
  std::vector<PrimVar> NewVars(const std::string& prefix, size_t count);

  std::vector<KernelParam> inputs_;
  std::vector<Stage> stages_;
  std::unordered_set<const PrimVarNode*> local_vars_;  // loop vars, iterators, scalar params
};

// ---- Scalar helpers for compute definitions (a namespace of their own: short names).
namespace te {

/// |value| as an immediate of |dtype| (ints truncate, bool is value != 0).
PrimExpr Const(double value, DType dtype);
inline PrimExpr Zero(DType dtype) { return Const(0, dtype); }
inline PrimExpr One(DType dtype) { return Const(1, dtype); }
/// The smallest and largest values of |dtype|: -inf and +inf for floats.
PrimExpr LowestValue(DType dtype);
PrimExpr HighestValue(DType dtype);

inline PrimExpr Div(PrimExpr a, PrimExpr b) { return MakeBinary(BinaryOp::kDiv, std::move(a), std::move(b)); }
inline PrimExpr FloorDiv(PrimExpr a, PrimExpr b) { return MakeBinary(BinaryOp::kFloorDiv, std::move(a), std::move(b)); }
inline PrimExpr FloorMod(PrimExpr a, PrimExpr b) { return MakeBinary(BinaryOp::kFloorMod, std::move(a), std::move(b)); }
inline PrimExpr Max(PrimExpr a, PrimExpr b) { return MakeBinary(BinaryOp::kMax, std::move(a), std::move(b)); }
inline PrimExpr Min(PrimExpr a, PrimExpr b) { return MakeBinary(BinaryOp::kMin, std::move(a), std::move(b)); }
inline PrimExpr Eq(PrimExpr a, PrimExpr b) { return MakeBinary(BinaryOp::kEq, std::move(a), std::move(b)); }
inline PrimExpr Ne(PrimExpr a, PrimExpr b) { return MakeBinary(BinaryOp::kNe, std::move(a), std::move(b)); }
inline PrimExpr Lt(PrimExpr a, PrimExpr b) { return MakeBinary(BinaryOp::kLt, std::move(a), std::move(b)); }
inline PrimExpr Le(PrimExpr a, PrimExpr b) { return MakeBinary(BinaryOp::kLe, std::move(a), std::move(b)); }
inline PrimExpr Gt(PrimExpr a, PrimExpr b) { return MakeBinary(BinaryOp::kGt, std::move(a), std::move(b)); }
inline PrimExpr Ge(PrimExpr a, PrimExpr b) { return MakeBinary(BinaryOp::kGe, std::move(a), std::move(b)); }
inline PrimExpr And(PrimExpr a, PrimExpr b) { return MakeBinary(BinaryOp::kAnd, std::move(a), std::move(b)); }
inline PrimExpr Or(PrimExpr a, PrimExpr b) { return MakeBinary(BinaryOp::kOr, std::move(a), std::move(b)); }
inline PrimExpr Select(PrimExpr c, PrimExpr a, PrimExpr b) { return MakeSelect(std::move(c), std::move(a), std::move(b)); }
/// A conversion; an immediate converts at once (Cast(float32, 3) is 3f32).
PrimExpr Cast(DType dtype, PrimExpr x);
/// An intrinsic of one argument: Call("exp", x).
inline PrimExpr Call(const std::string& name, PrimExpr x) { return MakeIntrinsic(name, {std::move(x)}); }
/// An int64 immediate.
inline PrimExpr Int(int64_t value) { return IntImm(value); }

/// lo <= x < hi, for int64 |x|.
PrimExpr InRange(const PrimExpr& x, const PrimExpr& lo, const PrimExpr& hi);
/// |x| clamped to [0, extent - 1]: an index that is always in bounds, for loads that a
/// select may discard (a backend may evaluate both branches of a select).
PrimExpr ClampIndex(const PrimExpr& x, const PrimExpr& extent);
/// The element of |t| at |index| if every index is in bounds, else |fill|; the load itself
/// never reads out of bounds.
PrimExpr LoadOr(const TensorRef& t, const Index& index, const PrimExpr& fill);
/// The same, checking only the dims in |dims| (the caller knows the others are in bounds);
/// no dims: a plain load.
PrimExpr LoadOr(const TensorRef& t, const Index& index, const PrimExpr& fill, const std::vector<int>& dims);

/// The index of an operand of shape |in_shape| for element |out_index| of the result of
/// shape |out_shape| under NumPy broadcasting (dims right-aligned, size-1 dims read index 0).
Index BroadcastIndex(const Index& out_index, const std::vector<PrimExpr>& out_shape,
                     const std::vector<PrimExpr>& in_shape);
/// The row-major position of |index| in |shape|, and back.
PrimExpr FlatIndex(const Index& index, const std::vector<PrimExpr>& shape);
Index UnravelIndex(const PrimExpr& flat, const std::vector<PrimExpr>& shape);
/// The product of |dims| (1 for none), int64.
PrimExpr ProductOf(const std::vector<PrimExpr>& dims);

}  // namespace te
}  // namespace rxt
