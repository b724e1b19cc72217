// The scalar semantics of the interpreter, expression kind by expression kind and dtype by
// dtype, against expectations computed independently here (wider integers, C++ float math).
#include <cmath>
#include <limits>

#include "half_float.h"
#include "scalar_test_kernels.h"
#include "test_util.h"

namespace rxt::backend_reference {
namespace {

using namespace testing;


// ---- Integers: wrap-around arithmetic, truncating / and flooring floordiv, floormod.


template <typename T>
T Wrap(__int128 v) {
  return static_cast<T>(static_cast<uint64_t>(static_cast<unsigned __int128>(v)));
}

template <typename T>
void CheckIntOps(const std::string& dtype, DLDataType dl) {
  SCOPED_TRACE(dtype);
  using Limits = std::numeric_limits<T>;
  std::vector<std::pair<__int128, __int128>> pairs = {
      {7, 2}, {Limits::max(), 1}, {Limits::max(), Limits::max()}, {Limits::min(), Limits::max()}, {0, 5}, {100, 7}};
  if (Limits::is_signed) {
    for (auto p :
         std::vector<std::pair<__int128, __int128>>{{-7, 2}, {7, -2}, {-7, -2}, {Limits::min(), -1}, {-1, 3}}) {
      pairs.push_back(p);
    }
  } else {
    pairs.push_back({3, 200});
  }
  const int64_t n = static_cast<int64_t>(pairs.size());
  HostTensor a({n}, dl), b({n}, dl), out({8, n}, dl), cmp({6, n}, kBool);
  for (int64_t i = 0; i < n; ++i) {
    a.at<T>({i}) = static_cast<T>(pairs[i].first);
    b.at<T>({i}) = static_cast<T>(pairs[i].second);
  }
  Compile(WithDType(kBinaryOpsKernel, dtype), "ops").Run({a.arg(), b.arg(), out.arg(), cmp.arg()});
  for (int64_t i = 0; i < n; ++i) {
    __int128 x = pairs[i].first, y = pairs[i].second;
    __int128 trunc = x / y;
    __int128 floor = (x % y != 0 && ((x < 0) != (y < 0))) ? trunc - 1 : trunc;
    SCOPED_TRACE(std::to_string(static_cast<int64_t>(x)) + " op " + std::to_string(static_cast<int64_t>(y)));
    EXPECT_EQ(out.at<T>({0, i}), Wrap<T>(x + y));
    EXPECT_EQ(out.at<T>({1, i}), Wrap<T>(x - y));
    EXPECT_EQ(out.at<T>({2, i}), Wrap<T>(x * y));
    EXPECT_EQ(out.at<T>({3, i}), Wrap<T>(trunc));
    EXPECT_EQ(out.at<T>({4, i}), Wrap<T>(floor));
    EXPECT_EQ(out.at<T>({5, i}), Wrap<T>(x - floor * y));
    EXPECT_EQ(out.at<T>({6, i}), Wrap<T>(x < y ? x : y));
    EXPECT_EQ(out.at<T>({7, i}), Wrap<T>(x > y ? x : y));
    std::vector<bool> expected = {x == y, x != y, (x < y), x <= y, (x > y), x >= y};
    for (int64_t c = 0; c < 6; ++c) EXPECT_EQ(cmp.at<uint8_t>({c, i}), expected[c] ? 1 : 0) << "comparison " << c;
  }
}

TEST(ScalarSemantics, IntegersWrapAndDivideWithFloorSemanticsInEveryWidth) {
  CheckIntOps<int8_t>("int8", kI8);
  CheckIntOps<int16_t>("int16", kI16);
  CheckIntOps<int32_t>("int32", kI32);
  CheckIntOps<int64_t>("int64", kI64);
  CheckIntOps<uint8_t>("uint8", kU8);
}

TEST(ScalarSemantics, FloorDivAndFloorModByConstants) {
  // The usual index arithmetic of legalized kernels: floordiv/floormod by a literal.
  const char* text = R"(
kernel @idx(A: Buffer((n,), int64), Q: Buffer((n,), int64), R: Buffer((n,), int64)) {
  for i in range(n) {
    Q[i] = floordiv(A[i], 4)
    R[i] = floormod(A[i], 4)
  }
}
)";
  HostTensor a({6}, kI64), q({6}, kI64), r({6}, kI64);
  a.Fill<int64_t>({-9, -8, -1, 0, 3, 9});
  Compile(text, "idx").Run({a.arg(), q.arg(), r.arg()});
  EXPECT_EQ(q.Values<int64_t>(), (std::vector<int64_t>{-3, -2, -1, 0, 0, 2}));
  EXPECT_EQ(r.Values<int64_t>(), (std::vector<int64_t>{3, 0, 3, 0, 3, 1}));
}

// ---- Floats: computed in the dtype (float16 and bfloat16 by way of float).


// A float type as the test sees it: storage, and conversions to and from float.
struct F16 {
  using Storage = uint16_t;
  static float Get(uint16_t v) { return HalfBitsToFloat(v); }
  static uint16_t Put(float v) { return FloatToHalfBits(v); }
  static float Round(float v) { return Get(Put(v)); }
};
struct BF16 {
  using Storage = uint16_t;
  static float Get(uint16_t v) { return BFloat16BitsToFloat(v); }
  static uint16_t Put(float v) { return FloatToBFloat16Bits(v); }
  static float Round(float v) { return Get(Put(v)); }
};
template <typename T>
struct Native {
  using Storage = T;
  static T Get(T v) { return v; }
  static T Put(T v) { return v; }
  static T Round(T v) { return v; }
};

bool SameFloat(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

template <typename Type, typename Math>
void CheckFloatOps(const std::string& dtype, DLDataType dl) {
  SCOPED_TRACE(dtype);
  using S = typename Type::Storage;
  const Math nan = std::numeric_limits<Math>::quiet_NaN(), inf = std::numeric_limits<Math>::infinity();
  std::vector<std::pair<Math, Math>> pairs = {{1.5, 0.25},  {-7, 2},   {7, -2},    {1, 3},   {2048, 1},
                                              {0.1f, 0.2f}, {1, 0},    {-1, 0},    {nan, 1}, {2, nan},
                                              {inf, 1},     {-0.0, 0}, {255, 256}, {-5.5, 2}};
  const int64_t n = static_cast<int64_t>(pairs.size());
  HostTensor a({n}, dl), b({n}, dl), out({8, n}, dl), cmp({6, n}, kBool);
  for (int64_t i = 0; i < n; ++i) {
    a.at<S>({i}) = Type::Put(pairs[i].first);
    b.at<S>({i}) = Type::Put(pairs[i].second);
  }
  Compile(WithDType(kBinaryOpsKernel, dtype), "ops").Run({a.arg(), b.arg(), out.arg(), cmp.arg()});
  for (int64_t i = 0; i < n; ++i) {
    Math x = Type::Get(a.at<S>({i})), y = Type::Get(b.at<S>({i}));
    SCOPED_TRACE(std::to_string(x) + " op " + std::to_string(y));
    Math q = std::floor(Type::Round(x / y));
    std::vector<Math> expected = {Type::Round(x + y),
                                  Type::Round(x - y),
                                  Type::Round(x * y),
                                  Type::Round(x / y),
                                  q,
                                  Type::Round(x - Type::Round(q * y)),
                                  std::isnan(x) || std::isnan(y) ? nan : std::min(x, y),
                                  std::isnan(x) || std::isnan(y) ? nan : std::max(x, y)};
    for (int64_t op = 0; op < 8; ++op) {
      EXPECT_TRUE(SameFloat(Type::Get(out.at<S>({op, i})), expected[op]))
          << "op " << op << ": got " << Type::Get(out.at<S>({op, i})) << ", expected " << expected[op];
    }
    std::vector<bool> compared = {x == y, x != y, (x < y), x <= y, (x > y), x >= y};
    for (int64_t c = 0; c < 6; ++c) EXPECT_EQ(cmp.at<uint8_t>({c, i}), compared[c] ? 1 : 0) << "comparison " << c;
  }
}

TEST(ScalarSemantics, FloatsComputeInTheirDType) {
  CheckFloatOps<Native<float>, float>("float32", kF32);
  CheckFloatOps<Native<double>, double>("float64", kF64);
  CheckFloatOps<F16, float>("float16", kF16);
  CheckFloatOps<BF16, float>("bfloat16", kBF16);
}

TEST(ScalarSemantics, HalfPrecisionRoundsAfterEveryOperation) {
  const char* text = R"(
kernel @sums(H: Buffer((2,), float16), B: Buffer((2,), bfloat16)) {
  H[0] = H[0] + 1f16
  H[1] = H[1] + 1f16 + 1f16
  B[0] = B[0] + 1bf16
  B[1] = B[1] * 3bf16
}
)";
  HostTensor h({2}, kF16), b({2}, kBF16);
  h.Fill<uint16_t>({FloatToHalfBits(2048), FloatToHalfBits(2048)});
  b.Fill<uint16_t>({FloatToBFloat16Bits(256), FloatToBFloat16Bits(1.0f / 3)});
  Compile(text, "sums").Run({h.arg(), b.arg()});
  // 2049 is not a float16: each + 1 rounds back to 2048 (ties to even).
  EXPECT_EQ(HalfBitsToFloat(h.at<uint16_t>({0})), 2048.0f);
  EXPECT_EQ(HalfBitsToFloat(h.at<uint16_t>({1})), 2048.0f);
  EXPECT_EQ(BFloat16BitsToFloat(b.at<uint16_t>({0})), 256.0f);
  EXPECT_EQ(BFloat16BitsToFloat(b.at<uint16_t>({1})), 1.0f);  // 0.333984375 * 3 rounds to 1
}

// ---- Logic.

TEST(ScalarSemantics, LogicOperatorsAndSelect) {
  const char* text = R"(
kernel @logic(P: Buffer((4,), bool), Q: Buffer((4,), bool), Out: Buffer((5, 4), bool), S: Buffer((4,), int32)) {
  for i in range(4) {
    Out[0, i] = P[i] && Q[i]
    Out[1, i] = P[i] || Q[i]
    Out[2, i] = !P[i]
    Out[3, i] = P[i] == Q[i]
    Out[4, i] = P[i] != Q[i]
    S[i] = select(P[i], 10i32, select(Q[i], 20i32, 30i32))
  }
}
)";
  HostTensor p({4}, kBool), q({4}, kBool), out({5, 4}, kBool), s({4}, kI32);
  p.Fill<uint8_t>({0, 0, 1, 7});  // any non-zero byte reads as true
  q.Fill<uint8_t>({0, 1, 0, 1});
  Compile(text, "logic").Run({p.arg(), q.arg(), out.arg(), s.arg()});
  std::vector<uint8_t> got = out.Values<uint8_t>();
  // Rows: &&, ||, !, ==, !=.
  EXPECT_EQ(got, (std::vector<uint8_t>{0, 0, 0, 1, 0, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 1, 0, 1, 1, 0}));
  EXPECT_EQ(s.Values<int32_t>(), (std::vector<int32_t>{30, 20, 10, 10}));
}

TEST(ScalarSemantics, AndOrAndSelectEvaluateOnlyWhatTheyNeed) {
  // With n + 1 iterations, X[i] at i == n would be out of bounds: the guards keep it unread.
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
  HostTensor x({3}, kF32), count({3}, kI32);
  x.Fill<float>({1, -2, 3});
  Compile(text, "guarded").Run({x.arg(), count.arg()});
  EXPECT_EQ(count.Values<int32_t>(), (std::vector<int32_t>{2, 2, 102}));
}

// ---- Casts.

TEST(ScalarSemantics, CastsTruncateSaturateAndWrap) {
  const char* text = R"(
kernel @casts(F: Buffer((n,), float32), I8: Buffer((n,), int8), U8: Buffer((n,), uint8), I32: Buffer((n,), int32),
              I64: Buffer((n,), int64), Bl: Buffer((n,), bool), Back: Buffer((n,), float64)) {
  for i in range(n) {
    I8[i] = int8(F[i])
    U8[i] = uint8(F[i])
    I32[i] = int32(F[i])
    I64[i] = int64(F[i])
    Bl[i] = bool(F[i])
    Back[i] = float64(int8(I64[i] * 100))
  }
}
)";
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  std::vector<float> inputs = {2.9f, -2.9f, 300.0f, -300.0f, nan, inf, -inf, 0.0f, 3e9f, 1e19f};
  const int64_t n = static_cast<int64_t>(inputs.size());
  HostTensor f({n}, kF32), i8({n}, kI8), u8({n}, kU8), i32({n}, kI32), i64({n}, kI64), bl({n}, kBool), back({n}, kF64);
  f.Fill(inputs);
  Compile(text, "casts").Run({f.arg(), i8.arg(), u8.arg(), i32.arg(), i64.arg(), bl.arg(), back.arg()});
  const int64_t i64_max = std::numeric_limits<int64_t>::max(), i64_min = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(i8.Values<int8_t>(), (std::vector<int8_t>{2, -2, 127, -128, 0, 127, -128, 0, 127, 127}));
  EXPECT_EQ(u8.Values<uint8_t>(), (std::vector<uint8_t>{2, 0, 255, 0, 0, 255, 0, 0, 255, 255}));
  EXPECT_EQ(i32.Values<int32_t>(),
            (std::vector<int32_t>{2, -2, 300, -300, 0, 2147483647, -2147483647 - 1, 0, 2147483647, 2147483647}));
  EXPECT_EQ(i64.Values<int64_t>(),
            (std::vector<int64_t>{2, -2, 300, -300, 0, i64_max, i64_min, 0, 3000000000, i64_max}));
  EXPECT_EQ(bl.Values<uint8_t>(), (std::vector<uint8_t>{1, 1, 1, 1, 1, 1, 1, 0, 1, 1}));
  // int64 -> int8 wraps: 300 * 100 = 30000 = 0x7530 -> 0x30 = 48.
  std::vector<double> back_values = back.Values<double>();
  EXPECT_EQ(back_values[2], 48.0);
  EXPECT_EQ(back_values[0], static_cast<double>(static_cast<int8_t>(200)));
}

TEST(ScalarSemantics, CastsBetweenFloatTypesRound) {
  const char* text = R"(
kernel @narrow(D: Buffer((n,), float64), F: Buffer((n,), float32), H: Buffer((n,), float16), B: Buffer((n,), bfloat16),
               Wide: Buffer((n,), float64), FromInt: Buffer((n,), float32)) {
  for i in range(n) {
    F[i] = float32(D[i])
    H[i] = float16(D[i])
    B[i] = bfloat16(D[i])
    Wide[i] = float64(H[i]) + float64(B[i])
    FromInt[i] = float32(int64(D[i]) * 16777217)
  }
}
)";
  std::vector<double> inputs = {0.1, 1.0 / 3, 65519.0, 70000.0, 1e-8, 1.0};
  const int64_t n = static_cast<int64_t>(inputs.size());
  HostTensor d({n}, kF64), f({n}, kF32), h({n}, kF16), b({n}, kBF16), wide({n}, kF64), from_int({n}, kF32);
  d.Fill(inputs);
  Compile(text, "narrow").Run({d.arg(), f.arg(), h.arg(), b.arg(), wide.arg(), from_int.arg()});
  for (int64_t i = 0; i < n; ++i) {
    float as_float = static_cast<float>(inputs[i]);
    EXPECT_EQ(f.at<float>({i}), as_float);
    EXPECT_EQ(h.at<uint16_t>({i}), FloatToHalfBits(as_float));
    EXPECT_EQ(b.at<uint16_t>({i}), FloatToBFloat16Bits(as_float));
    EXPECT_EQ(wide.at<double>({i}), static_cast<double>(HalfBitsToFloat(FloatToHalfBits(as_float))) +
                                        BFloat16BitsToFloat(FloatToBFloat16Bits(as_float)));
  }
  EXPECT_EQ(HalfBitsToFloat(h.at<uint16_t>({2})), 65504.0f);      // rounds down to the largest half
  EXPECT_TRUE(std::isinf(HalfBitsToFloat(h.at<uint16_t>({3}))));  // overflows
  EXPECT_EQ(from_int.at<float>({5}), 16777216.0f);                // 2^24 + 1 rounds to even
}

// ---- Intrinsics.

template <typename T>
void CheckIntrinsics(const std::string& dtype, DLDataType dl) {
  SCOPED_TRACE(dtype);
  const char* text = R"(
kernel @fns(X: Buffer((n,), $T), Out: Buffer((14, n), $T), Nan: Buffer((n,), bool)) {
  for i in range(n) {
    Out[0, i] = exp(X[i])
    Out[1, i] = log(X[i])
    Out[2, i] = sqrt(X[i])
    Out[3, i] = rsqrt(X[i])
    Out[4, i] = tanh(X[i])
    Out[5, i] = sigmoid(X[i])
    Out[6, i] = abs(X[i])
    Out[7, i] = neg(X[i])
    Out[8, i] = erf(X[i])
    Out[9, i] = floor(X[i])
    Out[10, i] = ceil(X[i])
    Out[11, i] = round(X[i])
    Out[12, i] = pow(X[i], X[i])
    Out[13, i] = pow(X[i], 2$S)
    Nan[i] = isnan(X[i])
  }
}
)";
  std::string source = WithDType(text, dtype);
  source.replace(source.find("$S"), 2, dtype == "float32" ? "f32" : "f64");
  const T nan = std::numeric_limits<T>::quiet_NaN();
  std::vector<T> inputs = {0.5, 2.5, 3.5, -2.5, -1.25, 4, 0, nan, 20};
  const int64_t n = static_cast<int64_t>(inputs.size());
  HostTensor x({n}, dl), out({14, n}, dl), isnan_out({n}, kBool);
  x.Fill(inputs);
  Compile(source, "fns").Run({x.arg(), out.arg(), isnan_out.arg()});
  for (int64_t i = 0; i < n; ++i) {
    T v = inputs[i];
    SCOPED_TRACE(v);
    std::vector<T> expected = {
        std::exp(v),    std::log(v), std::sqrt(v), T(1) / std::sqrt(v), std::tanh(v), T(1) / (T(1) + std::exp(-v)),
        std::fabs(v),   -v,          std::erf(v),  std::floor(v),       std::ceil(v), std::nearbyint(v),
        std::pow(v, v), v * v};
    for (int64_t f = 0; f < 14; ++f) {
      EXPECT_TRUE(SameFloat(out.at<T>({f, i}), expected[f])) << "intrinsic " << f << ": " << out.at<T>({f, i});
    }
    EXPECT_EQ(isnan_out.at<uint8_t>({i}), std::isnan(v) ? 1 : 0);
  }
  // round is half to even.
  EXPECT_EQ(out.at<T>({11, 1}), T(2));
  EXPECT_EQ(out.at<T>({11, 2}), T(4));
  EXPECT_EQ(out.at<T>({11, 3}), T(-2));
}

TEST(ScalarSemantics, IntrinsicsOnFloats) {
  CheckIntrinsics<float>("float32", kF32);
  CheckIntrinsics<double>("float64", kF64);
}

TEST(ScalarSemantics, IntrinsicsOnIntegers) {
  const char* text = R"(
kernel @ints(X: Buffer((n,), int8), Out: Buffer((5, n), int8), Nan: Buffer((n,), bool)) {
  for i in range(n) {
    Out[0, i] = abs(X[i])
    Out[1, i] = neg(X[i])
    Out[2, i] = floor(X[i])
    Out[3, i] = ceil(X[i])
    Out[4, i] = round(X[i])
    Nan[i] = isnan(X[i])
  }
}
)";
  HostTensor x({4}, kI8), out({5, 4}, kI8), nan({4}, kBool);
  x.Fill<int8_t>({5, -5, -128, 127});
  Compile(text, "ints").Run({x.arg(), out.arg(), nan.arg()});
  // Rows: abs, neg, floor, ceil, round.
  EXPECT_EQ(out.Values<int8_t>(), (std::vector<int8_t>{5, 5, -128, 127, -5, 5, -128, -127, 5, -5, -128, 127, 5, -5,
                                                       -128, 127, 5, -5, -128, 127}));
  EXPECT_EQ(nan.Values<uint8_t>(), (std::vector<uint8_t>{0, 0, 0, 0}));
}

TEST(ScalarSemantics, IntrinsicsOnHalfTypesComputeInFloat) {
  const char* text = R"(
kernel @half(H: Buffer((n,), float16), B: Buffer((n,), bfloat16)) {
  for i in range(n) {
    H[i] = exp(H[i])
    B[i] = sigmoid(B[i])
  }
}
)";
  std::vector<float> inputs = {0.5f, -1.0f, 3.0f};
  HostTensor h({3}, kF16), b({3}, kBF16);
  for (int64_t i = 0; i < 3; ++i) {
    h.at<uint16_t>({i}) = FloatToHalfBits(inputs[i]);
    b.at<uint16_t>({i}) = FloatToBFloat16Bits(inputs[i]);
  }
  Compile(text, "half").Run({h.arg(), b.arg()});
  for (int64_t i = 0; i < 3; ++i) {
    EXPECT_EQ(h.at<uint16_t>({i}), FloatToHalfBits(std::exp(inputs[i])));
    EXPECT_EQ(b.at<uint16_t>({i}), FloatToBFloat16Bits(1.0f / (1.0f + std::exp(-inputs[i]))));
  }
}

// ---- Every dtype through loads, stores and immediates.

struct DTypeCase {
  const char* name;
  DLDataType dl;
  const char* one;                 // the literal 1 of the dtype
  std::vector<uint8_t> one_bytes;  // how 1 is stored (little-endian)
};

class EveryDType : public ::testing::TestWithParam<DTypeCase> {};

TEST_P(EveryDType, LoadsStoresAndImmediatesKeepTheirBits) {
  // Copies a strided input to the output and appends the literal 1.
  std::string text = WithDType(R"(
kernel @copy(X: Buffer((n,), $T, strides=(s,)), Y: Buffer((n + 1,), $T)) {
  for i in range(n) {
    Y[i] = X[i]
  }
  Y[n] = $ONE
}
)",
                               GetParam().name);
  text.replace(text.find("$ONE"), 4, GetParam().one);
  ReferenceInterpreter copy = Compile(text, "copy");
  const size_t bytes = GetParam().one_bytes.size();
  const bool is_bool = std::string(GetParam().name) == "bool";
  HostTensor x({5}, GetParam().dl, {2}), y({6}, GetParam().dl);
  // Element i is stored as 1 with its lowest byte replaced by i (bool: i % 2): a valid value
  // of every type (no NaN), different for each element.
  std::vector<uint8_t> expected;
  for (int64_t i = 0; i < 5; ++i) {
    std::vector<uint8_t> element = GetParam().one_bytes;
    element[0] = static_cast<uint8_t>(is_bool ? i % 2 : i);
    std::memcpy(&x.at<uint8_t>({0}) + i * 2 * bytes, element.data(), bytes);
    expected.insert(expected.end(), element.begin(), element.end());
  }
  copy.Run({x.arg(), y.arg()});
  const uint8_t* out = &y.at<uint8_t>({0});
  EXPECT_EQ(std::vector<uint8_t>(out, out + 5 * bytes), expected);
  EXPECT_EQ(std::vector<uint8_t>(out + 5 * bytes, out + 6 * bytes), GetParam().one_bytes);
}

INSTANTIATE_TEST_SUITE_P(DTypes, EveryDType,
                         ::testing::Values(DTypeCase{"float16", kF16, "1f16", {0x00, 0x3c}},
                                           DTypeCase{"bfloat16", kBF16, "1bf16", {0x80, 0x3f}},
                                           DTypeCase{"float32", kF32, "1f32", {0, 0, 0x80, 0x3f}},
                                           DTypeCase{"float64", kF64, "1f64", {0, 0, 0, 0, 0, 0, 0xf0, 0x3f}},
                                           DTypeCase{"int8", kI8, "1i8", {1}}, DTypeCase{"int16", kI16, "1i16", {1, 0}},
                                           DTypeCase{"int32", kI32, "1i32", {1, 0, 0, 0}},
                                           DTypeCase{"int64", kI64, "1", {1, 0, 0, 0, 0, 0, 0, 0}},
                                           DTypeCase{"uint8", kU8, "1u8", {1}}, DTypeCase{"bool", kBool, "true", {1}}),
                         [](const ::testing::TestParamInfo<DTypeCase>& info) { return std::string(info.param.name); });

TEST(ScalarSemantics, ImmediatesAtTheLimitsOfTheirTypes) {
  const char* text = R"(
kernel @limits(I: Buffer((4,), int64), J: Buffer((2,), int32), F: Buffer((3,), float32)) {
  I[0] = -9223372036854775808
  I[1] = 9223372036854775807
  I[2] = 9223372036854775807 + I[3]
  J[0] = -2147483648i32
  J[1] = 2147483647i32
  F[0] = nan_f32
  F[1] = -inf_f32
  F[2] = 1e-45f32
}
)";
  HostTensor i({4}, kI64), j({2}, kI32), f({3}, kF32);
  i.at<int64_t>({3}) = 1;
  Compile(text, "limits").Run({i.arg(), j.arg(), f.arg()});
  EXPECT_EQ(i.at<int64_t>({0}), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(i.at<int64_t>({1}), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(i.at<int64_t>({2}), std::numeric_limits<int64_t>::min());  // wraps
  EXPECT_EQ(j.Values<int32_t>(), (std::vector<int32_t>{std::numeric_limits<int32_t>::min(), 2147483647}));
  EXPECT_TRUE(std::isnan(f.at<float>({0})));
  EXPECT_EQ(f.at<float>({1}), -std::numeric_limits<float>::infinity());
  EXPECT_EQ(f.at<float>({2}), std::numeric_limits<float>::denorm_min());
}

}  // namespace
}  // namespace rxt::backend_reference
