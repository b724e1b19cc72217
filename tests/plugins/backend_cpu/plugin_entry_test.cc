// The plugin rxt_backend_cpu through the plugin host, as rxt and the C ABI use it: the seed
// MLPs on the "cpu" backend equal plain C++, and the build pipeline's --emit-library path. The
// ctest runs this binary's PluginEntry tests with RXT_NUM_THREADS=1 and =2 (the process pool
// the plugin's parallel loops use).
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <random>

#include "rxt/plugin/plugin_host.h"
#include "rxt/exec/build.h"
#include "rxt/ir/parser.h"
#include "rxt/plugin/kernel_library_emitter.h"
#include "rxt/plugin/plugin_kernel_provider.h"
#include "rxt/runtime/aot_library.h"
#include "rxt/runtime/thread_pool.h"
#include "rxt/runtime/vm.h"
#include "test_util/seed_mlp_reference.h"
#include "test_util.h"

namespace rxt {
namespace {

using backend_reference::testing::ReadSourceFile;
using test::Linear;
using test::RandomTensor;

PluginKernelProvider CpuBackend() {
  static bool loaded = false;
  if (!loaded) {
    PluginHost::Global().Load(RXT_CPU_PLUGIN);
    loaded = true;
  }
  return PluginKernelProvider::Find("cpu");
}

TEST(PluginEntry, RegistersTheCpuBackendWithAheadOfTimeCompilation) {
  PluginKernelProvider cpu = CpuBackend();
  EXPECT_EQ(cpu.name(), "cpu");
  const rxt_backend_t* backend = cpu.item().backend;
  ASSERT_NE(backend, nullptr);
  ASSERT_TRUE(RXT_VTABLE_HAS(rxt_backend_t, backend, emit_library));
  EXPECT_NE(backend->emit_library, nullptr);
  RecordProperty("threads", std::to_string(ThreadPool::Global().num_threads()));
}

// The seed's MyModule (784-128-10 at batch 1): its kernels equal plain C++ exactly.
TEST(PluginEntry, SeedMyModuleEqualsPlainCpp) {
  PluginKernelProvider cpu = CpuBackend();
  VirtualMachine vm(Build(ParseModule(ReadSourceFile("examples/my_module.rxt")), {.backend = "cpu"}), cpu);
  for (unsigned seed : {7u, 8u}) {
    std::mt19937 rng(seed);
    Tensor x = RandomTensor({1, 784}, rng), w0 = RandomTensor({128, 784}, rng), b0 = RandomTensor({128}, rng);
    Tensor w1 = RandomTensor({10, 128}, rng), b1 = RandomTensor({10}, rng);
    std::vector<float> expected = Linear(Linear(std::vector<float>(x.data_as<float>(), x.data_as<float>() + 784), w0, b0, true), w1, b1, false);
    Value y = vm.Invoke("main", {Value(x), Value(w0), Value(b0), Value(w1), Value(b1)});
    ASSERT_EQ(y.tensor().numel(), 10);
    for (int i = 0; i < 10; ++i) EXPECT_NEAR(y.tensor().data_as<float>()[i], expected[i], 1e-5) << i;
  }
}

// examples/mlp.rxt (784-128-128-10 at batch 64) through the whole build pipeline (fusion
// included) on the cpu backend, against plain C++.
TEST(PluginEntry, SeedMlpEqualsPlainCpp) {
  PluginKernelProvider cpu = CpuBackend();
  VirtualMachine vm(Build(ParseModule(ReadSourceFile("examples/mlp.rxt")), {.backend = "cpu"}), cpu);
  std::mt19937 rng(42);
  std::vector<int64_t> dims = {784, 128, 128, 10};
  Tensor x = RandomTensor({64, 784}, rng);
  std::vector<Value> args = {Value(x)};
  std::vector<Tensor> ws, bs;
  for (size_t l = 0; l + 1 < dims.size(); ++l) {
    ws.push_back(RandomTensor({dims[l], dims[l + 1]}, rng));
    bs.push_back(RandomTensor({dims[l + 1]}, rng));
    args.push_back(Value(ws.back()));
    args.push_back(Value(bs.back()));
  }
  Value y = vm.Invoke("backbone", args);
  ASSERT_EQ(y.Describe(), "float32 (64, 10)");
  // Plain C++ in float32, summing in the kernels' order: h = relu(h w + b) twice, then h w + b.
  std::vector<float> h(x.data_as<float>(), x.data_as<float>() + x.numel());
  for (size_t l = 0; l < ws.size(); ++l) {
    int64_t in = dims[l], out = dims[l + 1];
    std::vector<float> next(64 * out);
    for (int64_t r = 0; r < 64; ++r) {
      for (int64_t j = 0; j < out; ++j) {
        float acc = 0;
        for (int64_t k = 0; k < in; ++k) acc = acc + h[r * in + k] * ws[l].data_as<float>()[k * out + j];
        acc = acc + bs[l].data_as<float>()[j];
        next[r * out + j] = (l + 1 < ws.size()) ? std::max(acc, 0.0f) : acc;
      }
    }
    h = std::move(next);
  }
  for (int64_t i = 0; i < 64 * 10; ++i) {
    EXPECT_NEAR(y.tensor().data_as<float>()[i], h[i], 1e-5 * std::max(1.0f, std::fabs(h[i]))) << i;
  }
}

TEST(PluginEntry, BuildWithEmitLibraryRunsWithoutThePlugin) {
  CpuBackend();
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("rxt_plugin_emit_" + std::to_string(getpid()));
  fs::create_directories(dir);
  IRModule module = ParseModule(ReadSourceFile("examples/my_module.rxt"));
  Executable exec = Build(module, {.backend = "cpu", .emit_library = (dir / "my_module.so").string()});
  EXPECT_EQ(exec.aot_library, (dir / "my_module.so").string());
  for (const KernelRecord& k : exec.kernels) EXPECT_FALSE(k.aot_symbol.empty()) << k.name;
  exec.Save((dir / "my_module.rxtx").string());
  Executable loaded = Executable::Load((dir / "my_module.rxtx").string());
  AotKernelProvider aot = AotKernelProvider::ForExecutable(loaded);
  PluginKernelProvider jit = CpuBackend();
  VirtualMachine from_library(loaded, aot), from_jit(exec, jit);
  std::mt19937 rng(3);
  std::vector<Value> args = {Value(RandomTensor({1, 784}, rng)), Value(RandomTensor({128, 784}, rng)),
                             Value(RandomTensor({128}, rng)), Value(RandomTensor({10, 128}, rng)),
                             Value(RandomTensor({10}, rng))};
  EXPECT_TRUE(BitwiseEqual(from_library.Invoke("main", args), from_jit.Invoke("main", args)));

  // A backend whose plugin cannot compile ahead of time.
  PluginHost::Global().Load(RXT_REFERENCE_PLUGIN);
  try {
    Build(module, {.backend = "reference", .emit_library = (dir / "ref.so").string()});
    ADD_FAILURE() << "the reference backend emitted a library";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kFailedPrecondition);
    EXPECT_NE(std::string(e.what()).find("backend 'reference' cannot compile kernels ahead of time"), std::string::npos)
        << e.what();
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace rxt
