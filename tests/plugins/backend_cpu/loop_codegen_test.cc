// Statements in generated code (loop_codegen.cc): every loop kind, parallel loops on 1 and 2
// threads, blocks and their reduction init, ifs, local allocations on the stack and the heap,
// strided buffers and symbolic dims, the seed's MyModule kernels against plain C++.
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <random>

#include "cpu_test_util.h"
#include "kernel_codegen.h"
#include "rxt/ir/kernel_encoding.h"
#include "rxt/ir/parser.h"
#include "rxt/plugin_support/kernel_codec.h"

namespace rxt::backend_cpu::testing {
namespace {

std::vector<float> RandomFloats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

TEST(LoopCodegen, MyModuleLinearAndReluEqualPlainCppBitForBit) {
  std::string text = ReadSourceFile("examples/my_module.rxt");
  std::unique_ptr<CpuKernel> linear = CompileCpu(text, "linear0");
  std::unique_ptr<CpuKernel> relu = CompileCpu(text, "relu0");
  for (auto [m, n] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {3, 5}, {16, 7}, {784, 128}, {128, 10}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
    HostTensor x({1, m}, kF32), w({n, m}, kF32), b({n}, kF32), z({1, n}, kF32), y({1, n}, kF32);
    std::vector<float> xs = RandomFloats(m, 1), ws = RandomFloats(n * m, 2), bs = RandomFloats(n, 3);
    x.Fill(xs);
    w.Fill(ws);
    b.Fill(bs);
    ASSERT_EQ(CallCpu(*linear, {x.dl(), w.dl(), b.dl(), z.dl()}), "");
    ASSERT_EQ(CallCpu(*relu, {z.dl(), y.dl()}), "");
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int64_t k = 0; k < m; ++k) acc = acc + xs[k] * ws[j * m + k];
      EXPECT_EQ(z.at<float>({0, j}), acc + bs[j]) << j;
      EXPECT_EQ(y.at<float>({0, j}), std::max(acc + bs[j], 0.0f)) << j;
    }
  }
}

TEST(LoopCodegen, EveryLoopKindRunsInOrderWhereIterationsDependOnEachOther) {
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
  std::unique_ptr<CpuKernel> prefix = CompileCpu(text, "prefix");
  HostTensor a({4, 37}, kI64);
  ASSERT_EQ(CallCpu(*prefix, {a.dl()}), "");
  for (int64_t row = 0; row < 4; ++row) {
    for (int64_t i = 0; i < 37; ++i) EXPECT_EQ(a.at<int64_t>({row, i}), i) << row;
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

TEST(LoopCodegen, ParallelLoopsGiveTheSameResultsOnOneAndTwoThreads) {
  // 64 x 128 x 256 is enough work to use the pool (small ones run on the caller: tested too).
  for (auto [b, k, n] : std::vector<std::array<int64_t, 3>>{{64, 256, 128}, {3, 5, 7}, {1, 784, 128}}) {
    SCOPED_TRACE(std::to_string(b) + "x" + std::to_string(k) + "x" + std::to_string(n));
    std::vector<ArgSpec> args = {ArgSpec::Tensor({b, k}, kF32), ArgSpec::Tensor({k, n}, kF32),
                                 ArgSpec::Tensor({b, n}, kF32)};
    for (int threads : {1, 2}) {
      AgreeOptions o;
      o.threads = threads;
      ExpectAgree(kMatmul, "matmul", args, o);
    }
  }
}

/// How many outlined parallel bodies the code of kernel |name| in |text| has.
int ParallelBodies(const std::string& text, const std::string& name) {
  IRModule module = ParseModule(text, name + ".rxt");
  std::vector<uint8_t> bytes = EncodeKernel(module.GetKernel(name), name);
  plugin_support::kernel_format::DecodeResult decoded = plugin_support::kernel_format::DecodeKernel(bytes.data(), bytes.size());
  EXPECT_EQ(decoded.error, "");
  llvm::LLVMContext context;
  llvm::Module llvm_module(name, context);
  EmitKernel(decoded.kernel, "k", llvm_module);
  int bodies = 0;
  for (const llvm::Function& f : llvm_module) bodies += f.getName().contains(".parallel") ? 1 : 0;
  return bodies;
}

// A parallel loop whose work is static and below the threshold for waking threads would always
// run on the caller: it is compiled as a plain loop. Above the threshold, or with a symbolic
// extent, it keeps its outlined body (and the check at run time).
TEST(LoopCodegen, ParallelLoopsWithTooLittleStaticWorkAreCompiledSerially) {
  auto kernel = [](const std::string& dims) {
    return "kernel @scale(X: Buffer((" + dims + "), float32), Out: Buffer((" + dims + "), float32)) {\n"
           "  for i in range(" + dims.substr(0, dims.find(',')) + ") parallel {\n"
           "    for j in range(" + dims.substr(dims.find(',') + 2) + ") {\n"
           "      Out[i, j] = X[i, j] * 2f32\n    }\n  }\n}\n";
  };
  EXPECT_EQ(ParallelBodies(kernel("64, 8"), "scale"), 0);      // 512 iterations
  EXPECT_EQ(ParallelBodies(kernel("512, 512"), "scale"), 1);   // 2^18 iterations
  EXPECT_EQ(ParallelBodies(kernel("n, 8"), "scale"), 1);       // known at run time only
  for (const char* dims : {"64, 8", "512, 512"}) {
    for (int threads : {1, 2}) {
      AgreeOptions o;
      o.threads = threads;
      std::string d = dims;
      int64_t rows = std::stoll(d.substr(0, d.find(','))), cols = std::stoll(d.substr(d.find(',') + 2));
      ExpectAgree(kernel(dims), "scale", {ArgSpec::Tensor({rows, cols}, kF32), ArgSpec::Tensor({rows, cols}, kF32)}, o);
    }
  }
}

TEST(LoopCodegen, ParallelLoopsWithLocalsInsideAndAroundThem) {
  // An allocation outside the parallel loop (captured by its body), one inside (per
  // iteration, per thread), and a nested parallel loop (serial inside the body).
  const char* text = R"(
kernel @nested(X: Buffer((n, m), float32), Out: Buffer((n, m), float32)) {
  alloc Scale: Buffer((m,), float32)
  for j in range(m) {
    Scale[j] = float32(j) * 0.5f32
  }
  for i in range(n) parallel {
    alloc Row: Buffer((m,), float32)
    for j in range(m) parallel {
      Row[j] = X[i, j] * Scale[j]
    }
    for j in range(m) {
      Out[i, j] = Row[m - 1 - j] + 1f32
    }
  }
}
)";
  for (auto [n, m] : std::vector<std::pair<int64_t, int64_t>>{{600, 300}, {5, 3}, {0, 4}, {4, 0}}) {
    for (int threads : {1, 2}) {
      AgreeOptions o;
      o.threads = threads;
      ExpectAgree(text, "nested", {ArgSpec::Tensor({n, m}, kF32), ArgSpec::Tensor({n, m}, kF32)}, o);
    }
  }
}

TEST(LoopCodegen, DivisionByZeroInsideAParallelLoopFailsTheCallAndFreesMemory) {
  const char* text = R"(
kernel @divide(A: Buffer((n, m), int32), B: Buffer((m,), int32), Out: Buffer((n, m), int32)) {
  alloc Tmp: Buffer((n, m), int32)
  for i in range(n) parallel {
    for j in range(m) {
      Tmp[i, j] = floordiv(A[i, j], B[j])
    }
  }
  for i in range(n) {
    for j in range(m) {
      Out[i, j] = Tmp[i, j]
    }
  }
}
)";
  std::unique_ptr<CpuKernel> k = CompileCpu(text, "divide");
  for (int threads : {1, 2}) {
    HostTensor a({1000, 200}, kI32), b({200}, kI32), out({1000, 200}, kI32);
    for (int64_t j = 0; j < 200; ++j) b.at<int32_t>({j}) = j == 150 ? 0 : static_cast<int32_t>(j + 1);
    EXPECT_EQ(CallCpu(*k, {a.dl(), b.dl(), out.dl()}, PoolRuntime(threads)), "integer division by zero");
    b.at<int32_t>({150}) = 3;
    a.at<int32_t>({999, 150}) = -7;
    EXPECT_EQ(CallCpu(*k, {a.dl(), b.dl(), out.dl()}, PoolRuntime(threads)), "");
    EXPECT_EQ(out.at<int32_t>({999, 150}), -3);
  }
}

TEST(LoopCodegen, BlockInitRunsOnceBeforeEachReduction) {
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
  ExpectAgree(text, "sum2d",
              {ArgSpec::Tensor({50, 3, 4}, kF32), ArgSpec::Tensor({50}, kF32), ArgSpec::Tensor({50}, kI32)});
}

TEST(LoopCodegen, IfsExtentsAndAllocations) {
  // Loops that run zero times (a negative extent), if/else, a stack allocation (known small
  // size) and a heap one (symbolic size).
  const char* text = R"(
kernel @misc(X: Buffer((n,), float32), Out: Buffer((n,), float32), Count: Buffer((2,), int64)) {
  alloc Small: Buffer((8,), float32)
  alloc Big: Buffer((n * 2,), float32)
  for i in range(8) {
    Small[i] = float32(i)
  }
  for i in range(n - 100) {
    Count[0] = Count[0] + 1
  }
  for i in range(n) {
    Big[i * 2] = X[i]
    if X[i] > 0f32 {
      Out[i] = Big[i * 2] + Small[floormod(i, 8)]
    } else {
      Out[i] = 0f32 - Big[i * 2]
      Count[1] = Count[1] + 1
    }
  }
}
)";
  for (int64_t n : {0, 1, 50, 101, 1000}) {
    ExpectAgree(text, "misc", {ArgSpec::Tensor({n}, kF32), ArgSpec::Tensor({n}, kF32), ArgSpec::Tensor({2}, kI64)});
  }
}

TEST(LoopCodegen, StridedBuffersAndSymbolicDims) {
  // Declared strides bound from the tensor (s) or checked (1); a dim given as an expression.
  const char* text = R"(
kernel @rows(A: Buffer((n, m), float64, strides=(s, 1)), B: Buffer((n * 2,), float64), Out: Buffer((n, m), float64)) {
  for i in range(n) {
    for j in range(m) {
      Out[i, j] = A[i, j] * B[i * 2 + 1] + float64(s)
    }
  }
}
)";
  ExpectAgree(text, "rows",
              {ArgSpec::Tensor({5, 3}, kF64, {7, 1}), ArgSpec::Tensor({10}, kF64), ArgSpec::Tensor({5, 3}, kF64)});
  ExpectAgree(text, "rows",
              {ArgSpec::Tensor({64, 33}, kF64, {40, 1}), ArgSpec::Tensor({128}, kF64), ArgSpec::Tensor({64, 33}, kF64)});
  // Compact tensors given with explicit strides, and dims of extent 1 with any stride.
  const char* compact = R"(
kernel @copy(A: Buffer((n, 1, m), float32), Out: Buffer((n, 1, m), float32)) {
  for i in range(n) {
    for j in range(m) {
      Out[i, 0, j] = A[i, 0, j] + 1f32
    }
  }
}
)";
  ExpectAgree(compact, "copy", {ArgSpec::Tensor({4, 1, 6}, kF32, {6, 99, 1}), ArgSpec::Tensor({4, 1, 6}, kF32)});
}

TEST(LoopCodegen, ScalarParametersOfEveryKind) {
  const char* text = R"(
kernel @scale(X: Buffer((n,), float16), a: float16, b: float32, c: int8, d: bool, Out: Buffer((n,), float32)) {
  for i in range(n) {
    Out[i] = float32(X[i] * a) * b + float32(c) + select(d, 100f32, 0f32)
  }
}
)";
  ExpectAgree(text, "scale",
              {ArgSpec::Tensor({33}, kF16), ArgSpec::Float(0.1), ArgSpec::Float(1.0 / 3), ArgSpec::Int(-7),
               ArgSpec::Int(5), ArgSpec::Tensor({33}, kF32)});
  // An integer for a float parameter is converted like the reference converts it.
  ExpectAgree(text, "scale",
              {ArgSpec::Tensor({33}, kF16), ArgSpec::Int(3), ArgSpec::Int(16777217), ArgSpec::Int(127),
               ArgSpec::Int(0), ArgSpec::Tensor({33}, kF32)});
}

}  // namespace
}  // namespace rxt::backend_cpu::testing
