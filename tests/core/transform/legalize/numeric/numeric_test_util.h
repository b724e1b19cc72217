// Numeric tests of legalization: a one-op Relax function is legalized (LegalizeOps), its
// kernels run on the reference interpreter (plugins/backend_reference) and the results are
// compared with a straightforward C++ reference written in the test.
//
//   Array x = Random({3, 4}, DType::kFloat32, 1);
//   std::vector<Array> out = RunOp("%x: Tensor((n, 4), float32)", "nn.relu(%x)", {x});
//   EXPECT_TRUE(Near(out[0], Map(x.shape, x.dtype, [&](const Idx& i) { return std::max(x.at(i), 0.0); })));
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "rxt/support/dtype.h"

namespace rxt::numeric {

using Shape = std::vector<int64_t>;
using Idx = std::vector<int64_t>;

/// A tensor for references: values as doubles (already rounded to |dtype|), row-major.
struct Array {
  DType dtype = DType::kFloat32;
  Shape shape;
  std::vector<double> data;

  int64_t numel() const;
  double at(const Idx& index) const;
  double& at(const Idx& index);
};

int64_t NumElements(const Shape& shape);
/// Calls fn for every index of |shape|, in row-major order.
void ForEachIndex(const Shape& shape, const std::function<void(const Idx&)>& fn);
/// An array whose element at i is fn(i), rounded to |dtype|.
Array Map(const Shape& shape, DType dtype, const std::function<double(const Idx&)>& fn);
/// Uniform random values in [lo, hi] (integers for integer dtypes, 0/1 for bool), rounded
/// to |dtype|; the same seed gives the same values.
Array Random(const Shape& shape, DType dtype, uint32_t seed, double lo = -2, double hi = 2);
/// |value| as |dtype| holds it (float32 rounding, integer truncation).
double RoundTo(DType dtype, double value);

/// NumPy broadcasting of two shapes.
Shape BroadcastShapes(const Shape& a, const Shape& b);
/// The element of |a| that broadcasts to |out_index| of a larger shape.
double BroadcastAt(const Array& a, const Idx& out_index);

/// Legalizes `def @main(<params>) { %r = <call> return %r }`, checks the result is well
/// formed, round-trips through the text format and holds no op call but call_kernel, then
/// runs it with |inputs| bound to the parameters (symbolic dims from their shapes). Returns
/// the result (the fields of a Tuple result, in order).
std::vector<Array> RunOp(const std::string& params, const std::string& call, const std::vector<Array>& inputs);
/// RunOp with a body of several bindings (one per line) that binds the result to %r.
std::vector<Array> RunFunction(const std::string& params, const std::string& bindings, const std::vector<Array>& inputs);

/// Same shape and dtype, and every element within atol + rtol * |expected| (NaN matches NaN):
/// EXPECT_TRUE(Near(out[0], expected)).
::testing::AssertionResult Near(const Array& actual, const Array& expected, double rtol = 1e-5, double atol = 1e-5);

}  // namespace rxt::numeric
