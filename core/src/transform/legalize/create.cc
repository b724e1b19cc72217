/// Legalization of the creation ops: a kernel that fills its output. The shape comes from the
/// result's struct info, so zeros_like and friends read nothing of x; a fill value is an
/// immediate when known, else a parameter.
#include "legalize_util.h"

namespace rxt::legalize {
namespace {

using namespace te;

/// The fill value of the call as a PrimExpr of the result's dtype (given the kernel call).
using FillFn = std::function<PrimExpr(KernelCall& k, DType dtype)>;

FLegalize Fill(FillFn fill) {
  return [fill](LegalizeContext& context, const CallNode& call) {
    OutputTensor out = OutputOf(call);
    KernelCall k(call);
    PrimExpr value = fill(k, out.dtype);
    TensorRef result =
        k.builder().Compute(AsOp(call.callee)->name(), out.shape, [&](const Index&) { return value; });
    return k.Finish(context, {result});
  };
}

PrimExpr ZeroFill(KernelCall&, DType dtype) { return Zero(dtype); }
PrimExpr OneFill(KernelCall&, DType dtype) { return One(dtype); }
PrimExpr ArgumentFill(KernelCall& k, DType dtype) { return k.Scalar(1, dtype); }

}  // namespace

void RegisterCreateLegalizations(OpRegistry& r) {
  SetLegalization(r, "zeros", Fill(ZeroFill));
  SetLegalization(r, "ones", Fill(OneFill));
  SetLegalization(r, "full", Fill(ArgumentFill));
  SetLegalization(r, "zeros_like", Fill(ZeroFill));
  SetLegalization(r, "ones_like", Fill(OneFill));
  SetLegalization(r, "full_like", Fill(ArgumentFill));
}

}  // namespace rxt::legalize
