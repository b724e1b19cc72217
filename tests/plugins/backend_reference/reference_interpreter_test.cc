// The reference interpreter on whole kernels: the seed's MyModule against plain C++ loops, a
// batch-64 matmul (and how long it takes), and each statement kind.
#include <cmath>
#include <random>
#include <thread>

#include "test_util.h"

namespace rxt::backend_reference {
namespace {

using namespace testing;

std::vector<float> RandomFloats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

std::string MyModule() { return ReadSourceFile("examples/my_module.rxt"); }

TEST(ReferenceInterpreter, MyModuleReluMatchesALoop) {
  ReferenceInterpreter relu = Compile(MyModule(), "relu0");
  for (int64_t n : {1, 2, 7, 128, 1000}) {
    SCOPED_TRACE(n);
    HostTensor x({1, n}, kF32), y({1, n}, kF32);
    std::vector<float> input = RandomFloats(n, static_cast<uint32_t>(n));
    x.Fill(input);
    relu.Run({x.arg(), y.arg()});
    for (int64_t j = 0; j < n; ++j) EXPECT_EQ(y.at<float>({0, j}), std::max(input[j], 0.0f)) << j;
  }
}

TEST(ReferenceInterpreter, MyModuleLinearMatchesALoopBitForBit) {
  ReferenceInterpreter linear = Compile(MyModule(), "linear0");
  for (auto [m, n] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {3, 5}, {16, 7}, {784, 128}, {128, 10}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
    HostTensor x({1, m}, kF32), w({n, m}, kF32), b({n}, kF32), z({1, n}, kF32);
    std::vector<float> xs = RandomFloats(m, 1), ws = RandomFloats(n * m, 2), bs = RandomFloats(n, 3);
    x.Fill(xs);
    w.Fill(ws);
    b.Fill(bs);
    linear.Run({x.arg(), w.arg(), b.arg(), z.arg()});
    // The kernel's order of float operations, so the results agree exactly.
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int64_t k = 0; k < m; ++k) acc = acc + xs[k] * ws[j * m + k];
      EXPECT_EQ(z.at<float>({0, j}), acc + bs[j]) << j;
    }
  }
}

const char* kMatmul = R"(
kernel @matmul(X: Buffer((b, k), float32), W: Buffer((k, n), float32), Z: Buffer((b, n), float32)) {
  for i in range(b) parallel {
    for j in range(n) {
      for r in range(k) {
        block Z(vi = i, vj = j, reduce vr = r) {
          init {
            Z[vi, vj] = 0f32
          }
          Z[vi, vj] = Z[vi, vj] + X[vi, vr] * W[vr, vj]
        }
      }
    }
  }
}
)";

TEST(ReferenceInterpreter, Matmul784x128AtBatch64IsExact) {
  ReferenceInterpreter matmul = Compile(kMatmul, "matmul");
  const int64_t batch = 64, k = 784, n = 128;
  HostTensor x({batch, k}, kF32), w({k, n}, kF32), z({batch, n}, kF32);
  std::vector<float> xs = RandomFloats(batch * k, 4), ws = RandomFloats(k * n, 5);
  x.Fill(xs);
  w.Fill(ws);
  matmul.Run({x.arg(), w.arg(), z.arg()});
  for (int64_t i = 0; i < batch; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int64_t r = 0; r < k; ++r) acc = acc + xs[i * k + r] * ws[r * n + j];
      ASSERT_EQ(z.at<float>({i, j}), acc) << i << ", " << j;
    }
  }
  // (Speed is measured by benchmarks, not by tests: a busy CI machine must not fail this.)
}

TEST(ReferenceInterpreter, EveryLoopKindRunsInOrder) {
  // Each step reads the previous one: only in-order execution gives 0, 1, 2, ...
  const char* text = R"(
kernel @prefix(A: Buffer((4, n), int64)) {
  for i in range(n) {
    A[0, i] = select(i == 0, 0, A[0, max(i - 1, 0)] + 1)
  }
  for i in range(n) parallel {
    A[1, i] = select(i == 0, 0, A[1, max(i - 1, 0)] + 1)
  }
  for i in range(n) vectorized {
    A[2, i] = select(i == 0, 0, A[2, max(i - 1, 0)] + 1)
  }
  for i in range(n) unrolled {
    A[3, i] = select(i == 0, 0, A[3, max(i - 1, 0)] + 1)
  }
}
)";
  ReferenceInterpreter prefix = Compile(text, "prefix");
  HostTensor a({4, 9}, kI64);
  prefix.Run({a.arg()});
  for (int64_t row = 0; row < 4; ++row) {
    for (int64_t i = 0; i < 9; ++i) EXPECT_EQ(a.at<int64_t>({row, i}), i) << row;
  }
}

TEST(ReferenceInterpreter, BlockInitRunsOnceBeforeEachReduction) {
  // Two reduce iterators: the init runs only where both are 0. Runs counts the inits.
  const char* text = R"(
kernel @sum2d(X: Buffer((n, 3, 4), float32), Out: Buffer((n,), float32), Runs: Buffer((n,), int32)) {
  for i in range(n) {
    for j in range(3) {
      for k in range(4) {
        block S(vi = i, reduce vj = j, reduce vk = k) {
          init {
            Out[vi] = 0f32
            Runs[vi] = Runs[vi] + 1i32
          }
          Out[vi] = Out[vi] + X[vi, vj, vk]
        }
      }
    }
  }
}
)";
  ReferenceInterpreter sum = Compile(text, "sum2d");
  HostTensor x({5, 3, 4}, kF32), out({5}, kF32), runs({5}, kI32);
  std::vector<float> xs(60);
  for (int i = 0; i < 60; ++i) xs[i] = static_cast<float>(i);
  x.Fill(xs);
  out.Fill<float>({99, 99, 99, 99, 99});  // garbage the init must clear
  sum.Run({x.arg(), out.arg(), runs.arg()});
  for (int64_t i = 0; i < 5; ++i) {
    float expected = 0;
    for (int e = 0; e < 12; ++e) expected += xs[i * 12 + e];
    EXPECT_EQ(out.at<float>({i}), expected);
    EXPECT_EQ(runs.at<int32_t>({i}), 1);
  }
}

TEST(ReferenceInterpreter, BlockIteratorsAreBoundToExpressions) {
  // A block whose iterators are computed from the loop variables (a transpose by blocks).
  const char* text = R"(
kernel @flip(X: Buffer((n,), int32), Y: Buffer((n,), int32)) {
  for i in range(n) {
    block Y(v = n - 1 - i) {
      Y[v] = X[i] * 10i32
    }
  }
}
)";
  ReferenceInterpreter flip = Compile(text, "flip");
  HostTensor x({4}, kI32), y({4}, kI32);
  x.Fill<int32_t>({1, 2, 3, 4});
  flip.Run({x.arg(), y.arg()});
  EXPECT_EQ(y.Values<int32_t>(), (std::vector<int32_t>{40, 30, 20, 10}));
}

TEST(ReferenceInterpreter, IfElseAndSequences) {
  const char* text = R"(
kernel @branches(X: Buffer((n,), float32), Pos: Buffer((n,), float32), Neg: Buffer((n,), float32)) {
  for i in range(n) {
    if X[i] >= 0f32 {
      Pos[i] = X[i]
      Neg[i] = 0f32
    } else {
      Pos[i] = 0f32
      Neg[i] = -X[i]
    }
    if i == 0 {
      Pos[i] = Pos[i] + 100f32
    }
  }
}
)";
  ReferenceInterpreter branches = Compile(text, "branches");
  HostTensor x({4}, kF32), pos({4}, kF32), neg({4}, kF32);
  x.Fill<float>({1.5f, -2, 0, -0.25f});
  branches.Run({x.arg(), pos.arg(), neg.arg()});
  EXPECT_EQ(pos.Values<float>(), (std::vector<float>{101.5f, 0, 0, 0}));
  EXPECT_EQ(neg.Values<float>(), (std::vector<float>{0, 2, 0, 0.25f}));
}

TEST(ReferenceInterpreter, AllocationsHaveSymbolicShapesAndStridesAndStartPoisoned) {
  const char* text = R"(
kernel @scratch(X: Buffer((n, 2), float32), Y: Buffer((2, n), float32), Unset: Buffer((3,), float32),
                UnsetInt: Buffer((3,), int32)) {
  alloc T: Buffer((n, 2), float32, strides=(1, n)) {
    for i in range(n) {
      for j in range(2) {
        T[i, j] = X[i, j] * 2f32
      }
    }
    for j in range(2) {
      for i in range(n) {
        Y[j, i] = T[i, j]
      }
    }
  }
  alloc Never: Buffer((3,), float32)
  alloc NeverInt: Buffer((3,), int32)
  for i in range(3) {
    Unset[i] = Never[i]
    UnsetInt[i] = NeverInt[i]
  }
}
)";
  ReferenceInterpreter scratch = Compile(text, "scratch");
  HostTensor x({3, 2}, kF32), y({2, 3}, kF32), unset({3}, kF32), unset_int({3}, kI32);
  x.Fill<float>({1, 2, 3, 4, 5, 6});
  scratch.Run({x.arg(), y.arg(), unset.arg(), unset_int.arg()});
  EXPECT_EQ(y.Values<float>(), (std::vector<float>{2, 6, 10, 4, 8, 12}));
  // Reading memory no statement wrote shows: NaN for floats, -1 for integers.
  for (float v : unset.Values<float>()) EXPECT_TRUE(std::isnan(v));
  for (int32_t v : unset_int.Values<int32_t>()) EXPECT_EQ(v, -1);
}

TEST(ReferenceInterpreter, ScalarParametersOfEachKind) {
  const char* text = R"(
kernel @affine(X: Buffer((n,), float32), alpha: float32, shift: int32, flag: bool, Y: Buffer((n,), float32)) {
  for i in range(n) {
    Y[i] = select(flag, X[i] * alpha + float32(shift), 0f32)
  }
}
)";
  ReferenceInterpreter affine = Compile(text, "affine");
  HostTensor x({3}, kF32), y({3}, kF32);
  x.Fill<float>({1, 2, 3});
  affine.Run({x.arg(), KernelArg::Float(0.5), KernelArg::Int(-1), KernelArg::Int(1), y.arg()});
  EXPECT_EQ(y.Values<float>(), (std::vector<float>{-0.5f, 0, 0.5f}));
  affine.Run({x.arg(), KernelArg::Int(2), KernelArg::Int(0), KernelArg::Int(0), y.arg()});
  EXPECT_EQ(y.Values<float>(), (std::vector<float>{0, 0, 0}));
}

TEST(ReferenceInterpreter, OutOfBoundsAccessIsAnErrorNamingTheKernelAndTheIndex) {
  const char* text = R"(
kernel @shift(X: Buffer((n,), float32), Y: Buffer((n,), float32)) {
  for i in range(n) {
    Y[i] = X[i + 1]
  }
}
)";
  ReferenceInterpreter shift = Compile(text, "shift");
  HostTensor x({4}, kF32), y({4}, kF32);
  EXPECT_EQ(RunError(shift, {x.arg(), y.arg()}),
            "kernel 'shift': load from X[4] is out of bounds: the shape is (4,); the index is [(i + 1)]");
  const char* store_text = R"(
kernel @poke(Y: Buffer((2, 3), int8)) {
  Y[1, -1] = 0i8
}
)";
  HostTensor p({2, 3}, kI8);
  EXPECT_EQ(RunError(Compile(store_text, "poke"), {p.arg()}),
            "kernel 'poke': store to Y[1, -1] is out of bounds: the shape is (2, 3); the index is [1, -1]");
}

TEST(ReferenceInterpreter, IntegerDivisionByZeroIsAnError) {
  const char* text = R"(
kernel @divide(A: Buffer((2,), int32), B: Buffer((2,), int32), C: Buffer((2,), int32)) {
  for i in range(2) {
    C[i] = floordiv(A[i], B[i])
  }
}
)";
  ReferenceInterpreter divide = Compile(text, "divide");
  HostTensor a({2}, kI32), b({2}, kI32), c({2}, kI32);
  a.Fill<int32_t>({7, 7});
  b.Fill<int32_t>({2, 0});
  EXPECT_EQ(RunError(divide, {a.arg(), b.arg(), c.arg()}), "kernel 'divide': integer division by zero (floordiv)");
}

TEST(ReferenceInterpreter, TheStatementsRoundTripFileRuns) {
  // tests/data/roundtrip/kernel_stmts.rxt: every statement kind, strides and scalar parameters.
  ReferenceInterpreter stmts = Compile(ReadSourceFile("tests/data/roundtrip/kernel_stmts.rxt"), "stmts");
  HostTensor x({2, 8}, kF32), s({2}, kF32, {1}), t({4, 4}, kI32, {4, 1}), out({2, 8}, kF32);
  x.Fill<float>({1, 2, 3, 4, 5, 6, 7, 8, -1, 2, -3, 4, -5, 6, -7, 8});
  s.Fill<float>({0.1f, 0.9f});
  stmts.Run({x.arg(), s.arg(), t.arg(), KernelArg::Float(0.5), KernelArg::Int(7), out.arg()});
  // Out = X * alpha where (X > 0 && !(S < alpha)) || j == 0, else 0: row 0 fails S >= alpha.
  EXPECT_EQ(out.Values<float>(), (std::vector<float>{0.5f, 0, 0, 0, 0, 0, 0, 0, -0.5f, 1, 0, 2, 0, 3, 0, 4}));
  EXPECT_EQ(t.Values<int32_t>(), (std::vector<int32_t>{7, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  // The final block: S[0] = sum(X[0]) / max(X[0]).
  EXPECT_EQ(s.Values<float>(), (std::vector<float>{36.0f / 8.0f, 0.9f}));
}

TEST(ReferenceInterpreter, TheExpressionsRoundTripFileRuns) {
  // tests/data/roundtrip/kernel_exprs.rxt: literals of every dtype, intrinsics, casts.
  ReferenceInterpreter exprs = Compile(ReadSourceFile("tests/data/roundtrip/kernel_exprs.rxt"), "exprs");
  HostTensor a({16}, kF64), b({16}, kI64), c({4}, kI32), d({4}, kU8), e({4}, kI8), f({4}, kI16), g({4}, kF16),
      h({4}, kBF16), m({4}, kBool);
  std::vector<double> as(16);
  for (int i = 0; i < 16; ++i) as[i] = 0.25 * i - 1;
  a.Fill(as);
  exprs.Run({a.arg(), b.arg(), c.arg(), d.arg(), e.arg(), f.arg(), g.arg(), h.arg(), m.arg(), KernelArg::Int(3)});
  // C[j] = j * 3 - -2147483648 wraps around in int32.
  EXPECT_EQ(c.Values<int32_t>(), (std::vector<int32_t>{-2147483647 - 1, -2147483645, -2147483642, -2147483639}));
  EXPECT_EQ(d.Values<uint8_t>(), (std::vector<uint8_t>{254, 254, 254, 254}));
  EXPECT_EQ(e.Values<int8_t>(), (std::vector<int8_t>{-1, -1, -1, -1}));
  EXPECT_EQ(f.Values<int16_t>(), (std::vector<int16_t>{-32768, -32768, -32768, -32768}));
  EXPECT_EQ(h.Values<uint16_t>(), (std::vector<uint16_t>{0x8000, 0x8000, 0x8000, 0x8000}));  // 1 * -0 = -0
  EXPECT_EQ(m.Values<uint8_t>(), (std::vector<uint8_t>{1, 1, 1, 1}));
}

TEST(ReferenceInterpreter, RunsFromSeveralThreadsAtOnce) {
  ReferenceInterpreter relu = Compile(MyModule(), "relu0");
  auto work = [&](uint32_t seed, bool* ok) {
    const int64_t n = 300;
    HostTensor x({1, n}, kF32), y({1, n}, kF32);
    std::vector<float> input = RandomFloats(n, seed);
    x.Fill(input);
    *ok = true;
    for (int round = 0; round < 20; ++round) {
      relu.Run({x.arg(), y.arg()});
      for (int64_t j = 0; j < n; ++j) *ok = *ok && y.at<float>({0, j}) == std::max(input[j], 0.0f);
    }
  };
  bool ok1 = false, ok2 = false;
  std::thread t1(work, 11, &ok1), t2(work, 12, &ok2);
  t1.join();
  t2.join();
  EXPECT_TRUE(ok1);
  EXPECT_TRUE(ok2);
}

TEST(ReferenceInterpreter, MalformedOrInvalidKernelsAreRefused) {
  std::vector<uint8_t> junk = {'R', 'X', 'T', 'K', 9, 0, 0, 0};
  try {
    ReferenceInterpreter::FromBytes(junk.data(), junk.size());
    FAIL() << "expected a KernelError";
  } catch (const KernelError& e) {
    EXPECT_NE(std::string(e.what()).find("unsupported kernel format version 9"), std::string::npos) << e.what();
  }
  plugin_support::kernel_format::Kernel empty;
  empty.name = "empty";
  EXPECT_THROW(ReferenceInterpreter{empty}, KernelError);
}

}  // namespace
}  // namespace rxt::backend_reference
