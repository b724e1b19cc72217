// Session::SaveTrainer and Session::LoadTrainer (core/src/exec/session.cc): a trainer built on
// the cpu backend, saved with its kernels compiled ahead of time, loads in a session that has no
// backend at all and goes on bit for bit like the trainer it came from; the plugin of its
// extern functions (dnnl's matmul) is found by name.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "core/train/trainer_fixture.h"
#include "rxt/exec/session.h"
#include "rxt/ir/parser.h"
#include "rxt/train/trainer_file.h"

namespace rxt {
namespace {

namespace fs = std::filesystem;

std::string Plugin(const std::string& name) { return std::string(RXT_BUILD_PLUGIN_DIR) + "/" + name + ".so"; }

bool CpuBackendBuilt() { return std::string(RXT_EXPECTED_BACKENDS).find("cpu") != std::string::npos; }

class SessionTrainerFile : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!CpuBackendBuilt()) GTEST_SKIP() << "the cpu backend is not built (no LLVM)";
    dir_ = fs::temp_directory_path() / ("rxt_session_trainer_file_" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path dir_;
};

TEST_F(SessionTrainerFile, LoadsWithoutABackendAndGoesOnBitForBit) {
  PluginHost build_host;
  Session build({.plugins = {Plugin("rxt_backend_cpu"), Plugin("rxt_grad_std"), Plugin("rxt_loss_std"),
                             Plugin("rxt_optim_std"), Plugin("rxt_lib_dnnl")},
                 .search_path = false},
                build_host);
  std::unique_ptr<Trainer> trainer =
      build.CreateTrainer(ParseModule(test::kLinearBackbone),
                          {.build = {.backend = "cpu"}, .loss = {"mse", ""}, .optimizer = {"momentum", "lr=0.05, momentum=0.9"}});
  ASSERT_FALSE(trainer->program().executable.externs.empty()) << "expected dnnl's matmul among the kernels";
  trainer->InitXavierUniform(4);
  Tensor x = test::SampleInputs(), y = test::SampleTargets();
  trainer->Update({x}, {y});
  const std::string path = (dir_ / "linear.rxtt").string();
  build.SaveTrainer(*trainer, path);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1) << "a temporary file was left";
  TrainerFile file = LoadTrainerFile(path);
  EXPECT_FALSE(file.kernel_library.empty());
  for (const KernelRecord& k : file.program.executable.kernels) EXPECT_FALSE(k.aot_symbol.empty()) << k.name;

  // A session with no backend and no search path: the kernels must come from the file, the
  // extern functions from dnnl's plugin, found by its name on RXT_PLUGIN_PATH.
  setenv("RXT_PLUGIN_PATH", RXT_BUILD_PLUGIN_DIR, 1);
  PluginHost run_host;
  Session run({}, run_host);
  std::unique_ptr<Trainer> loaded = run.LoadTrainer(path);
  unsetenv("RXT_PLUGIN_PATH");
  EXPECT_EQ(run_host.Items(PluginItemKind::kBackend).size(), 0u) << "a backend plugin was loaded";
  EXPECT_EQ(loaded->step(), 1);
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(trainer->Update({x}, {y}).BitwiseEqual(loaded->Update({x}, {y}))) << "update " << i;
  }
  for (int i = 0; i < trainer->param_num(); ++i) EXPECT_TRUE(trainer->param(i).BitwiseEqual(loaded->param(i)));
}

// Each trainer file's kernel library is loaded from an in-memory file; two of them alive at once
// must each run their own kernels (the loader knows a library by its path, /proc/self/fd/N:
// once a number was reused for the second file, which then ran the first one's kernels).
TEST_F(SessionTrainerFile, TwoTrainerFilesInOneProcessRunTheirOwnKernels) {
  PluginHost host;
  Session session({.plugins = {Plugin("rxt_backend_cpu"), Plugin("rxt_grad_std"), Plugin("rxt_loss_std"),
                               Plugin("rxt_optim_std"), Plugin("rxt_lib_dnnl")},
                   .search_path = false},
                  host);
  std::string wide = test::kLinearBackbone;
  for (auto [from, to] : {std::pair<std::string, std::string>{"(3, 2)", "(3, 5)"}, {"(2,)", "(5,)"}, {"(4, 2)", "(4, 5)"}}) {
    for (size_t at = wide.find(from); at != std::string::npos; at = wide.find(from, at)) wide.replace(at, from.size(), to);
  }
  std::vector<std::string> paths;
  std::vector<std::unique_ptr<Trainer>> built;
  for (const std::string& text : {std::string(test::kLinearBackbone), wide}) {
    built.push_back(session.CreateTrainer(ParseModule(text), {.build = {.backend = "cpu"}, .loss = {"mse", ""},
                                                              .optimizer = {"sgd", "lr=0.05"}}));
    built.back()->InitXavierUniform(2);
    paths.push_back((dir_ / StrCat("linear", paths.size(), ".rxtt")).string());
    session.SaveTrainer(*built.back(), paths.back());
  }
  // Both open at once, then the first closed and a third opened (its descriptor's number free again).
  std::unique_ptr<Trainer> narrow = session.LoadTrainer(paths[0]);
  std::unique_ptr<Trainer> wider = session.LoadTrainer(paths[1]);
  Tensor x = test::SampleInputs();
  Tensor y2 = test::SampleTargets(), y5 = test::Ramp({4, 5}, 0.1f, 0.02f);
  EXPECT_TRUE(built[0]->Update({x}, {y2}).BitwiseEqual(narrow->Update({x}, {y2})));
  EXPECT_TRUE(built[1]->Update({x}, {y5}).BitwiseEqual(wider->Update({x}, {y5})));
  narrow.reset();
  std::unique_ptr<Trainer> again = session.LoadTrainer(paths[0]);
  EXPECT_TRUE(built[1]->Update({x}, {y5}).BitwiseEqual(wider->Update({x}, {y5})));
  EXPECT_EQ(again->Predict({x})[0].shape(), (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(wider->Predict({x})[0].shape(), (std::vector<int64_t>{4, 5}));
}

TEST_F(SessionTrainerFile, AReferenceTrainerIsSavedWithoutALibraryAndCompilesWhereLoaded) {
  PluginHost host;
  Session session({.plugins = {Plugin("rxt_backend_reference"), Plugin("rxt_grad_std"), Plugin("rxt_loss_std"),
                               Plugin("rxt_optim_std")},
                   .search_path = false},
                  host);
  std::unique_ptr<Trainer> trainer = session.CreateTrainer(
      ParseModule(test::kLinearBackbone),
      {.build = {.backend = "reference"}, .loss = {"mse", ""}, .optimizer = {"sgd", "lr=0.05"}});
  const std::string path = (dir_ / "linear_reference.rxtt").string();
  session.SaveTrainer(*trainer, path);
  EXPECT_TRUE(LoadTrainerFile(path).kernel_library.empty());
  std::unique_ptr<Trainer> loaded = session.LoadTrainer(path);
  Tensor x = test::SampleInputs(), y = test::SampleTargets();
  EXPECT_TRUE(trainer->Update({x}, {y}).BitwiseEqual(loaded->Update({x}, {y})));
}

}  // namespace
}  // namespace rxt
