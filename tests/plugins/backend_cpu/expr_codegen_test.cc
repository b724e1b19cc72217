// Expressions in generated code (expr_codegen.cc): && and || evaluate their right side only
// when it decides, select only the chosen side, loads with computed indices, shared
// subexpressions.
#include "cpu_test_util.h"

namespace rxt::backend_cpu::testing {
namespace {

TEST(ExprCodegen, AndOrAndSelectNeverReadOutOfBounds) {
  // i runs one past the end: only the guards keep X[n] from being read (with a large n, an
  // unguarded read would cross into unmapped memory sooner or later; the counts show it too).
  const char* text = R"(
kernel @guarded(X: Buffer((n,), float32), Count: Buffer((3,), int32)) {
  for i in range(n + 1) {
    if i < n && X[i] > 0f32 {
      Count[0] = Count[0] + 1i32
    }
    if i >= n || X[i] < 0f32 {
      Count[1] = Count[1] + 1i32
    }
    Count[2] = Count[2] + select(i < n, int32(X[i]), 100i32)
  }
}
)";
  for (int64_t n : {0, 1, 7, 1000}) {
    ExpectAgree(text, "guarded", {ArgSpec::Tensor({n}, kF32), ArgSpec::Tensor({3}, kI32)});
  }
}

TEST(ExprCodegen, SelectGuardsADivisionByZero) {
  const char* text = R"(
kernel @safe(A: Buffer((n,), int32), B: Buffer((n,), int32), Out: Buffer((n,), int32)) {
  for i in range(n) {
    Out[i] = select(B[i] != 0i32, floordiv(A[i], B[i]), -1i32) + select(B[i] == 0i32 || floormod(A[i], B[i]) == 0i32, 1i32, 0i32)
  }
}
)";
  AgreeOptions o;
  o.lo = -3, o.hi = 3;  // plenty of zeros
  ExpectAgree(text, "safe", {ArgSpec::Tensor({500}, kI32), ArgSpec::Tensor({500}, kI32), ArgSpec::Tensor({500}, kI32)}, o);
}

TEST(ExprCodegen, ComputedIndicesAndPadding) {
  // A 1-d convolution with zero padding: loads at i + k - 1 guarded by a select, as the
  // legalized pad and conv2d kernels write them.
  const char* text = R"(
kernel @conv(X: Buffer((n,), float32), W: Buffer((3,), float32), Out: Buffer((n,), float32)) {
  for i in range(n) vectorized {
    Out[i] = select(i >= 1, X[max(i - 1, 0)], 0f32) * W[0] + X[i] * W[1] + select(i + 1 < n, X[min(i + 1, n - 1)], 0f32) * W[2]
  }
}
)";
  for (int64_t n : {1, 2, 3, 17, 1024}) {
    ExpectAgree(text, "conv", {ArgSpec::Tensor({n}, kF32), ArgSpec::Tensor({3}, kF32), ArgSpec::Tensor({n}, kF32)});
  }
}

TEST(ExprCodegen, NotAndBoolArithmetic) {
  const char* text = R"(
kernel @logic(P: Buffer((n,), bool), Q: Buffer((n,), bool), Out: Buffer((5, n), bool), S: Buffer((n,), int32)) {
  for i in range(n) {
    Out[0, i] = P[i] && Q[i]
    Out[1, i] = P[i] || Q[i]
    Out[2, i] = !P[i]
    Out[3, i] = P[i] == Q[i]
    Out[4, i] = P[i] != Q[i]
    S[i] = select(P[i], 10i32, select(Q[i], 20i32, 30i32))
  }
}
)";
  AgreeOptions o;
  o.full_int_range = true;  // any non-zero byte reads as true
  ExpectAgree(text, "logic",
              {ArgSpec::Tensor({64}, kBool), ArgSpec::Tensor({64}, kBool), ArgSpec::Tensor({5, 64}, kBool),
               ArgSpec::Tensor({64}, kI32)},
              o);
}

}  // namespace
}  // namespace rxt::backend_cpu::testing
