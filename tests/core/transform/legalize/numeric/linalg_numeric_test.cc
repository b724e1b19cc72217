// matmul: plain, batched with broadcast batch dims, 1-D operands, symbolic dims, out_dtype;
// linear (PyTorch's layout) with and without a bias.
#include "core/transform/legalize/numeric/numeric_test_util.h"
#include "rxt/support/error.h"

namespace rxt::numeric {
namespace {

/// NumPy matmul of |a| and |b| (1-D operands promoted, batch dims broadcast), in |dtype|.
Array ReferenceMatmul(const Array& a, const Array& b, DType dtype) {
  Shape as = a.shape, bs = b.shape;
  if (as.size() == 1) as.insert(as.begin(), 1);
  if (bs.size() == 1) bs.push_back(1);
  Shape a_batch(as.begin(), as.end() - 2), b_batch(bs.begin(), bs.end() - 2);
  Shape batch = BroadcastShapes(a_batch, b_batch);
  int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
  Shape out = batch;
  if (a.shape.size() > 1) out.push_back(m);
  if (b.shape.size() > 1) out.push_back(n);
  Array a2{a.dtype, as, a.data}, b2{b.dtype, bs, b.data};
  return Map(out, dtype, [&](const Idx& i) {
    Idx bi(i.begin(), i.begin() + batch.size());
    int64_t row = a.shape.size() > 1 ? i[batch.size()] : 0;
    int64_t col = b.shape.size() > 1 ? i.back() : 0;
    double sum = 0;
    for (int64_t r = 0; r < k; ++r) {
      Idx ai = bi, bj = bi;
      ai.insert(ai.end(), {row, r});
      bj.insert(bj.end(), {r, col});
      sum += BroadcastAt(a2, ai) * BroadcastAt(b2, bj);
    }
    return sum;
  });
}

struct MatmulCase {
  std::string params;
  Shape a, b;
};

TEST(LinalgNumeric, MatmulShapes) {
  const MatmulCase cases[] = {
      {"%a: Tensor((3, 5), float32), %b: Tensor((5, 2), float32)", {3, 5}, {5, 2}},
      {"%a: Tensor((n, k), float32), %b: Tensor((k, m), float32)", {4, 3}, {3, 2}},
      {"%a: Tensor((2, 1, 3, 4), float32), %b: Tensor((3, 4, 2), float32)", {2, 1, 3, 4}, {3, 4, 2}},
      {"%a: Tensor((b, 3, 4), float32), %b: Tensor((4, 5), float32)", {2, 3, 4}, {4, 5}},
      {"%a: Tensor((4,), float32), %b: Tensor((2, 4, 3), float32)", {4}, {2, 4, 3}},
      {"%a: Tensor((2, 3, 4), float32), %b: Tensor((4,), float32)", {2, 3, 4}, {4}},
      {"%a: Tensor((k,), float32), %b: Tensor((k,), float32)", {6}, {6}},
  };
  uint32_t seed = 1;
  for (const MatmulCase& c : cases) {
    SCOPED_TRACE(c.params);
    Array a = Random(c.a, DType::kFloat32, seed++), b = Random(c.b, DType::kFloat32, seed++);
    std::vector<Array> out = RunOp(c.params, "matmul(%a, %b)", {a, b});
    EXPECT_TRUE(Near(out[0], ReferenceMatmul(a, b, DType::kFloat32), 1e-5, 1e-5));
  }
}

TEST(LinalgNumeric, MatmulOutDtypeAndIntegers) {
  Array a = Random({2, 3}, DType::kInt32, 20, -5, 5), b = Random({3, 4}, DType::kInt32, 21, -5, 5);
  EXPECT_TRUE(Near(RunOp("%a: Tensor((2, 3), int32), %b: Tensor((3, 4), int32)", "matmul(%a, %b)", {a, b})[0],
                   ReferenceMatmul(a, b, DType::kInt32)));
  EXPECT_TRUE(Near(RunOp("%a: Tensor((2, 3), int32), %b: Tensor((3, 4), int32)", "matmul(%a, %b, out_dtype=float64)",
                         {a, b})[0],
                   ReferenceMatmul(a, b, DType::kFloat64)));
}

TEST(LinalgNumeric, LinearIsXTimesWeightTransposedPlusBias) {
  struct Case {
    std::string params;
    Shape x;
    int64_t out;
    bool bias;
  };
  const Case cases[] = {
      {"%x: Tensor((3, 5), float32), %w: Tensor((2, 5), float32), %b: Tensor((2,), float32)", {3, 5}, 2, true},
      {"%x: Tensor((n, 5), float32), %w: Tensor((o, 5), float32)", {4, 5}, 3, false},
      {"%x: Tensor((2, 3, 4), float32), %w: Tensor((6, 4), float32), %b: Tensor((6,), float32)", {2, 3, 4}, 6, true},
      {"%x: Tensor((4,), float32), %w: Tensor((3, 4), float32), %b: Tensor((3,), float32)", {4}, 3, true},
  };
  uint32_t seed = 30;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.params);
    int64_t in = c.x.back();
    Array x = Random(c.x, DType::kFloat32, seed++), w = Random({c.out, in}, DType::kFloat32, seed++);
    Array b = Random({c.out}, DType::kFloat32, seed++);
    std::vector<Array> inputs = {x, w};
    if (c.bias) inputs.push_back(b);
    std::vector<Array> out = RunOp(c.params, c.bias ? "linear(%x, %w, %b)" : "linear(%x, %w)", inputs);
    Shape shape = c.x;
    shape.back() = c.out;
    EXPECT_TRUE(Near(out[0], Map(shape, DType::kFloat32, [&](const Idx& i) {
      double sum = c.bias ? b.data[i.back()] : 0;
      Idx xi = i;
      for (int64_t k = 0; k < in; ++k) {
        xi.back() = k;
        sum += x.at(xi) * w.at({i.back(), k});
      }
      return sum;
    }), 1e-5, 1e-5));
  }
}

}  // namespace
}  // namespace rxt::numeric
