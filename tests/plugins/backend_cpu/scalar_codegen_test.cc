// The scalar semantics of generated code (scalar_codegen.cc), dtype by dtype, against the
// reference interpreter: every result bit for bit, on random inputs and on the edge cases of
// each type (wrap-around, division by -1 and 0, NaN, infinities, rounding of 16-bit floats).
#include "cpu_test_util.h"
#include "scalar_test_kernels.h"

namespace rxt::backend_cpu::testing {
namespace {

using backend_reference::testing::kBinaryOpsKernel;
using backend_reference::testing::WithDType;



struct TypeCase {
  const char* name;
  DLDataType dl;
};

const TypeCase kIntTypes[] = {{"int8", kI8}, {"int16", kI16}, {"int32", kI32}, {"int64", kI64}, {"uint8", kU8}};
const TypeCase kFloatTypes[] = {{"float16", kF16}, {"bfloat16", kBF16}, {"float32", kF32}, {"float64", kF64}};

std::vector<ArgSpec> OpsArgs(int64_t n, DLDataType dl) {
  return {ArgSpec::Tensor({n}, dl), ArgSpec::Tensor({n}, dl), ArgSpec::Tensor({8, n}, dl), ArgSpec::Tensor({6, n}, kBool)};
}

TEST(ScalarCodegen, IntegerArithmeticWrapsAndDividesLikeTheReference) {
  // A non-zero divisor everywhere (a zero makes the whole call fail: tested below), from
  // random bits (so -1, the most negative value and overflow all occur) or small values.
  const char* text = R"(
kernel @ops(A: Buffer((n,), $T), B: Buffer((n,), $T), Out: Buffer((8, n), $T), Cmp: Buffer((6, n), bool)) {
  for i in range(n) {
    Out[0, i] = A[i] + B[i]
    Out[1, i] = A[i] - B[i]
    Out[2, i] = A[i] * B[i]
    Out[3, i] = A[i] / select(B[i] == $T(0), $T(3), B[i])
    Out[4, i] = floordiv(A[i], select(B[i] == $T(0), $T(-1), B[i]))
    Out[5, i] = floormod(A[i], select(B[i] == $T(0), $T(-7), B[i]))
    Out[6, i] = min(A[i], B[i])
    Out[7, i] = max(A[i], B[i])
    Cmp[0, i] = A[i] == B[i]
    Cmp[1, i] = A[i] != B[i]
    Cmp[2, i] = A[i] < B[i]
    Cmp[3, i] = A[i] <= B[i]
    Cmp[4, i] = A[i] > B[i]
    Cmp[5, i] = A[i] >= B[i]
  }
}
)";
  for (const TypeCase& t : kIntTypes) {
    SCOPED_TRACE(t.name);
    for (bool full : {true, false}) {
      AgreeOptions o;
      o.full_int_range = full;
      o.lo = -9, o.hi = 9;
      for (uint32_t seed : {1u, 2u, 3u}) {
        o.seed = seed;
        ExpectAgree(WithDType(text, t.name), "ops", OpsArgs(257, t.dl), o);
      }
    }
  }
}

TEST(ScalarCodegen, IntegerDivisionByZeroFailsTheCall) {
  for (const TypeCase& t : kIntTypes) {
    SCOPED_TRACE(t.name);
    std::unique_ptr<CpuKernel> k = CompileCpu(WithDType(kBinaryOpsKernel, t.name), "ops");
    HostTensor a({2}, t.dl), b({2}, t.dl), out({8, 2}, t.dl), cmp({6, 2}, kBool);
    EXPECT_EQ(CallCpu(*k, {a.dl(), b.dl(), out.dl(), cmp.dl()}), "integer division by zero");
    auto* bytes = static_cast<uint8_t*>(b.dl()->data);
    bytes[0] = bytes[t.dl.bits / 8] = 1;  // little-endian: both elements 1, in every width
    EXPECT_EQ(CallCpu(*k, {a.dl(), b.dl(), out.dl(), cmp.dl()}), "");
  }
  // The same through the differential harness: both backends fail alike.
  AgreeOptions o;
  o.lo = 0, o.hi = 0.5;  // every input 0
  ExpectAgree(WithDType(kBinaryOpsKernel, "int32"), "ops", OpsArgs(3, kI32), o);
}

TEST(ScalarCodegen, FloatArithmeticRoundsInItsDType) {
  for (const TypeCase& t : kFloatTypes) {
    SCOPED_TRACE(t.name);
    for (bool specials : {false, true}) {
      AgreeOptions o;
      o.special_floats = specials;
      for (uint32_t seed : {1u, 2u}) {
        o.seed = seed;
        ExpectAgree(WithDType(kBinaryOpsKernel, t.name), "ops", OpsArgs(300, t.dl), o);
      }
    }
  }
}

TEST(ScalarCodegen, HalfTypesRoundAfterEveryOperation) {
  const char* text = R"(
kernel @sums(H: Buffer((n,), float16), B: Buffer((n,), bfloat16)) {
  for i in range(n) {
    H[i] = H[i] + 1f16 + 1f16 + H[i] * 0.001f16
    B[i] = B[i] * 3bf16 + 1bf16 - B[i] / 7bf16
  }
}
)";
  AgreeOptions o;
  o.lo = -3000, o.hi = 3000;
  ExpectAgree(text, "sums", {ArgSpec::Tensor({500}, kF16), ArgSpec::Tensor({500}, kBF16)}, o);
}

TEST(ScalarCodegen, IntrinsicsOnEveryFloatType) {
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
  const char* suffix[] = {"f16", "bf16", "f32", "f64"};
  for (int k = 0; k < 4; ++k) {
    SCOPED_TRACE(kFloatTypes[k].name);
    std::string kernel = WithDType(text, kFloatTypes[k].name);
    kernel.replace(kernel.find("$S"), 2, suffix[k]);
    for (bool specials : {false, true}) {
      AgreeOptions o;
      o.special_floats = specials;
      o.lo = -6, o.hi = 6;
      ExpectAgree(kernel, "fns",
                  {ArgSpec::Tensor({200}, kFloatTypes[k].dl), ArgSpec::Tensor({14, 200}, kFloatTypes[k].dl),
                   ArgSpec::Tensor({200}, kBool)},
                  o);
    }
  }
}

TEST(ScalarCodegen, IntrinsicsOnIntegers) {
  const char* text = R"(
kernel @ints(X: Buffer((n,), $T), Out: Buffer((5, n), $T), Nan: Buffer((n,), bool)) {
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
  for (const TypeCase& t : kIntTypes) {
    SCOPED_TRACE(t.name);
    AgreeOptions o;
    o.full_int_range = true;
    ExpectAgree(WithDType(text, t.name), "ints",
                {ArgSpec::Tensor({100}, t.dl), ArgSpec::Tensor({5, 100}, t.dl), ArgSpec::Tensor({100}, kBool)}, o);
  }
}

// Every dtype to every other.
TEST(ScalarCodegen, CastsBetweenEveryPairOfTypes) {
  const TypeCase all[] = {{"int8", kI8},       {"int16", kI16},       {"int32", kI32},     {"int64", kI64},
                          {"uint8", kU8},      {"bool", kBool},       {"float16", kF16},   {"bfloat16", kBF16},
                          {"float32", kF32},   {"float64", kF64}};
  for (const TypeCase& from : all) {
    std::string text = "kernel @casts(X: Buffer((n,), " + std::string(from.name) + ")";
    std::vector<ArgSpec> args = {ArgSpec::Tensor({64}, from.dl)};
    std::string body;
    int k = 0;
    for (const TypeCase& to : all) {
      text += ", O" + std::to_string(k) + ": Buffer((n,), " + to.name + ")";
      body += "    O" + std::to_string(k) + "[i] = " + to.name + "(X[i])\n";
      args.push_back(ArgSpec::Tensor({64}, to.dl));
      ++k;
    }
    text += ") {\n  for i in range(n) {\n" + body + "  }\n}\n";
    SCOPED_TRACE(from.name);
    for (bool wide : {false, true}) {
      AgreeOptions o;
      o.full_int_range = wide;
      o.special_floats = wide;
      o.lo = wide ? -1e6 : -300, o.hi = wide ? 1e6 : 300;
      ExpectAgree(text, "casts", args, o);
    }
  }
}

TEST(ScalarCodegen, ImmediatesWrapAndRoundToTheirType) {
  const char* text = R"(
kernel @imm(I: Buffer((4,), int8), U: Buffer((2,), uint8), H: Buffer((3,), float16), B: Buffer((2,), bfloat16),
            F: Buffer((2,), float32)) {
  I[0] = 100i8 * 3i8
  I[1] = -128i8 - 1i8
  I[2] = 127i8 + 1i8
  I[3] = -128i8 / -1i8
  U[0] = 255u8 + 255u8
  U[1] = 3u8 - 4u8
  H[0] = 0.1f16
  H[1] = 65504f16 * 2f16
  H[2] = 2049f16
  B[0] = 0.1bf16
  B[1] = 257bf16
  F[0] = 0.1f32
  F[1] = 16777217f32
}
)";
  ExpectAgree(text, "imm",
              {ArgSpec::Tensor({4}, kI8), ArgSpec::Tensor({2}, kU8), ArgSpec::Tensor({3}, kF16),
               ArgSpec::Tensor({2}, kBF16), ArgSpec::Tensor({2}, kF32)});
}

}  // namespace
}  // namespace rxt::backend_cpu::testing
