// The patterns of matrix products, matmul and linear: dnnl.matmul / dnnl.matmul_bias
// (docs/libraries.md).
#include "patterns.h"

#include <algorithm>

namespace rxt::lib_dnnl {
namespace {

/// The argument's producer when it is a 2-D permute_dims(x, axes=[1, 0]) of a static float32
/// x: the library reads x transposed instead (the dense layers' gradients), so the permute
/// need not run. NULL otherwise.
Expr FoldableTranspose(Pattern& p, int arg) {
  Expr permute = p.producer(0, arg);
  if (permute == nullptr || p.OpName(permute) != "permute_dims") return nullptr;
  if (IntsOf(p, permute, "axes") != std::vector<int64_t>{1, 0}) return nullptr;
  return IsStaticFloat32(p, p.Arg(permute, 0), 2) ? permute : nullptr;
}

/// The epilogue after the anchor whose bias holds one value per column of an N-column product
/// ((N,), (1, N), ...).
Epilogue FollowColumnEpilogue(Pattern& p, int64_t n) {
  return FollowEpilogue(p, [&](Expr bias) {
    std::optional<std::vector<int64_t>> shape = StaticFloat32(p, bias, -1);
    return shape && NumElements(*shape) == n && !shape->empty() && shape->back() == n;
  });
}

/// Replaces the anchor and what |epilogue| takes by dnnl.matmul(_bias)(a, b[, bias], flags),
/// the ReLU bit added to |flags| when the epilogue has one.
void ReplaceByMatmul(Pattern& p, Expr a, Expr b, const Epilogue& epilogue, int64_t flags) {
  std::vector<Expr> args = {a, b};
  if (epilogue.bias != nullptr) args.push_back(epilogue.bias);
  args.push_back(p.PrimInt(flags | (epilogue.relu ? 4 : 0)));
  Expr out = p.result(epilogue.num_calls - 1);
  p.Replace(epilogue.num_calls, p.CallExtern(epilogue.bias ? "dnnl.matmul_bias" : "dnnl.matmul", args, {out}));
}

}  // namespace

/// Whether b is a batch of matrices (..., K, N) with a's batch dims (no broadcasting): attention's
/// q kᵀ and p v.
bool HasBatchDimsOf(Pattern& p, Expr a, Expr b) {
  std::optional<std::vector<int64_t>> a_shape = StaticFloat32(p, a, -1), b_shape = StaticFloat32(p, b, -1);
  if (!a_shape || !b_shape || a_shape->size() != b_shape->size() || b_shape->size() < 3) return false;
  return std::equal(a_shape->begin(), a_shape->end() - 2, b_shape->begin());
}

/// dnnl.matmul(a, b, flags) / dnnl.matmul_bias(a, b, bias, flags): float32, a (..., M, K)
/// static, b (K, N) or (..., K, N) with a's batch dims; bias N elements. flags: bit 0 = a is
/// given transposed, bit 1 = b is (a 2-D permute_dims read only by the matmul is folded in),
/// bit 2 = ReLU.
void MatmulPattern(Pattern& p) {
  Expr matmul = p.call(0);
  Expr a = p.Arg(matmul, 0), b = p.Arg(matmul, 1);
  int a_ndim = p.Ndim(a), b_ndim = p.Ndim(b);
  if (a_ndim < 2 || !IsStaticFloat32(p, a, a_ndim)) return;
  if (!IsStaticFloat32(p, b, 2) && !HasBatchDimsOf(p, a, b)) return;
  if (p.DType(p.result(0)) != "float32") return;
  int64_t n = p.Dim(b, b_ndim - 1).value_or(-1);
  Epilogue epilogue = FollowColumnEpilogue(p, n);
  int64_t flags = 0;
  Expr ta = a_ndim == 2 ? FoldableTranspose(p, 0) : nullptr;
  Expr tb = FoldableTranspose(p, 1);
  if (ta != nullptr) {
    a = p.Arg(ta, 0);
    flags |= 1;
  }
  if (tb != nullptr) {
    b = p.Arg(tb, 0);
    flags |= 2;
  }
  ReplaceByMatmul(p, a, b, epilogue, flags);
}

/// linear(x, weight[, bias]), then nn.relu (or add of a bias when linear has none): the call
/// matmul(x, permute_dims(weight)) + bias gives, the weight (N, K) read transposed (flag bit 1).
void LinearPattern(Pattern& p) {
  Expr linear = p.call(0);
  Expr x = p.Arg(linear, 0), weight = p.Arg(linear, 1);
  int x_ndim = p.Ndim(x);
  if (x_ndim < 2 || !IsStaticFloat32(p, x, x_ndim) || !IsStaticFloat32(p, weight, 2)) return;
  if (p.DType(p.result(0)) != "float32") return;
  int64_t n = p.Dim(weight, 0).value_or(-1);
  Epilogue epilogue;
  if (p.NumArgs(linear) == 3) {
    epilogue.bias = p.Arg(linear, 2);
    if (!IsStaticFloat32(p, epilogue.bias, 1)) return;
    if (p.num_calls() > 1 && p.OpName(p.call(1)) == "nn.relu") {
      epilogue.relu = true;
      ++epilogue.num_calls;
    }
  } else {
    epilogue = FollowColumnEpilogue(p, n);
  }
  ReplaceByMatmul(p, x, weight, epilogue, 2);
}

}  // namespace rxt::lib_dnnl
