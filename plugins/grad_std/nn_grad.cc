// Activations and dropout.
#include "families.h"
#include "grad_util.h"

namespace rxt::grad_std {
namespace {

// y = relu(x): dx = dz where y > 0 (the same elements as x > 0). Reading the output rather
// than x lets x die in the forward pass, and a convolution or matmul can then take the ReLU
// into its epilogue (training as in inference).
void ReluGrad(Rule& r) {
  Expr y = r.output();
  r.SetGrad(0, KeepWhere(r, r.Op("greater", {y, r.ScalarLike(0, y)}), r.grad()));
}

// gelu(x) = x Phi(x): dx = dz (Phi(x) + x phi(x)), Phi(x) = (1 + erf(x / sqrt 2)) / 2,
// phi(x) = exp(-x^2 / 2) / sqrt(2 pi).
void GeluGrad(Rule& r) {
  Expr x = r.arg(0);
  Expr cdf = Scale(r, Add(r, r.ScalarLike(1, x), r.Op("erf", {Scale(r, x, 0.70710678118654752)})), 0.5);
  Expr pdf = Scale(r, r.Op("exp", {Scale(r, Mul(r, x, x), -0.5)}), 0.39894228040143268);
  r.SetGrad(0, Mul(r, r.grad(), Add(r, cdf, Mul(r, x, pdf))));
}

// silu(x) = x s, s = sigmoid(x): dx = dz s (1 + x (1 - s)).
void SiluGrad(Rule& r) {
  Expr x = r.arg(0);
  Expr s = r.Op("sigmoid", {x});
  Expr one = r.ScalarLike(1, x);
  r.SetGrad(0, Mul(r, r.grad(), Mul(r, s, Add(r, one, Mul(r, x, Sub(r, one, s))))));
}

// (out, mask) = dropout(x[, seed]): out = x mask / (1 - rate) in training (with a seed), x
// in inference. The mask and the seed take no gradient.
void DropoutGrad(Rule& r) {
  Expr dout = r.GradField(0);
  if (r.num_args() < 2) {
    r.SetGrad(0, dout);
    return;
  }
  double rate = r.Float("rate");
  r.SetGrad(0, Mul(r, dout, Scale(r, r.OutputField(1), 1 / (1 - rate))));
}

const rxt_gradient_rule_t kRules[] = {
    RXT_GRADIENT_RULE("nn.relu", "dx = dz where y > 0, else 0 (y = relu(x): the same elements as x > 0)", ReluGrad),
    RXT_GRADIENT_RULE("nn.gelu", "dx = dz (Phi(x) + x phi(x))", GeluGrad),
    RXT_GRADIENT_RULE("nn.silu", "dx = dz s (1 + x (1 - s)), s = sigmoid(x)", SiluGrad),
    RXT_GRADIENT_RULE("nn.dropout", "dx = dz mask / (1 - rate) with a seed (training), dz without; none for the seed",
                  DropoutGrad),
};

}  // namespace

std::span<const rxt_gradient_rule_t> NNGradients() { return kRules; }

}  // namespace rxt::grad_std
