// Whole modules built with the dnnl library (LegalizeLibraryCalls) give what the generated
// kernels give: the seed MLP and LeNet-5 on the reference backend, with and without it.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

#include "test_util/reference_provider.h"
#include "rxt/exec/build.h"
#include "rxt/ir/parser.h"
#include "rxt/plugin/plugin_host.h"
#include "rxt/runtime/vm.h"
#include "rxt/transform/passes.h"
#include "test_util/seed_mlp_reference.h"

namespace rxt {
namespace {

IRModule ReadExample(const std::string& name) {
  std::ifstream in(std::string(RXT_SOURCE_DIR) + "/examples/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseModule(ss.str(), name);
}

// Random arguments for every parameter of @backbone.
std::vector<Value> RandomArgs(const IRModule& module, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<Value> args;
  for (const Var& p : module.GetFunction("backbone")->params) {
    args.emplace_back(test::RandomTensor(p->struct_info->As<TensorSINode>()->StaticShape(), rng));
  }
  return args;
}

int CountExterns(const Executable& exec) { return static_cast<int>(exec.externs.size()); }

void ExpectSameResults(const IRModule& module, const std::string& example, int expected_externs) {
  PluginHost::Global().Load(RXT_LIB_DNNL_PLUGIN);
  std::vector<Value> args = RandomArgs(module, 5);
  testing::ReferenceKernelProvider provider;
  Executable with = Build(module, {.backend = "reference", .opt_level = 0, .libraries = {"dnnl"}});
  Executable without = Build(module, {.backend = "reference", .opt_level = 0});
  EXPECT_EQ(CountExterns(with), expected_externs);
  EXPECT_EQ(CountExterns(without), 0);
  EXPECT_LT(with.kernels.size(), without.kernels.size());
  VirtualMachine vm_with(std::move(with), provider), vm_without(std::move(without), provider);
  Tensor a = vm_with.Invoke("backbone", args).tensor();
  Tensor b = vm_without.Invoke("backbone", args).tensor();
  ASSERT_EQ(a.shape(), b.shape());
  for (int64_t i = 0; i < a.numel(); ++i) {
    float x = a.data_as<float>()[i], y = b.data_as<float>()[i];
    ASSERT_NEAR(x, y, 1e-3f * (1 + std::abs(y))) << example << " at " << i;
  }
}

void ExpectSameResults(const std::string& example, int expected_externs) {
  ExpectSameResults(ReadExample(example), example, expected_externs);
}

TEST(LibraryBuild, SeedMlpSameWithDnnl) { ExpectSameResults("mlp.rxt", 1); }  // dnnl.matmul_bias (three calls)
TEST(LibraryBuild, LeNetSameWithDnnl) { ExpectSameResults("lenet.rxt", 2); }  // dnnl.conv2d_bias, dnnl.matmul_bias

// LeNet-5 with its weights bound as constants: the convolution on oneDNN's path carries the
// weights' content id and reorders them once (plugins/lib_dnnl/constant_weights.h); every call
// of two executables whose weights differ gives what the same weights as arguments give.
TEST(LibraryBuild, BoundWeightsReorderedOnceStayApartByContent) {
  PluginHost::Global().Load(RXT_LIB_DNNL_PLUGIN);
  IRModule module = ReadExample("lenet.rxt");
  const std::vector<Var>& params = module.GetFunction("backbone")->params;
  testing::ReferenceKernelProvider provider;
  for (unsigned seed : {5u, 6u}) {
    std::vector<Value> args = RandomArgs(module, seed);
    VirtualMachine unbound(Build(module, {.backend = "reference", .opt_level = 0, .libraries = {"dnnl"}}), provider);
    Tensor expected = unbound.Invoke("backbone", args).tensor();
    std::map<std::string, Tensor> weights;
    for (size_t i = 1; i < params.size(); ++i) weights.emplace(params[i]->name, args[i].tensor());
    IRModule bound = BindParams("backbone", weights)(module);
    VirtualMachine vm(Build(bound, {.backend = "reference", .opt_level = 0, .libraries = {"dnnl"}}), provider);
    for (int call = 0; call < 2; ++call) {
      Tensor got = vm.Invoke("backbone", {args[0]}).tensor();
      ASSERT_EQ(got.shape(), expected.shape());
      for (int64_t i = 0; i < got.numel(); ++i) {
        ASSERT_EQ(got.data_as<float>()[i], expected.data_as<float>()[i]) << "seed " << seed << " call " << call << " at " << i;
      }
    }
  }
}

// linear in PyTorch's layout makes the calls matmul(x, permute_dims(w)) + b does: one GEMM
// with the bias and ReLU folded in, the weight read transposed.
TEST(LibraryBuild, LinearLayersAreTheSameGemmCalls) {
  const char* text = R"(
def @backbone(%x: Tensor((8, 12), float32), %w1: Tensor((16, 12), float32), %b1: Tensor((16,), float32),
              %w2: Tensor((4, 16), float32), %b2: Tensor((4,), float32)) -> Tensor((8, 4), float32) {
  dataflow {
    %h: Tensor((8, 16), float32) = linear(%x, %w1, %b1)
    %r: Tensor((8, 16), float32) = nn.relu(%h)
    %y0: Tensor((8, 4), float32) = linear(%r, %w2)
    %y: Tensor((8, 4), float32) = add(%y0, %b2)
    output %y
  }
  return %y
})";
  IRModule module = ParseModule(text, "linear.rxt");
  ExpectSameResults(module, "linear.rxt", 1);  // dnnl.matmul_bias, twice
  Executable exec = Build(module, {.backend = "reference", .opt_level = 0, .libraries = {"dnnl"}});
  EXPECT_EQ(exec.externs, std::vector<std::string>{"dnnl.matmul_bias"});
  EXPECT_TRUE(exec.kernels.empty()) << "the ReLU and both biases are in the GEMM calls";
}

// The cpu backend's plugin says it prefers dnnl; the reference backend prefers none.
TEST(LibraryBuild, ChooseLibrariesDefaults) {
  PluginHost host;
  host.Load(RXT_BACKEND_CPU_PLUGIN);
  EXPECT_EQ(ChooseLibraries("cpu", {}, host), std::vector<std::string>{"dnnl"});
  EXPECT_TRUE(ChooseLibraries("reference", {}, host).empty());
  EXPECT_TRUE(ChooseLibraries("cpu", {"none"}, host).empty());
  EXPECT_EQ(ChooseLibraries("reference", {"dnnl"}, host), std::vector<std::string>{"dnnl"});
  EXPECT_TRUE(ChooseLibraries("cpu", {}, PluginHost()).empty());  // no backend loaded: no preference known
}

}  // namespace
}  // namespace rxt
