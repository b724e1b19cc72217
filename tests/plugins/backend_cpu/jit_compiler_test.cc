// Compiling in memory (jit_compiler.cc): compile times by phase, freeing code, sharing the code
// of identical kernels, and compiling from several threads at once.
#include <thread>

#include "cpu_test_util.h"

namespace rxt::backend_cpu::testing {
namespace {

const char* kBiasRelu = R"(
kernel @bias_relu(X: Buffer((n, m), float32), B: Buffer((m,), float32), Y: Buffer((n, m), float32)) {
  for i in range(n) parallel {
    for j in range(m) {
      block Y(vi = i, vj = j) {
        Y[vi, vj] = max(X[vi, vj] + B[vj], 0f32)
      }
    }
  }
}
)";

plugin_support::kernel_format::Kernel Decode(const std::string& text, const std::string& name) {
  IRModule module = ParseModule(text, name + ".rxt");
  std::vector<uint8_t> bytes = EncodeKernel(module.GetKernel(name), name);
  return plugin_support::kernel_format::DecodeKernel(bytes.data(), bytes.size()).kernel;
}

// Compile times by phase (CPU time of the compiling thread) are recorded for reports; no
// assertion on them here (unit tests assert no timings).
TEST(JitCompiler, RecordsCompileTimesByPhase) {
  std::string my_module = ReadSourceFile("examples/my_module.rxt");
  struct Case {
    std::string text, name;
  } cases[] = {{kBiasRelu, "bias_relu"}, {my_module, "linear0"}, {my_module, "relu0"}};
  for (const Case& c : cases) {
    CompileTimes times = TestJit().Compile(Decode(c.text, c.name))->times();
    EXPECT_GT(times.optimize_ms, 0) << c.name;
    EXPECT_GT(times.machine_ms, 0) << c.name;
    RecordProperty(c.name + "_cpu_ms", std::to_string(times.codegen_ms) + " / " + std::to_string(times.optimize_ms) +
                                           " / " + std::to_string(times.machine_ms));
  }
}

TEST(JitCompiler, FreedKernelsReleaseTheirCodeAndOthersKeepRunning) {
  std::unique_ptr<CpuKernel> keep = CompileCpu(kBiasRelu, "bias_relu");
  plugin_support::kernel_format::Kernel kernel = Decode(kBiasRelu, "bias_relu");
  for (int i = 0; i < 10; ++i) TestJit().Compile(kernel);  // compiled and freed
  HostTensor x({2, 3}, kF32), b({3}, kF32), y({2, 3}, kF32);
  x.Fill<float>({-1, 2, -3, 4, -5, 6});
  b.Fill<float>({1, 1, 1});
  EXPECT_EQ(CallCpu(*keep, {x.dl(), b.dl(), y.dl()}), "");
  EXPECT_EQ(y.Values<float>(), (std::vector<float>{0, 3, 0, 5, 0, 7}));
}

TEST(JitCompiler, KernelsWithTheSameBytesShareTheirCodeWhileLoaded) {
  std::unique_ptr<CpuKernel> a = CompileCpu(kBiasRelu, "bias_relu");
  std::unique_ptr<CpuKernel> b = CompileCpu(kBiasRelu, "bias_relu");
  EXPECT_EQ(&a->compile_times(), &b->compile_times());
  std::unique_ptr<CpuKernel> other = CompileCpu(ReadSourceFile("examples/my_module.rxt"), "relu0");
  EXPECT_NE(&a->compile_times(), &other->compile_times());
}

TEST(JitCompiler, CompilesFromSeveralThreadsAtOnce) {
  std::vector<std::unique_ptr<CpuKernel>> kernels(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < kernels.size(); ++t) {
    // Different kernels (the cache would share one): the names differ.
    threads.emplace_back([&, t] {
      std::string text = kBiasRelu;
      text.replace(text.find("bias_relu"), 9, "bias_relu" + std::to_string(t));
      kernels[t] = CompileCpu(text, "bias_relu" + std::to_string(t));
    });
  }
  for (std::thread& t : threads) t.join();
  for (auto& k : kernels) {
    HostTensor x({1, 2}, kF32), b({2}, kF32), y({1, 2}, kF32);
    x.Fill<float>({-1, 2});
    b.Fill<float>({0.5f, 0.5f});
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(CallCpu(*k, {x.dl(), b.dl(), y.dl()}), "");
    EXPECT_EQ(y.Values<float>(), (std::vector<float>{0, 2.5f}));
  }
}

}  // namespace
}  // namespace rxt::backend_cpu::testing
