/// Legalization of the activations nn.relu, nn.gelu (the exact erf form) and nn.silu.
/// nn.dropout has none yet: it needs a random seed input (the training issue adds it).
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

}  // namespace

void RegisterNNLegalizations(OpRegistry& r) {
  SetLegalization(r, "nn.relu", Activation(Relu));
  SetLegalization(r, "nn.gelu", Activation(Gelu));
  SetLegalization(r, "nn.silu", Activation(Silu));
}

}  // namespace rxt::legalize
