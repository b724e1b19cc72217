// matmul with NumPy semantics: 1-D operands (promoted, then squeezed) and broadcast batch
// dims, whose adjoints are summed back to each operand's shape; linear (PyTorch's layout).
#include "families.h"
#include "grad_util.h"

namespace rxt::grad_std {
namespace {

// z = a @ b: da = dz @ b^T, db = a^T @ dz, with 1-D operands handled by adding and removing
// their promoted dims. A result in another dtype (out_dtype) converts its adjoint first.
void MatmulGrad(Rule& r) {
  Expr a = r.arg(0), b = r.arg(1), dz = r.grad();
  int na = r.KnownNdim(a, "x1"), nb = r.KnownNdim(b, "x2");
  if (r.DType(dz) != r.DType(a)) dz = r.Op("astype", {dz}, "dtype=" + r.DType(a));
  Expr da, db;
  if (na == 1 && nb == 1) {  // a dot product: dz is 0-d
    da = Mul(r, dz, b);
    db = Mul(r, dz, a);
  } else if (na == 1) {                                                // z (..., n) = a (k) @ b (..., k, n)
    Expr dz_col = r.Op("expand_dims", {dz}, "axis=[-1]");              // (..., n, 1)
    da = r.Op("squeeze", {r.Op("matmul", {b, dz_col})}, "axis=[-1]");  // (..., k)
    db = Mul(r, r.Op("expand_dims", {a}, "axis=[1]"), r.Op("expand_dims", {dz}, "axis=[-2]"));  // (..., k, n)
  } else if (nb == 1) {                                    // z (..., m) = a (..., m, k) @ b (k)
    Expr dz_col = r.Op("expand_dims", {dz}, "axis=[-1]");  // (..., m, 1)
    da = Mul(r, dz_col, b);                                // (..., m, k)
    db = r.Op("squeeze", {r.Op("matmul", {TransposeLast2(r, a), dz_col})}, "axis=[-1]");  // (..., k)
  } else {
    da = r.Op("matmul", {dz, TransposeLast2(r, b)});
    db = r.Op("matmul", {TransposeLast2(r, a), dz});
  }
  r.SetGrad(0, CollapseTo(r, da, a));
  r.SetGrad(1, CollapseTo(r, db, b));
}

// y = linear(x, w, b) = x @ w^T + b, x (..., in), w (out, in): dx = dy @ w, dw = dy^T @ x
// over every row of the leading dims (flattened to one matrix when in/out are static, so one
// GEMM; else a batched product summed down), db = dy summed over the leading dims.
void LinearGrad(Rule& r) {
  Expr x = r.arg(0), w = r.arg(1), dy = r.grad();
  int nx = r.KnownNdim(x, "x");
  Expr dw;
  if (nx == 1) {  // an outer product: (out, 1) * (1, in)
    dw = Mul(r, r.Op("expand_dims", {dy}, "axis=[1]"), r.Op("expand_dims", {x}, "axis=[0]"));
  } else if (nx == 2) {
    dw = r.Op("matmul", {TransposeLast2(r, dy), x});
  } else {
    std::optional<int64_t> in = r.Dim(x, nx - 1), out = r.Dim(w, 0);
    if (in && out) {
      Expr rows_dy = r.Op("reshape", {dy, ReshapeTarget(r, {std::nullopt, *out}, "")});
      Expr rows_x = r.Op("reshape", {x, ReshapeTarget(r, {std::nullopt, *in}, "")});
      dw = r.Op("matmul", {TransposeLast2(r, rows_dy), rows_x});
    } else {
      dw = CollapseTo(r, r.Op("matmul", {TransposeLast2(r, dy), x}), w);
    }
  }
  r.SetGrad(0, r.Op("matmul", {dy, w}));
  r.SetGrad(1, dw);
  if (r.num_args() == 3) r.SetGrad(2, CollapseTo(r, dy, r.arg(2)));
}

const rxt_gradient_rule_t kRules[] = {
    RXT_GRADIENT_RULE("matmul", "dx1 = dz @ x2^T, dx2 = x1^T @ dz (1-D operands promoted), collapsed over batch dims",
                  MatmulGrad),
    RXT_GRADIENT_RULE("linear", "dx = dy @ w, dw = dy^T @ x over the rows of the leading dims, db = dy summed to (out,)",
                      LinearGrad),
};

}  // namespace

std::span<const rxt_gradient_rule_t> LinalgGradients() { return kRules; }

}  // namespace rxt::grad_std
