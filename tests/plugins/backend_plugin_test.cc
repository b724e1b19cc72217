// The reference backend as a plugin: loaded from the build tree, it runs my_module's kernels
// through the plugin ABI (rxt_backend_t) behind a PluginKernelProvider.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>

#include "rxt/plugin/plugin_host.h"
#include "rxt/exec/vm_compiler.h"
#include "rxt/ir/parser.h"
#include "rxt/plugin/plugin_kernel_provider.h"
#include "rxt/runtime/dlpack.h"
#include "rxt/runtime/vm.h"
#include "test_util/seed_mlp_reference.h"

namespace rxt {
namespace {

Executable CompileMyModule() {
  std::ifstream in(std::string(RXT_SOURCE_DIR) + "/examples/my_module.rxt");
  std::stringstream text;
  text << in.rdbuf();
  return CompileToExecutable(ParseModule(text.str(), "my_module.rxt"), {.backend = "reference"});
}

using test::Linear;
using test::RandomTensor;

std::string ErrorOf(const std::function<void()>& f, ErrorCode expected_code) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), expected_code) << e.what();
    return e.what();
  }
  return "(no error)";
}

class BackendPlugin : public ::testing::Test {
 protected:
  void SetUp() override { host_.Load(RXT_REFERENCE_PLUGIN); }
  PluginHost host_;
};

TEST_F(BackendPlugin, RegistersTheReferenceBackend) {
  std::vector<PluginInfo> plugins = host_.Plugins();
  ASSERT_EQ(plugins.size(), 1u);
  EXPECT_EQ(plugins[0].name, "rxt_backend_reference");
  std::vector<std::string> expected = {"reference"};
  EXPECT_EQ(plugins[0].items[static_cast<size_t>(PluginItemKind::kBackend)], expected);
  EXPECT_EQ(PluginKernelProvider::Find("reference", host_).name(), "reference");
}

TEST_F(BackendPlugin, RunsMyModuleLikePlainCpp) {
  PluginKernelProvider provider = PluginKernelProvider::Find("reference", host_);
  VirtualMachine vm(CompileMyModule(), provider);
  std::mt19937 rng(5);
  Tensor x = RandomTensor({1, 20}, rng), w0 = RandomTensor({16, 20}, rng), b0 = RandomTensor({16}, rng);
  Tensor w1 = RandomTensor({4, 16}, rng), b1 = RandomTensor({4}, rng);
  std::vector<float> xs(x.data_as<float>(), x.data_as<float>() + 20);
  std::vector<float> expected = Linear(Linear(xs, w0, b0, true), w1, b1, false);

  Value y = vm.Invoke("main", {Value(x), Value(w0), Value(b0), Value(w1), Value(b1)});
  ASSERT_EQ(y.Describe(), "float32 (1, 4)");
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(y.tensor().data_as<float>()[i], expected[i], 1e-5) << i;
}

TEST_F(BackendPlugin, KernelsKeepThePluginLoadedAfterTheHostIsGone) {
  Executable exec = CompileMyModule();
  std::unique_ptr<Kernel> relu;
  {
    PluginHost host;
    host.Load(RXT_REFERENCE_PLUGIN);
    PluginKernelProvider provider = PluginKernelProvider::Find("reference", host);
    auto record = std::find_if(exec.kernels.begin(), exec.kernels.end(),
                               [](const KernelRecord& k) { return k.name == "relu0"; });
    ASSERT_NE(record, exec.kernels.end());
    relu = provider.Load(*record);
  }
  Tensor x = Tensor::FromVector<float>({1, 3}, DType::kFloat32, {-1.0f, 2.0f, -3.0f});
  Tensor y = Tensor::Empty({1, 3}, DType::kFloat32);
  DLTensor xv = ToDLTensorView(x), yv = ToDLTensorView(y);
  DLTensor* args[] = {&xv, &yv};
  relu->Call(args, 2);
  EXPECT_EQ(y.data_as<float>()[0], 0.0f);
  EXPECT_EQ(y.data_as<float>()[1], 2.0f);
  EXPECT_EQ(y.data_as<float>()[2], 0.0f);
}

TEST_F(BackendPlugin, ErrorsNameTheBackendAndTheKernel) {
  PluginKernelProvider provider = PluginKernelProvider::Find("reference", host_);
  KernelRecord garbage{"broken", {1, 2, 3}, ""};
  EXPECT_NE(ErrorOf([&] { provider.Load(garbage); }, ErrorCode::kDataLoss).find("backend 'reference': kernel 'broken': "),
            std::string::npos);

  Executable exec = CompileMyModule();
  const KernelRecord& record = exec.kernels[0];
  std::unique_ptr<Kernel> kernel = provider.Load(record);
  Tensor x = Tensor::Empty({1, 3}, DType::kFloat32);
  DLTensor xv = ToDLTensorView(x);
  DLTensor* args[] = {&xv};
  std::string message = ErrorOf([&] { kernel->Call(args, 1); }, ErrorCode::kInvalidArgument);
  EXPECT_EQ(message.rfind("backend 'reference': kernel '" + record.name + "': expected ", 0), 0u) << message;
}

TEST_F(BackendPlugin, ABackendThatIsNotLoadedIsAClearError) {
  std::string message = ErrorOf([&] { PluginKernelProvider::Find("cuda", host_); }, ErrorCode::kNotFound);
  EXPECT_EQ(message, "no backend 'cuda' is loaded (loaded backends: reference); load the plugin that provides it");
  PluginHost empty;
  EXPECT_EQ(ErrorOf([&] { PluginKernelProvider::Find("reference", empty); }, ErrorCode::kNotFound),
            "no backend 'reference' is loaded (loaded backends: none); load the plugin that provides it");
}

// A backend's failure is its status: the code and message it chose, after the backend and kernel.
// (A backend of ABI version 2 known by name only: tests/plugins/abi_v2_plugin_test.cc.)
TEST_F(BackendPlugin, ABackendsFailureIsItsStatus) {
  host_.Load(std::string(RXT_TEST_PLUGIN_DIR) + "/search/test_good.so");
  PluginKernelProvider provider = PluginKernelProvider::Find("test_cpu", host_);
  EXPECT_EQ(ErrorOf([&] { provider.Load({.name = "k", .portable = {1}}); }, ErrorCode::kUnimplemented),
            "backend 'test_cpu': kernel 'k': test_cpu runs no kernels");
}

}  // namespace
}  // namespace rxt
