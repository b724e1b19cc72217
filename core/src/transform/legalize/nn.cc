/// Legalization of the activations nn.relu, nn.gelu (the exact erf form) and nn.silu, and of
/// nn.dropout. Dropout's randomness is a counter-based hash of (seed, element index) in int64
/// arithmetic every backend computes exactly alike (products stay below 2^63): the same seed
/// gives the same mask on every backend and thread count, and a new seed per step a new mask.
#include <cmath>

#include "legalize_util.h"

namespace rxt::legalize {
namespace {

using namespace te;

FLegalize Activation(std::function<PrimExpr(const PrimExpr& x)> fn) {
  return [fn](LegalizeContext& context, const CallNode& call) {
    RequireNumeric(call, OutputOf(call).dtype);
    return LegalizeElementwise(context, call, [&](const std::vector<PrimExpr>& v) { return fn(v[0]); });
  };
}

PrimExpr Relu(const PrimExpr& x) { return Max(x, Zero(x->dtype)); }

// x * Phi(x) = x * (1 + erf(x / sqrt(2))) / 2
PrimExpr Gelu(const PrimExpr& x) {
  DType t = x->dtype;
  return x * Const(0.5, t) * (One(t) + Call("erf", x * Const(1 / std::sqrt(2.0), t)));
}

PrimExpr Silu(const PrimExpr& x) { return x * Call("sigmoid", x); }

// 2^31 - 1, a prime: hash states live in [0, kModulus).
constexpr int64_t kModulus = 2147483647;

// One round: a quadratic step modulo the prime (non-linear, so neighbouring indices
// decorrelate), then a rotation of the 31-bit state by 16 bits.
PrimExpr HashRound(const PrimExpr& h, int64_t k1, int64_t k2) {
  PrimExpr q = FloorMod(h * h + h * Int(k1) + Int(k2), Int(kModulus));
  return FloorMod(FloorMod(q, Int(1 << 15)) * Int(1 << 16) + FloorDiv(q, Int(1 << 15)), Int(kModulus));
}

/// A pseudo-random value in [0, 2^31 - 1) for element |index| under |seed| (both int64).
PrimExpr DropoutHash(const PrimExpr& seed, const PrimExpr& index) {
  PrimExpr h = FloorMod(FloorMod(index, Int(kModulus)) + FloorMod(seed, Int(kModulus)) * Int(7919) + Int(12345),
                        Int(kModulus));
  h = HashRound(h, 1013904223, 1664525);
  h = HashRound(h, 362436069, 521288629);
  return HashRound(h, 88675123, 123456789);
}

// (out, mask): with a seed, mask = hash < (1 - rate) * modulus and out = x * mask / (1 - rate);
// without, out = x and mask = 1.
Expr LegalizeDropout(LegalizeContext& context, const CallNode& call) {
  OutputTensor out = OutputField(call, 0);
  RequireNumeric(call, out.dtype);
  double rate = infer::FloatAttr(call, "rate");
  KernelCall k(call);
  KernelBuilder& kb = k.builder();
  TensorRef x = k.Tensor(0);
  DType t = out.dtype;
  if (call.args.size() < 2) {
    TensorRef copy = kb.Compute("dropout", out.shape, [&](const Index& i) { return x(i); });
    TensorRef mask = kb.Compute("mask", out.shape, [&](const Index&) { return One(t); });
    return k.Finish(context, {copy, mask});
  }
  PrimExpr seed = k.Scalar(1, DType::kInt64);
  auto threshold = static_cast<int64_t>((1 - rate) * static_cast<double>(kModulus));
  TensorRef mask = kb.Compute("mask", out.shape, [&](const Index& i) {
    return Select(Lt(DropoutHash(seed, FlatIndex(i, out.shape)), Int(threshold)), One(t), Zero(t));
  });
  TensorRef result =
      kb.Compute("dropout", out.shape, [&](const Index& i) { return x(i) * mask(i) * Const(1 / (1 - rate), t); });
  return k.Finish(context, {result, mask});
}

}  // namespace

void RegisterNNLegalizations(OpRegistry& r) {
  SetLegalization(r, "nn.relu", Activation(Relu));
  SetLegalization(r, "nn.gelu", Activation(Gelu));
  SetLegalization(r, "nn.silu", Activation(Silu));
  SetLegalization(r, "nn.dropout", LegalizeDropout);
}

}  // namespace rxt::legalize
