/// Legalization of matmul with NumPy semantics: batch dims broadcast, a 1-D operand is a row
/// (x1) or a column (x2) vector whose dim is dropped from the result. One reduction over the
/// contraction dim, in out_dtype. linear: the same reduction against the weight's rows, then
/// the bias added by a kernel of its own (a broadcast FuseOps joins to the product, as it does
/// matmul's bias add).
#include "legalize_util.h"

namespace rxt::legalize {
namespace {

using namespace te;

Expr LegalizeMatmul(LegalizeContext& context, const CallNode& call) {
  OutputTensor out = OutputOf(call);
  RequireNumeric(call, out.dtype);
  KernelCall k(call);
  TensorRef a = k.Tensor(0), b = k.Tensor(1);
  bool a_vector = a.ndim() == 1, b_vector = b.ndim() == 1;
  // The contraction dim: a static one if either operand has it.
  PrimExpr contraction = a.dim(-1);
  int64_t size = 0;
  if (!GetConstInt(contraction, &size)) contraction = b_vector ? b.dim(0) : b.dim(-2);
  size_t batch_ndim = out.shape.size() - (a_vector ? 0 : 1) - (b_vector ? 0 : 1);
  Dims out_batch(out.shape.begin(), out.shape.begin() + batch_ndim);
  auto batch_dims = [](const TensorRef& t) { return Dims(t.shape().begin(), t.shape().end() - 2); };

  TensorRef result = k.builder().Reduce(
      "matmul", out.shape, {contraction}, ReduceKind::kSum, [&](const Index& i, const Index& r) {
        Index batch(i.begin(), i.begin() + batch_ndim);
        Index ai, bi;
        if (!a_vector) {
          ai = BroadcastIndex(batch, out_batch, batch_dims(a));
          ai.push_back(i[batch_ndim]);
        }
        ai.push_back(r[0]);
        if (!b_vector) {
          bi = BroadcastIndex(batch, out_batch, batch_dims(b));
          bi.push_back(r[0]);
          bi.push_back(i.back());
        } else {
          bi.push_back(r[0]);
        }
        return Cast(out.dtype, a(ai)) * Cast(out.dtype, b(bi));
      });
  return k.Finish(context, {result});
}

Expr LegalizeLinear(LegalizeContext& context, const CallNode& call) {
  OutputTensor out = OutputOf(call);
  RequireNumeric(call, out.dtype);
  KernelCall k(call);
  TensorRef x = k.Tensor(0), weight = k.Tensor(1);
  PrimExpr in_features = x.dim(-1);
  int64_t size = 0;
  if (!GetConstInt(in_features, &size)) in_features = weight.dim(1);
  TensorRef product = k.builder().Reduce("linear", out.shape, {in_features}, ReduceKind::kSum,
                                         [&](const Index& i, const Index& r) {
                                           Index xi(i.begin(), i.end() - 1);
                                           xi.push_back(r[0]);
                                           return x(xi) * weight({i.back(), r[0]});
                                         });
  Expr gemm = k.Finish(context, {product});
  if (call.args.size() < 3) return gemm;
  Var y = context.builder().Emit(gemm, "linear");
  KernelBuilder kb;
  TensorRef in = kb.Input("x", y->struct_info), bias = kb.Input("bias", call.args[2]->struct_info);
  TensorRef result = kb.Compute("linear_bias", out.shape, [&](const Index& i) { return in(i) + bias({i.back()}); });
  return context.CallKernel("linear_bias", kb.Build({result}), {y, call.args[2]}, {call.struct_info});
}

}  // namespace

void RegisterLinalgLegalizations(OpRegistry& r) {
  SetLegalization(r, "matmul", LegalizeMatmul);
  SetLegalization(r, "linear", LegalizeLinear);
}

}  // namespace rxt::legalize
