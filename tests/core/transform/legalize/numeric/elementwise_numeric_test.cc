// Elementwise ops: unary math, broadcasting arithmetic and comparisons, where, astype, clip.
#include <cmath>

#include "core/transform/legalize/numeric/numeric_test_util.h"
#include "rxt/support/error.h"

namespace rxt::numeric {
namespace {

constexpr DType kF32 = DType::kFloat32;
constexpr DType kI32 = DType::kInt32;

struct UnaryCase {
  const char* op;
  double (*fn)(double);
  double lo, hi;  // input range
};

TEST(ElementwiseNumeric, UnaryFloatOpsOnSymbolicAndStaticShapes) {
  const UnaryCase cases[] = {
      {"negative", [](double x) { return -x; }, -2, 2},
      {"abs", [](double x) { return std::fabs(x); }, -2, 2},
      {"exp", [](double x) { return std::exp(x); }, -2, 2},
      {"log", [](double x) { return std::log(x); }, 0.1, 4},
      {"sqrt", [](double x) { return std::sqrt(x); }, 0, 4},
      {"rsqrt", [](double x) { return 1 / std::sqrt(x); }, 0.1, 4},
      {"tanh", [](double x) { return std::tanh(x); }, -3, 3},
      {"sigmoid", [](double x) { return 1 / (1 + std::exp(-x)); }, -4, 4},
      {"erf", [](double x) { return std::erf(x); }, -3, 3},
      {"floor", [](double x) { return std::floor(x); }, -3, 3},
      {"ceil", [](double x) { return std::ceil(x); }, -3, 3},
      {"round", [](double x) { return std::nearbyint(x); }, -3, 3},
      {"sign", [](double x) { return static_cast<double>((x > 0) - (x < 0)); }, -3, 3},
      {"sin", [](double x) { return std::sin(x); }, -4, 4},
      {"cos", [](double x) { return std::cos(x); }, -4, 4},
      {"tan", [](double x) { return std::tan(x); }, -1.2, 1.2},
      {"asin", [](double x) { return std::asin(x); }, -1, 1},
      {"acos", [](double x) { return std::acos(x); }, -1, 1},
      {"atan", [](double x) { return std::atan(x); }, -5, 5},
      {"sinh", [](double x) { return std::sinh(x); }, -3, 3},
      {"cosh", [](double x) { return std::cosh(x); }, -3, 3},
      {"asinh", [](double x) { return std::asinh(x); }, -5, 5},
      {"acosh", [](double x) { return std::acosh(x); }, 1, 5},
      {"atanh", [](double x) { return std::atanh(x); }, -0.95, 0.95},
  };
  uint32_t seed = 1;
  for (const UnaryCase& c : cases) {
    for (const char* params : {"%x: Tensor((n, 3), float32)", "%x: Tensor((2, 3), float32)"}) {
      SCOPED_TRACE(StrCat(c.op, " with ", params));
      Array x = Random({2, 3}, kF32, seed++, c.lo, c.hi);
      std::vector<Array> out = RunOp(params, StrCat(c.op, "(%x)"), {x});
      EXPECT_TRUE(Near(out[0], Map(x.shape, kF32, [&](const Idx& i) { return c.fn(x.at(i)); })));
    }
  }
}

TEST(ElementwiseNumeric, UnaryIntegerOps) {
  Array x = Random({5}, kI32, 3, -9, 9);
  EXPECT_TRUE(Near(RunOp("%x: Tensor((5,), int32)", "negative(%x)", {x})[0],
                   Map(x.shape, kI32, [&](const Idx& i) { return -x.at(i); })));
  EXPECT_TRUE(Near(RunOp("%x: Tensor((5,), int32)", "abs(%x)", {x})[0],
                   Map(x.shape, kI32, [&](const Idx& i) { return std::fabs(x.at(i)); })));
}

struct BinaryCase {
  const char* op;
  double (*fn)(double, double);
};

const BinaryCase kArithmetic[] = {
    {"add", [](double a, double b) { return a + b; }},
    {"subtract", [](double a, double b) { return a - b; }},
    {"multiply", [](double a, double b) { return a * b; }},
    {"divide", [](double a, double b) { return a / b; }},
    {"maximum", [](double a, double b) { return std::max(a, b); }},
    {"minimum", [](double a, double b) { return std::min(a, b); }},
};

/// op(x1, x2) of the given shapes, checked elementwise against fn over the broadcast shape.
void CheckBinary(const char* op, double (*fn)(double, double), const std::string& params, const Shape& a_shape,
                 const Shape& b_shape, DType dtype, DType out_dtype, uint32_t seed, double lo = -3, double hi = 3) {
  SCOPED_TRACE(StrCat(op, " with ", params));
  Array a = Random(a_shape, dtype, seed, lo, hi), b = Random(b_shape, dtype, seed + 100, lo, hi);
  if (std::string(op) == "divide" || std::string(op) == "mod" || std::string(op) == "fmod") {  // divisors away from 0
    for (double& v : b.data) v = v >= 0 ? v + 1 : v - 1;
  }
  std::vector<Array> out = RunOp(params, StrCat(op, "(%a, %b)"), {a, b});
  Shape shape = BroadcastShapes(a_shape, b_shape);
  EXPECT_TRUE(Near(out[0], Map(shape, out_dtype, [&](const Idx& i) { return fn(BroadcastAt(a, i), BroadcastAt(b, i)); })));
}

TEST(ElementwiseNumeric, ArithmeticBroadcastsOverSymbolicDims) {
  uint32_t seed = 10;
  for (const BinaryCase& c : kArithmetic) {
    CheckBinary(c.op, c.fn, "%a: Tensor((n, 1, 4), float32), %b: Tensor((3, 1), float32)", {2, 1, 4}, {3, 1}, kF32,
                kF32, seed++);
    CheckBinary(c.op, c.fn, "%a: Tensor((n, m), float32), %b: Tensor((n, m), float32)", {3, 2}, {3, 2}, kF32, kF32,
                seed++);
    CheckBinary(c.op, c.fn, "%a: Tensor((), float32), %b: Tensor((4,), float32)", {}, {4}, kF32, kF32, seed++);
  }
}

TEST(ElementwiseNumeric, IntegerArithmeticTruncatesDivision) {
  CheckBinary("divide", [](double a, double b) { return std::trunc(a / b); },
              "%a: Tensor((2, 3), int32), %b: Tensor((3,), int32)", {2, 3}, {3}, kI32, kI32, 30, -9, 9);
  CheckBinary("add", [](double a, double b) { return a + b; }, "%a: Tensor((4,), int32), %b: Tensor((1,), int32)",
              {4}, {1}, kI32, kI32, 31, -9, 9);
}

TEST(ElementwiseNumeric, RoundHalvesToEvenAndSignOfZero) {
  Array x{kF32, {8}, {-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49, -0.51}};
  EXPECT_TRUE(Near(RunOp("%x: Tensor((8,), float32)", "round(%x)", {x})[0],
                   Array{kF32, {8}, {-2, -2, -0.0, 0, 2, 2, 0, -1}}));
  Array i{kI32, {5}, {-7, -1, 0, 1, 9}};
  EXPECT_TRUE(Near(RunOp("%x: Tensor((5,), int32)", "sign(%x)", {i})[0], Array{kI32, {5}, {-1, -1, 0, 1, 1}}));
}

TEST(ElementwiseNumeric, ModTakesTheDivisorsSignAndFmodTheDividends) {
  auto mod = [](double a, double b) { return a - std::floor(a / b) * b; };
  auto fmod = [](double a, double b) { return std::fmod(a, b); };
  CheckBinary("mod", mod, "%a: Tensor((n, 3), float32), %b: Tensor((3,), float32)", {4, 3}, {3}, kF32, kF32, 60);
  CheckBinary("fmod", fmod, "%a: Tensor((n, 3), float32), %b: Tensor((3,), float32)", {4, 3}, {3}, kF32, kF32, 61);
  CheckBinary("mod", mod, "%a: Tensor((2, 5), int32), %b: Tensor((5,), int32)", {2, 5}, {5}, kI32, kI32, 62, -9, 9);
  CheckBinary("fmod", fmod, "%a: Tensor((2, 5), int32), %b: Tensor((5,), int32)", {2, 5}, {5}, kI32, kI32, 63, -9, 9);
  Array a{kI32, {4}, {7, -7, 7, -7}}, b{kI32, {4}, {3, 3, -3, -3}};
  EXPECT_TRUE(Near(RunOp("%a: Tensor((4,), int32), %b: Tensor((4,), int32)", "mod(%a, %b)", {a, b})[0],
                   Array{kI32, {4}, {1, 2, -2, -1}}));
  EXPECT_TRUE(Near(RunOp("%a: Tensor((4,), int32), %b: Tensor((4,), int32)", "fmod(%a, %b)", {a, b})[0],
                   Array{kI32, {4}, {1, -1, 1, -1}}));
}

TEST(ElementwiseNumeric, Power) {
  CheckBinary("power", [](double a, double b) { return std::pow(a, b); },
              "%a: Tensor((n, 3), float32), %b: Tensor((3,), float32)", {2, 3}, {3}, kF32, kF32, 40, 0.5, 2);
  CheckBinary("power", [](double a, double b) { return std::pow(a, b); },
              "%a: Tensor((4,), int32), %b: Tensor((4,), int32)", {4}, {4}, kI32, kI32, 41, 0, 4);
}

// An exponent known at compile time (a constant of one value) is lowered to x * x, x, 1 / x or
// sqrt: the correctly rounded results, with pow's special values (pow(-0, 0.5) = +0,
// pow(-inf, 0.5) = +inf); the cpu backend must agree (backend_conformance.h).
TEST(ElementwiseNumeric, PowerOfAKnownExponent) {
  const struct {
    const char* exponent;
    double value;
  } cases[] = {{"const(2, float32)", 2}, {"const([[2]], float32)", 2}, {"const(1, float32)", 1},
               {"const(-1, float32)", -1}, {"const(0.5, float32)", 0.5}, {"const(3, float32)", 3}};
  Array x = Random({3, 4}, kF32, 42, 0.25, 3);
  x.data[0] = -0.0;
  x.data[1] = -INFINITY;
  x.data[2] = INFINITY;
  x.data[3] = NAN;
  x.data[4] = -1.5;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.exponent);
    std::vector<Array> out = RunFunction("%x: Tensor((n, 4), float32)", StrCat("%e = ", c.exponent, "\n%r = power(%x, %e)"), {x});
    // In double, then rounded to float once: the correctly rounded results.
    Array expected = Map(x.shape, kF32, [&](const Idx& i) { return std::pow(x.at(i), c.value); });
    EXPECT_TRUE(Near(out[0], expected, c.value == 3 ? 1e-6 : 0, 0));  // 3 stays libm's powf
    for (int64_t i = 0; i < expected.numel(); ++i) {
      if (expected.data[i] == 0) {
        EXPECT_EQ(std::signbit(out[0].data[i]), std::signbit(expected.data[i])) << i;
      }
    }
  }
}

TEST(ElementwiseNumeric, ComparisonsGiveBool) {
  const BinaryCase cases[] = {
      {"equal", [](double a, double b) -> double { return a == b; }},
      {"not_equal", [](double a, double b) -> double { return a != b; }},
      {"less", [](double a, double b) -> double { return a < b; }},
      {"less_equal", [](double a, double b) -> double { return a <= b; }},
      {"greater", [](double a, double b) -> double { return a > b; }},
      {"greater_equal", [](double a, double b) -> double { return a >= b; }},
  };
  uint32_t seed = 50;
  for (const BinaryCase& c : cases) {
    // Small integers so that equal values occur.
    CheckBinary(c.op, c.fn, "%a: Tensor((n, 4), int32), %b: Tensor((4,), int32)", {3, 4}, {4}, kI32, DType::kBool,
                seed++, -2, 2);
    CheckBinary(c.op, c.fn, "%a: Tensor((3, 1), float32), %b: Tensor((1, 2), float32)", {3, 1}, {1, 2}, kF32,
                DType::kBool, seed++);
    CheckBinary(c.op, c.fn, "%a: Tensor((5,), bool), %b: Tensor((5,), bool)", {5}, {5}, DType::kBool, DType::kBool,
                seed++);
  }
}

TEST(ElementwiseNumeric, WhereBroadcastsAllThree) {
  Array c = Random({3, 1}, DType::kBool, 60), a = Random({1, 4}, kF32, 61), b = Random({4}, kF32, 62);
  std::vector<Array> out =
      RunOp("%c: Tensor((3, 1), bool), %a: Tensor((1, m), float32), %b: Tensor((m,), float32)", "where(%c, %a, %b)",
            {c, a, b});
  EXPECT_TRUE(Near(out[0], Map({3, 4}, kF32, [&](const Idx& i) {
    return BroadcastAt(c, i) != 0 ? BroadcastAt(a, i) : BroadcastAt(b, i);
  })));
}

TEST(ElementwiseNumeric, HalfPrecisionRoundsEveryResult) {
  for (DType dtype : {DType::kFloat16, DType::kBFloat16}) {
    SCOPED_TRACE(DTypeName(dtype));
    std::string t = DTypeName(dtype);
    Array a = Random({2, 3}, dtype, 90), b = Random({3}, dtype, 91);
    std::vector<Array> out = RunOp(StrCat("%a: Tensor((n, 3), ", t, "), %b: Tensor((3,), ", t, ")"), "add(%a, %b)", {a, b});
    EXPECT_TRUE(Near(out[0], Map({2, 3}, dtype, [&](const Idx& i) { return BroadcastAt(a, i) + BroadcastAt(b, i); })));
    out = RunOp(StrCat("%a: Tensor((n, 3), ", t, ")"), "nn.gelu(%a)", {a});
    EXPECT_TRUE(Near(out[0], Map({2, 3}, dtype, [&](const Idx& i) {
      return a.at(i) * 0.5 * (1 + std::erf(a.at(i) / std::sqrt(2.0)));
    }), 2e-2, 1e-2));
  }
}

TEST(ElementwiseNumeric, Astype) {
  Array x = Random({2, 3}, kF32, 70, -5, 5);
  EXPECT_TRUE(Near(RunOp("%x: Tensor((n, 3), float32)", "astype(%x, dtype=int32)", {x})[0],
                   Map(x.shape, kI32, [&](const Idx& i) { return std::trunc(x.at(i)); })));
  EXPECT_TRUE(Near(RunOp("%x: Tensor((n, 3), float32)", "astype(%x, dtype=bool)", {x})[0],
                   Map(x.shape, DType::kBool, [&](const Idx& i) { return x.at(i) != 0; })));
  Array y = Random({4}, DType::kInt64, 71, -100, 100);
  EXPECT_TRUE(Near(RunOp("%y: Tensor((4,), int64)", "astype(%y, dtype=float64)", {y})[0],
                   Map(y.shape, DType::kFloat64, [&](const Idx& i) { return y.at(i); })));
}

TEST(ElementwiseNumeric, Clip) {
  Array x = Random({3, 4}, kF32, 80, -3, 3);
  EXPECT_TRUE(Near(RunOp("%x: Tensor((n, 4), float32)", "clip(%x, min=-1.5, max=1)", {x})[0],
                   Map(x.shape, kF32, [&](const Idx& i) { return std::min(std::max(x.at(i), -1.5), 1.0); })));
  // Integer bounds round inwards.
  Array y = Random({6}, kI32, 81, -5, 5);
  EXPECT_TRUE(Near(RunOp("%y: Tensor((6,), int32)", "clip(%y, min=-1.5, max=2.5)", {y})[0],
                   Map(y.shape, kI32, [&](const Idx& i) { return std::min(std::max(y.at(i), -1.0), 2.0); })));
}

}  // namespace
}  // namespace rxt::numeric
