// rxt.hpp: the header-only C++ wrappers, used the way an application would (only librxt.so).
#include "rxt/rxt.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace {

const char kModule[] = R"(attributes {param_num = 1, state_num = 0}

def @main(%x: Tensor((2, 3), float32), %w: Tensor((3, 4), float32)) -> Tensor((2, 4), float32) {
  dataflow {
    %y: Tensor((2, 4), float32) = matmul(%x, %w)
    %unused: Tensor((2, 4), float32) = nn.relu(%y)
    output %y
  }
  return %y
}
)";

TEST(RxtHppTest, ParsePrintAndAttributes) {
  rxt::abi::Module module = rxt::abi::Module::Parse(kModule, "small.rxt");
  EXPECT_EQ(module.GetInt("param_num"), 1);
  EXPECT_EQ(module.AttrNames(), (std::vector<std::string>{"param_num", "state_num"}));
  EXPECT_EQ(module.AttrKind("state_num"), RXT_ATTR_INT);
  module.SetFloat("lr", 0.25);
  module.SetString("optimizer", "sgd");
  EXPECT_EQ(module.GetFloat("lr"), 0.25);
  EXPECT_EQ(module.GetString("optimizer"), "sgd");
  module.SetInt("state_num", 3);
  std::string text = module.Print();
  rxt::abi::Module reparsed = rxt::abi::Module::Parse(text);
  EXPECT_EQ(reparsed.Print(), text);
  EXPECT_EQ(reparsed.GetInt("state_num"), 3);
  EXPECT_NO_THROW(reparsed.Verify());
}

TEST(RxtHppTest, ErrorsBecomeExceptionsWithCodeAndMessage) {
  try {
    rxt::abi::Module::Parse("def @main(", "bad.rxt");
    FAIL() << "expected an exception";
  } catch (const rxt::abi::Error& e) {
    EXPECT_EQ(e.code(), RXT_INVALID_ARGUMENT);
    EXPECT_EQ(std::string(e.what()).rfind("bad.rxt:1:", 0), 0u) << e.what();
  }
  rxt::abi::Module module = rxt::abi::Module::Parse(kModule);
  try {
    module.GetString("param_num");
    FAIL() << "expected an exception";
  } catch (const rxt::abi::Error& e) {
    EXPECT_EQ(e.code(), RXT_INVALID_ARGUMENT);
  }
  try {
    module.GetInt("missing");
    FAIL() << "expected an exception";
  } catch (const rxt::abi::Error& e) {
    EXPECT_EQ(e.code(), RXT_NOT_FOUND);
  }
}

TEST(RxtHppTest, ModulesMoveAndShare) {
  rxt::abi::Module a = rxt::abi::Module::Parse(kModule);
  rxt_module_t* handle = a.get();
  rxt::abi::Module b = std::move(a);
  EXPECT_FALSE(a);  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
  EXPECT_EQ(b.get(), handle);
  rxt::abi::Module c;
  c = std::move(b);
  EXPECT_EQ(c.get(), handle);
  rxt::abi::Module shared = c.Share();
  shared.SetInt("param_num", 9);
  EXPECT_EQ(c.GetInt("param_num"), 9);
  rxt::abi::Module adopted = rxt::abi::Module::Adopt(shared.release());
  EXPECT_FALSE(shared);
  EXPECT_EQ(adopted.GetInt("param_num"), 9);
}

TEST(RxtHppTest, RunPassesAndListings) {
  rxt::abi::Module module = rxt::abi::Module::Parse(kModule);
  rxt::abi::Module cleaned = module.RunPasses({"DeadCodeElimination"});
  EXPECT_EQ(cleaned.Print().find("%unused"), std::string::npos);
  EXPECT_NE(module.Print().find("%unused"), std::string::npos);
  rxt::abi::PassOptions options;
  options.disabled = {"DeadCodeElimination"};
  EXPECT_NE(module.RunPasses({"DeadCodeElimination"}, options).Print().find("%unused"), std::string::npos);
  EXPECT_THROW(module.RunPasses({"NoSuchPass"}), rxt::abi::Error);
  // Options by key: the relu kernel %unused needed goes with it.
  rxt::abi::PassOptions config;
  EXPECT_NE(module.RunPasses({"LegalizeOps", "DeadCodeElimination"}, config).Print().find("kernel @relu"),
            std::string::npos);
  config.config = {{"DeadCodeElimination.remove_unused_kernels", "true"}};
  EXPECT_EQ(module.RunPasses({"LegalizeOps", "DeadCodeElimination"}, config).Print().find("kernel @relu"),
            std::string::npos);

  std::vector<rxt::abi::NamedItem> ops = rxt::abi::ListOps();
  EXPECT_TRUE(std::any_of(ops.begin(), ops.end(), [](const auto& op) { return op.name == "nn.relu"; }));
  std::vector<rxt::abi::NamedItem> passes = rxt::abi::ListPasses();
  EXPECT_TRUE(std::any_of(passes.begin(), passes.end(),
                          [](const auto& pass) { return pass.name == "DeadCodeElimination"; }));
  EXPECT_EQ(rxt::abi::Version(), rxt_version());
}

TEST(RxtHppTest, Plugins) {
  EXPECT_THROW(rxt::abi::LoadPlugin(RXT_TEST_PLUGIN_DIR "/bad/test_no_entry.so"), rxt::abi::Error);
  rxt::abi::LoadPlugin(RXT_TEST_PLUGIN_DIR "/search/test_other.so");
  std::vector<rxt::abi::PluginInfo> plugins = rxt::abi::ListPlugins();
  ASSERT_EQ(plugins.size(), 1u);
  EXPECT_EQ(plugins[0].name, "test_other");
  EXPECT_EQ(plugins[0].num_optimizers, 1u);
  std::vector<rxt::abi::NamedItem> optimizers = rxt::abi::ListPluginItems(RXT_PLUGIN_OPTIMIZER);
  ASSERT_EQ(optimizers.size(), 1u);
  EXPECT_EQ(optimizers[0].name, "test_adam");
  EXPECT_EQ(optimizers[0].summary, "Adam (test).");
}

rxt_status_t Negate(void*, DLTensor* const* args, int num_args) {
  if (num_args != 2) return rxt_status_create(RXT_INVALID_ARGUMENT, "hpp.negate takes 2 arguments");
  for (int64_t i = 0; i < args[0]->shape[0]; ++i) {
    static_cast<float*>(args[1]->data)[i] = -static_cast<const float*>(args[0]->data)[i];
  }
  return nullptr;
}

TEST(RxtHppTest, ExecutablesAndVm) {
  rxt::abi::RegisterExtern("hpp.negate", Negate, nullptr, /*replace=*/true);
  rxt::abi::Module module = rxt::abi::Module::Parse(R"(
def @both(%x: Tensor((n,), float32)) -> Tuple(Tensor((n,), float32), Tensor((n,), float32)) {
  %y = call_extern("hpp.negate", (%x,), out_sinfo=Tensor((n,), float32))
  %t: Tuple(Tensor((n,), float32), Tensor((n,), float32)) = (%x, %y)
  return %t
})");
  rxt::abi::Executable exec = rxt::abi::Executable::Build(module);
  EXPECT_EQ(exec.Backend(), "reference");
  rxt::abi::Executable shared = exec.Share();
  rxt::abi::Vm vm(shared);
  vm.SetProfiling(true);

  float data[3] = {1.0f, -2.0f, 3.0f};
  int64_t shape[1] = {3};
  DLManagedTensor input{};
  input.dl_tensor.data = data;
  input.dl_tensor.device = {kDLCPU, 0};
  input.dl_tensor.ndim = 1;
  input.dl_tensor.dtype = {kDLFloat, 32, 1};
  input.dl_tensor.shape = shape;
  // Two outputs: Invoke grows its output array when the first try has too few.
  std::vector<rxt::abi::ManagedTensor> outputs = vm.Invoke("both", {&input});
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(static_cast<float*>(outputs[0]->dl_tensor.data)[1], -2.0f);
  EXPECT_EQ(static_cast<float*>(outputs[1]->dl_tensor.data)[2], -3.0f);
  EXPECT_NE(vm.Profile().find("hpp.negate"), std::string::npos) << vm.Profile();

  try {
    vm.Invoke("both", {});
    FAIL() << "a call without arguments succeeded";
  } catch (const rxt::abi::Error& e) {
    EXPECT_EQ(e.code(), RXT_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("both: expected 1 argument"), std::string::npos) << e.what();
  }
  rxt::abi::RemoveExtern("hpp.negate");
}

TEST(RxtHppTest, AContextHasItsOwnThreadsAndPlugins) {
  rxt::abi::Context context =
      rxt::abi::Context::Create({.num_threads = 2, .plugins = {RXT_TEST_PLUGIN_DIR "/externs/test_extern.so"}});
  EXPECT_EQ(context.NumThreads(), 2);
  rxt::abi::Executable exec = rxt::abi::Executable::Build(rxt::abi::Module::Parse(R"(
def @threads(%x: Tensor((), int64)) -> Tensor((), int64) {
  %n = call_extern("test.num_threads", (%x,), out_sinfo=Tensor((), int64))
  return %n
})"));
  // The extern function is the context's: the default context does not have it.
  EXPECT_THROW(rxt::abi::Vm{exec}, rxt::abi::Error);
  rxt::abi::Vm vm(context, exec);
  context = rxt::abi::Context();  // the VM keeps it alive
  int64_t zero = 0;
  DLManagedTensor input{};
  input.dl_tensor.data = &zero;
  input.dl_tensor.device = {kDLCPU, 0};
  input.dl_tensor.dtype = {kDLInt, 64, 1};
  std::vector<rxt::abi::ManagedTensor> outputs = vm.Invoke("threads", {&input});
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(*static_cast<int64_t*>(outputs[0]->dl_tensor.data), 2);
}

}  // namespace

TEST(RxtHppTest, ImportAndExportThroughPlugins) {
  rxt::abi::Context context = rxt::abi::Context::Create(
      {.plugins = {RXT_TEST_PLUGIN_DIR "/ir/test_importer.so", RXT_TEST_PLUGIN_DIR "/ir/test_exporter.so"}});
  const std::string dir = ::testing::TempDir();
  {
    FILE* f = std::fopen((dir + "/hpp.toy").c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("linear 4 2\n", f);
    std::fclose(f);
  }
  rxt::abi::Module module = rxt::abi::Module::Import(dir + "/hpp.toy", "", dir + "/hpp.safetensors", context.get());
  EXPECT_NE(module.Print().find("linear("), std::string::npos);
  module.Export(dir + "/hpp.listing", dir + "/hpp.safetensors", "", "", context.get());
  EXPECT_THROW(module.Export(dir + "/hpp.listing", "", "", "", context.get()), rxt::abi::Error);  // no values
  EXPECT_THROW(rxt::abi::Module::Import(dir + "/missing.toy", "", "", context.get()), rxt::abi::Error);
}
