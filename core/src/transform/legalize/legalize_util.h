// Shared by the legalizations of every op family: reading a call's output, building a kernel
// whose parameters follow the call's arguments, and the index maps reductions share.
// Attributes are read with the ops' own helpers (op/infer_util.h): legalization sees calls
// whose struct info inference has already accepted them.
#pragma once

#include <string>
#include <vector>

#include "../../op/infer_util.h"
#include "rxt/transform/legalize/legalize.h"
#include "rxt/transform/legalize/tensor_expr.h"

namespace rxt::legalize {

using infer::Dims;

/// Gives up on a call: LegalizeOps reports |reason| with the op and the function.
[[noreturn]] void CannotLegalize(const std::string& reason);

/// The call's result (or field |field| of a Tuple result) as a tensor of known shape and dtype.
struct OutputTensor {
  Dims shape;
  DType dtype;
};
OutputTensor OutputOf(const CallNode& call);
OutputTensor OutputField(const CallNode& call, int field);

/// Rejects bool |dtype| for ops that do arithmetic on their elements.
void RequireNumeric(const CallNode& call, DType dtype);

/// A kernel being built for one call: each input it declares is fed by one of the call's
/// arguments, so the parameters and the call_kernel arguments stay in step.
class KernelCall {
 public:
  explicit KernelCall(const CallNode& call) : call_(call) {}

  KernelBuilder& builder() { return kb_; }
  /// Argument |arg| (a tensor) as an input named after the op's schema ("x1").
  TensorRef Tensor(int arg);
  /// Field |field| of Tuple argument |arg| as an input.
  TensorRef TensorField(int arg, int field);
  /// A scalar argument (a Prim value or a 0-d tensor), converted to |dtype|: an immediate
  /// when its value is known, else read from a parameter at run time.
  PrimExpr Scalar(int arg, DType dtype);

  /// call_kernel of the built kernel with |outputs| (stages): the call's result, or the
  /// fields of its Tuple result in order.
  Expr Finish(LegalizeContext& context, const std::vector<TensorRef>& outputs);

 private:
  const CallNode& call_;
  KernelBuilder kb_;
  std::vector<Expr> args_;
};

/// A legalization computing each element of the result from the elements of every argument
/// (all tensors), broadcast to the result's shape: fn receives their values in order.
using ElementwiseFn = std::function<PrimExpr(const std::vector<PrimExpr>& values)>;
Expr LegalizeElementwise(LegalizeContext& context, const CallNode& call, const ElementwiseFn& fn);

/// The index of the reduced input for element |index| of a reduction's result and reduction
/// index |reduce_index|: |reduced[k]| tells whether input dim k is reduced (in order, one
/// reduce index per reduced dim); with |keepdims| the result keeps reduced dims as 1.
Index ReductionInputIndex(const Index& index, const Index& reduce_index, const std::vector<bool>& reduced,
                          bool keepdims);
/// The dims of |shape| with |reduced| set, in order.
Dims ReducedDims(const Dims& shape, const std::vector<bool>& reduced);
/// Which of |ndim| axes appear in |axes| (none: every axis).
std::vector<bool> AxisMask(const CallNode& call, int ndim, const std::optional<std::vector<int64_t>>& axes);

/// Float sums accumulate in float64 (each float16/bfloat16/float32 value widened, the result
/// rounded once), as PyTorch's CPU reductions do: a one-by-one float32 sum of n values loses
/// up to n ulps. Integer and float64 sums keep their dtype. GEMMs and convolutions keep
/// float32 accumulators (so do PyTorch's).
DType AccumulationDType(DType dtype);
/// Reduce(kSum) of fn's values, widened to AccumulationDType: the result stays wide, for the
/// stages that use it; Narrow gives the op's dtype back.
TensorRef WideSum(KernelBuilder& kb, const std::string& name, Dims shape, Dims extents, const ReduceFn& fn);
/// |x| cast to |dtype|, as a stage named |name| (|x| itself when it already has |dtype|).
TensorRef Narrow(KernelBuilder& kb, const std::string& name, const TensorRef& x, DType dtype);

/// Sets |legalize| on op |name| unless it has one already.
void SetLegalization(OpRegistry& registry, const std::string& name, FLegalize legalize);

// One function per op family (legalize/<family>.cc); RegisterLegalizations calls them all.
void RegisterElementwiseLegalizations(OpRegistry& registry);
void RegisterLinalgLegalizations(OpRegistry& registry);
void RegisterManipulateLegalizations(OpRegistry& registry);
void RegisterIndexManipulateLegalizations(OpRegistry& registry);
void RegisterReduceLegalizations(OpRegistry& registry);
void RegisterCreateLegalizations(OpRegistry& registry);
void RegisterNNLegalizations(OpRegistry& registry);
void RegisterConvLegalizations(OpRegistry& registry);
void RegisterPoolLegalizations(OpRegistry& registry);
void RegisterNormLegalizations(OpRegistry& registry);
void RegisterLossLegalizations(OpRegistry& registry);
void RegisterCollectiveLegalizations(OpRegistry& registry);
void RegisterBuiltinLegalizations(OpRegistry& registry);

}  // namespace rxt::legalize
