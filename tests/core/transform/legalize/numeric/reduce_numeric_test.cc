// Reductions (sum, mean, max, min, prod, variance, argmax), cumsum and softmax / log_softmax.
#include <cmath>
#include <limits>

#include "core/transform/legalize/numeric/numeric_test_util.h"
#include "rxt/support/error.h"

namespace rxt::numeric {
namespace {

constexpr DType kF32 = DType::kFloat32;

/// Reduces |x| over |axes| (empty: all) with fn(values of one group) -> result.
Array ReferenceReduce(const Array& x, std::vector<int> axes, bool keepdims, DType dtype,
                      const std::function<double(const std::vector<double>&)>& fn) {
  int ndim = static_cast<int>(x.shape.size());
  std::vector<bool> reduced(ndim, axes.empty());
  for (int a : axes) reduced[(a + ndim) % ndim] = true;
  Shape out;
  for (int d = 0; d < ndim; ++d) {
    if (!reduced[d]) out.push_back(x.shape[d]);
    else if (keepdims) out.push_back(1);
  }
  return Map(out, dtype, [&](const Idx& o) {
    std::vector<double> values;
    ForEachIndex(x.shape, [&](const Idx& i) {
      size_t next = 0;
      for (int d = 0; d < ndim; ++d) {
        if (!reduced[d]) {
          if (i[d] != o[next]) return;
          ++next;
        } else if (keepdims) {
          ++next;
        }
      }
      values.push_back(x.at(i));
    });
    return fn(values);
  });
}

double Sum(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s;
}
double Mean(const std::vector<double>& v) { return Sum(v) / v.size(); }
double Max(const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }
double Min(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }
double Prod(const std::vector<double>& v) {
  double p = 1;
  for (double x : v) p *= x;
  return p;
}
double Variance(const std::vector<double>& v) {
  double m = Mean(v), s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return s / v.size();
}
double Argmax(const std::vector<double>& v) {
  size_t best = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    if (std::isnan(v[i])) return static_cast<double>(i);
    if (v[i] > v[best]) best = i;
  }
  return static_cast<double>(best);
}

struct AxisCase {
  const char* attrs;  // the call's axis/keepdims attributes
  std::vector<int> axes;
  bool keepdims;
};

const AxisCase kAxisCases[] = {
    {"", {}, false},
    {", keepdims=true", {}, true},
    {", axis=[1]", {1}, false},
    {", axis=[-1, 0], keepdims=true", {-1, 0}, true},
    {", axis=[0, 2]", {0, 2}, false},
};

TEST(ReduceNumeric, SumMeanMaxMinProdVarianceOverAxes) {
  struct Op {
    const char* name;
    double (*fn)(const std::vector<double>&);
  };
  const Op ops[] = {{"sum", Sum}, {"mean", Mean}, {"max", Max}, {"min", Min}, {"prod", Prod}, {"variance", Variance}};
  Array x = Random({2, 3, 4}, kF32, 1);
  for (const Op& op : ops) {
    for (const AxisCase& c : kAxisCases) {
      SCOPED_TRACE(StrCat(op.name, c.attrs));
      std::vector<Array> out = RunOp("%x: Tensor((n, 3, m), float32)", StrCat(op.name, "(%x", c.attrs, ")"), {x});
      EXPECT_TRUE(Near(out[0], ReferenceReduce(x, c.axes, c.keepdims, kF32, op.fn), 1e-5, 1e-5));
    }
  }
}

// A float32 sum accumulates in float64 and is rounded once (as PyTorch's CPU sum): one by one
// in float32, 20000 values of about 1 would be off by hundreds of ulps.
TEST(ReduceNumeric, FloatSumsAreRoundedOnce) {
  Array x = Random({2, 20000}, kF32, 5, 0.5, 1.5);
  for (const char* op : {"sum", "mean"}) {
    SCOPED_TRACE(op);
    Array expected = ReferenceReduce(x, {1}, false, kF32, op == std::string("sum") ? Sum : Mean);
    std::vector<Array> out = RunOp("%x: Tensor((2, 20000), float32)", StrCat(op, "(%x, axis=[1])"), {x});
    EXPECT_TRUE(Near(out[0], expected, 1e-7, 0)) << "within one rounding of the exact sum";
  }
  // The mean squared deviation (variance) of values far from 0, next to their spread.
  Array y = Map({3000}, kF32, [&](const Idx& i) { return 1000 + x.at({0, i[0]}); });
  std::vector<Array> out = RunOp("%y: Tensor((3000,), float32)", "variance(%y)", {y});
  EXPECT_TRUE(Near(out[0], ReferenceReduce(y, {}, false, kF32, Variance), 1e-6, 0));
}

TEST(ReduceNumeric, IntegerSumAndMax) {
  Array x = Random({3, 4}, DType::kInt32, 2, -9, 9);
  EXPECT_TRUE(Near(RunOp("%x: Tensor((3, 4), int32)", "sum(%x, axis=[0])", {x})[0],
                   ReferenceReduce(x, {0}, false, DType::kInt32, Sum)));
  EXPECT_TRUE(Near(RunOp("%x: Tensor((3, 4), int32)", "max(%x)", {x})[0],
                   ReferenceReduce(x, {}, false, DType::kInt32, Max)));
}

// Integer products (the values small enough not to overflow int32), and zeros in a float product.
TEST(ReduceNumeric, ProdOfIntegersAndOfZeros) {
  Array x = Random({2, 3, 4}, DType::kInt32, 6, -2, 2);
  for (const AxisCase& c : kAxisCases) {
    SCOPED_TRACE(c.attrs);
    EXPECT_TRUE(Near(RunOp("%x: Tensor((2, 3, 4), int32)", StrCat("prod(%x", c.attrs, ")"), {x})[0],
                     ReferenceReduce(x, c.axes, c.keepdims, DType::kInt32, Prod)));
  }
  Array y{DType::kFloat64, {2, 3}, {2, 0, -1.5, 0, 0, 4}};
  EXPECT_TRUE(Near(RunOp("%y: Tensor((n, 3), float64)", "prod(%y, axis=[0])", {y})[0],
                   Array{DType::kFloat64, {3}, {0, 0, -6}}));
}

TEST(ReduceNumeric, AStaticEmptyReductionGivesTheIdentity) {
  Array x{kF32, {2, 0}, {}};
  EXPECT_TRUE(Near(RunOp("%x: Tensor((2, 0), float32)", "sum(%x, axis=[1])", {x})[0], Array{kF32, {2}, {0, 0}}));
  EXPECT_TRUE(Near(RunOp("%x: Tensor((2, 0), float32)", "prod(%x, axis=[1])", {x})[0], Array{kF32, {2}, {1, 1}}));
  EXPECT_TRUE(Near(RunOp("%x: Tensor((2, 0), float32)", "max(%x, axis=[1])", {x})[0],
                   Array{kF32, {2}, {-INFINITY, -INFINITY}}));
}

TEST(ReduceNumeric, ArgmaxFindsTheFirstMaximum) {
  // Ties: the first position wins; a NaN is the maximum.
  Array x{kF32, {3, 4}, {1, 5, 5, 2, -1, -3, -1, -2, 0, NAN, 7, NAN}};
  struct Case {
    const char* attrs;
    std::vector<int> axes;
    bool keepdims;
  };
  const Case cases[] = {{"axis=1", {1}, false}, {"axis=-2, keepdims=true", {0}, true}, {"", {}, false},
                        {"keepdims=true", {}, true}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.attrs);
    std::string call = StrCat("argmax(%x", *c.attrs ? ", " : "", c.attrs, ")");
    std::vector<Array> out = RunOp("%x: Tensor((n, 4), float32)", call, {x});
    EXPECT_TRUE(Near(out[0], ReferenceReduce(x, c.axes, c.keepdims, DType::kInt64, Argmax)));
  }
  Array y = Random({2, 5}, DType::kInt32, 3, -2, 2);
  EXPECT_TRUE(Near(RunOp("%y: Tensor((2, 5), int32)", "argmax(%y, axis=1)", {y})[0],
                   ReferenceReduce(y, {1}, false, DType::kInt64, Argmax)));
}

/// ONNX's CumSum of |x| along |axis| in double: element i sums the elements before it
/// (after it with |reverse|), itself included unless |exclusive|.
Array ReferenceCumsum(const Array& x, int axis, bool exclusive, bool reverse) {
  int ndim = static_cast<int>(x.shape.size());
  axis = (axis + ndim) % ndim;
  return Map(x.shape, x.dtype, [&](const Idx& i) {
    double sum = 0;
    Idx j = i;
    for (j[axis] = 0; j[axis] < x.shape[axis]; ++j[axis]) {
      bool taken = reverse ? j[axis] > i[axis] : j[axis] < i[axis];
      if (taken || (!exclusive && j[axis] == i[axis])) sum += x.at(j);
    }
    return sum;
  });
}

TEST(ReduceNumeric, CumsumAlongEachAxisEveryWay) {
  Array x = Random({2, 3, 4}, kF32, 7);
  for (int axis : {0, 1, -1}) {
    for (bool exclusive : {false, true}) {
      for (bool reverse : {false, true}) {
        std::string call = StrCat("cumsum(%x, axis=", axis, ", exclusive=", exclusive ? "true" : "false",
                                  ", reverse=", reverse ? "true" : "false", ")");
        SCOPED_TRACE(call);
        std::vector<Array> out = RunOp("%x: Tensor((n, 3, m), float32)", call, {x});
        EXPECT_TRUE(Near(out[0], ReferenceCumsum(x, axis, exclusive, reverse), 1e-6, 1e-6));
      }
    }
  }
  Array i = Random({3, 5}, DType::kInt32, 8, -9, 9);
  EXPECT_TRUE(Near(RunOp("%i: Tensor((3, 5), int32)", "cumsum(%i, axis=1, reverse=true)", {i})[0],
                   ReferenceCumsum(i, 1, false, true)));
  Array d = Random({4}, DType::kFloat64, 9);
  EXPECT_TRUE(Near(RunOp("%d: Tensor((4,), float64)", "cumsum(%d, exclusive=true)", {d})[0],
                   ReferenceCumsum(d, 0, true, false), 1e-12, 1e-12));
}

// As sum's, a float32 running sum accumulates in float64 and each element is rounded once.
TEST(ReduceNumeric, FloatCumsumsAreRoundedOnce) {
  Array x = Random({1, 1500}, kF32, 10, 0.5, 1.5);
  std::vector<Array> out = RunOp("%x: Tensor((1, 1500), float32)", "cumsum(%x, axis=1)", {x});
  EXPECT_TRUE(Near(out[0], ReferenceCumsum(x, 1, false, false), 1e-7, 0)) << "within one rounding of the exact sums";
}

/// Softmax or log-softmax of |x| along |axis|, computed stably in double.
Array ReferenceSoftmax(const Array& x, int axis, bool log) {
  int ndim = static_cast<int>(x.shape.size());
  axis = (axis + ndim) % ndim;
  return Map(x.shape, x.dtype, [&](const Idx& i) {
    double max = -std::numeric_limits<double>::infinity(), sum = 0;
    Idx j = i;
    for (j[axis] = 0; j[axis] < x.shape[axis]; ++j[axis]) max = std::max(max, x.at(j));
    for (j[axis] = 0; j[axis] < x.shape[axis]; ++j[axis]) sum += std::exp(x.at(j) - max);
    return log ? x.at(i) - max - std::log(sum) : std::exp(x.at(i) - max) / sum;
  });
}

TEST(ReduceNumeric, SoftmaxAndLogSoftmaxAreStable) {
  Array x = Random({2, 3, 4}, kF32, 4, -3, 3);
  x.data[0] = 80;  // exp(80) overflows float32 without the max subtraction
  for (int axis : {-1, 0, 1}) {
    for (bool log : {false, true}) {
      const char* op = log ? "log_softmax" : "softmax";
      SCOPED_TRACE(StrCat(op, " axis ", axis));
      std::vector<Array> out = RunOp("%x: Tensor((n, 3, 4), float32)", StrCat(op, "(%x, axis=", axis, ")"), {x});
      EXPECT_TRUE(Near(out[0], ReferenceSoftmax(x, axis, log), 1e-5, 1e-6));
    }
  }
}

}  // namespace
}  // namespace rxt::numeric
