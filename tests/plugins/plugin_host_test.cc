// The plugin host loading the test plugins of tests/plugins/fixtures: what a good plugin
// provides, and every way a file fails to be a plugin leaving the host working.
#include "rxt/plugin/plugin_host.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "rxt/ir/op.h"
#include "rxt/runtime/dlpack.h"
#include "rxt/runtime/extern.h"
#include "rxt/runtime/thread_pool.h"
#include "rxt/support/c_status.h"

namespace rxt {
namespace {

namespace fs = std::filesystem;

const std::string kFixtures = RXT_TEST_PLUGIN_DIR;
const std::string kGood = kFixtures + "/search/test_good.so";
const std::string kOther = kFixtures + "/search/test_other.so";
std::string Bad(const std::string& name) { return kFixtures + "/bad/" + name + ".so"; }

struct LogLine {
  rxt_log_level_t level;
  std::string plugin, message;
};

class PluginHostTest : public ::testing::Test {
 protected:
  void SetUp() override {
    log_ = std::make_shared<std::vector<LogLine>>();
    auto log = log_;
    host_.SetLogSink([log](rxt_log_level_t level, const std::string& plugin, const std::string& message) {
      log->push_back({level, plugin, message});
    });
  }

  /// Loading |path| fails with |code| and a message naming the file and containing |problem|.
  void ExpectLoadError(const std::string& path, ErrorCode code, const std::string& problem) {
    try {
      host_.Load(path);
      FAIL() << "loading " << path << " should fail";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), code) << e.what();
      EXPECT_NE(std::string(e.what()).find(fs::path(path).filename().string()), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(problem), std::string::npos) << e.what();
    }
  }

  size_t ItemCount() const {
    size_t count = 0;
    for (PluginItemKind kind : kAllPluginItemKinds) count += host_.Items(kind).size();
    return count;
  }

  PluginHost host_;
  std::shared_ptr<std::vector<LogLine>> log_;
};

/// Whether |path| is mapped in the process (without loading it).
bool IsLoaded(const std::string& path) {
  void* handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return false;
  dlclose(handle);
  return true;
}

TEST_F(PluginHostTest, LoadsAGoodPluginWithEverythingItProvides) {
  PluginInfo info = host_.Load(kGood);
  EXPECT_EQ(info.name, "test_good");
  EXPECT_EQ(info.version, "1.2.3");
  EXPECT_EQ(info.summary, "A plugin for the tests.");
  EXPECT_EQ(info.abi_version, uint32_t{RXT_PLUGIN_ABI_VERSION});
  EXPECT_EQ(info.path, fs::canonical(kGood).string());
  // Items registered by a call come first, then the descriptor's lists.
  EXPECT_EQ(info.items[size_t(PluginItemKind::kOptimizer)], (std::vector<std::string>{"test_sgd", "test_momentum"}));
  EXPECT_EQ(info.items[size_t(PluginItemKind::kLoss)], (std::vector<std::string>{"test_l2"}));
  EXPECT_EQ(info.items[size_t(PluginItemKind::kGradient)], (std::vector<std::string>{"argmax"}));
  EXPECT_EQ(info.items[size_t(PluginItemKind::kBackend)], (std::vector<std::string>{"test_cpu"}));

  std::vector<PluginItem> optimizers = host_.Items(PluginItemKind::kOptimizer);
  ASSERT_EQ(optimizers.size(), 2u);
  EXPECT_EQ(optimizers[0].name, "test_momentum");  // sorted by name
  EXPECT_EQ(optimizers[1].name, "test_sgd");
  EXPECT_EQ(optimizers[1].summary, "Plain SGD (test).");
  EXPECT_EQ(optimizers[1].plugin, "test_good");

  // Each item is its vtable: its state and build function reach the plugin.
  std::optional<PluginItem> momentum = host_.Find(PluginItemKind::kOptimizer, "test_momentum");
  ASSERT_TRUE(momentum.has_value());
  ASSERT_NE(momentum->optimizer, nullptr);
  EXPECT_EQ(momentum->loss, nullptr);
  ASSERT_NE(momentum->optimizer->state, nullptr);
  EXPECT_EQ(*static_cast<const int*>(momentum->optimizer->state), 7);
  CStatusPtr answer(momentum->optimizer->build(momentum->optimizer->state, nullptr, nullptr, nullptr, nullptr, nullptr,
                                               0, nullptr));
  ASSERT_NE(answer, nullptr);  // a status of the host's status_create
  EXPECT_EQ(answer->code, RXT_OUT_OF_RANGE);
  EXPECT_EQ(answer->message, "7");
  EXPECT_EQ(host_.Find(PluginItemKind::kBackend, "test_cpu")->summary, "A backend (test).");
  EXPECT_FALSE(host_.Find(PluginItemKind::kLoss, "test_sgd").has_value());  // names are per kind

  ASSERT_EQ(log_->size(), 1u);
  EXPECT_EQ((*log_)[0].level, RXT_LOG_INFO);
  EXPECT_EQ((*log_)[0].plugin, "test_good.so");  // its name is known only once the entry returns
  EXPECT_EQ((*log_)[0].message, "test_good loading");
}

TEST_F(PluginHostTest, LoadingTheSameFileTwiceIsANoOp) {
  host_.Load(kGood);
  PluginInfo again = host_.Load(kFixtures + "/search/../search/test_good.so");
  EXPECT_EQ(again.name, "test_good");
  EXPECT_EQ(host_.Plugins().size(), 1u);
  EXPECT_EQ(ItemCount(), 5u);
}

TEST_F(PluginHostTest, ItemsKeepTheLibraryLoadedAfterTheHostIsGone) {
  std::optional<PluginItem> sgd;
  {
    PluginHost host;
    auto log = log_;
    host.SetLogSink([log](rxt_log_level_t level, const std::string& plugin, const std::string& message) {
      log->push_back({level, plugin, message});
    });
    host.Load(kGood);
    sgd = host.Find(PluginItemKind::kOptimizer, "test_sgd");
  }
  ASSERT_TRUE(sgd.has_value());
  ASSERT_TRUE(IsLoaded(kGood));
  // Its build function logs (allowed at any time, now under the plugin's name) and tries to
  // register after the entry point returned (refused, with a status).
  CStatusPtr refusal(sgd->optimizer->build(sgd->optimizer->state, nullptr, nullptr, nullptr, nullptr, nullptr, 0, nullptr));
  ASSERT_NE(refusal, nullptr);
  EXPECT_EQ(refusal->code, RXT_FAILED_PRECONDITION);
  EXPECT_NE(refusal->message.find("only during rxt_plugin_entry"), std::string::npos) << refusal->message;
  ASSERT_FALSE(log_->empty());
  EXPECT_EQ(log_->back().plugin, "test_good");
  EXPECT_EQ(log_->back().message, "late log from test_good");
  EXPECT_EQ(log_->back().level, RXT_LOG_WARNING);
  sgd.reset();
  EXPECT_FALSE(IsLoaded(kGood));
}

TEST_F(PluginHostTest, AMissingFileIsNotFound) {
  ExpectLoadError(kFixtures + "/no_such_plugin.so", ErrorCode::kNotFound, "no such file");
}

TEST_F(PluginHostTest, ADirectoryIsNotAPlugin) {
  ExpectLoadError(kFixtures + "/search", ErrorCode::kInvalidArgument, "not a regular file");
}

TEST_F(PluginHostTest, ATextFileRenamedSoIsNotASharedLibrary) {
  ExpectLoadError(Bad("not_a_library"), ErrorCode::kInvalidArgument, "not a shared library");
}

TEST_F(PluginHostTest, ALibraryWithoutTheEntryPointIsRejected) {
  ExpectLoadError(Bad("test_no_entry"), ErrorCode::kNotFound, "has no entry point 'rxt_plugin_entry'");
}

TEST_F(PluginHostTest, AnUnsupportedAbiVersionIsRejectedWithNothingRegistered) {
  ExpectLoadError(Bad("test_wrong_abi"), ErrorCode::kFailedPrecondition,
                  "speaks plugin ABI version 99, but this host supports 1 to 3");
  EXPECT_FALSE(host_.Find(PluginItemKind::kOptimizer, "test_from_the_future").has_value());
  EXPECT_TRUE(host_.Plugins().empty());
  EXPECT_FALSE(IsLoaded(Bad("test_wrong_abi")));  // closed again
}

TEST_F(PluginHostTest, ANameRegisteredTwiceWithinAPluginIsRejected) {
  ExpectLoadError(Bad("test_duplicate_within"), ErrorCode::kAlreadyExists, "registers loss 'test_twice' twice");
  EXPECT_EQ(ItemCount(), 0u);
}

TEST_F(PluginHostTest, ANameTakenByAnotherPluginIsRejectedWithNothingHalfRegistered) {
  host_.Load(kGood);
  ExpectLoadError(Bad("test_duplicate_across"), ErrorCode::kAlreadyExists,
                  "optimizer 'test_sgd' is already provided by plugin 'test_good'");
  EXPECT_FALSE(host_.Find(PluginItemKind::kLoss, "test_unique_loss").has_value());
  EXPECT_EQ(host_.Find(PluginItemKind::kOptimizer, "test_sgd")->plugin, "test_good");
  EXPECT_EQ(host_.Plugins().size(), 1u);
}

TEST_F(PluginHostTest, ADecliningPluginSaysWhy) {
  ExpectLoadError(Bad("test_declining"), ErrorCode::kFailedPrecondition, "declined to load: needs a GPU, none found");
  EXPECT_TRUE(host_.Plugins().empty());
}

TEST_F(PluginHostTest, ADescriptorWithoutANameIsRejected) {
  ExpectLoadError(Bad("test_nameless"), ErrorCode::kInvalidArgument, "descriptor without a name");
}

// Build functions for the linked plugins' vtables (never called).
rxt_status_t NoLoss(void*, const rxt_ir_api_t*, rxt_ir_builder_t*, const char*, rxt_ir_expr_t, rxt_ir_expr_t*) {
  return nullptr;
}
rxt_status_t NoGradient(void*, const rxt_ir_api_t*, rxt_ir_builder_t*, rxt_ir_expr_t, rxt_ir_expr_t, rxt_ir_expr_t,
                        rxt_ir_expr_t*) {
  return nullptr;
}

// A plugin linked into the program goes through the same checks as one loaded from a file.
const rxt_loss_t kLinkedL1 = {sizeof(rxt_loss_t), "linked_l1", "L1.", nullptr, &NoLoss};
const rxt_loss_t* const kLinkedLosses[] = {&kLinkedL1};
const rxt_plugin_descriptor_t kLinked = {sizeof(rxt_plugin_descriptor_t), RXT_PLUGIN_ABI_VERSION, "linked", "1.0", nullptr,
                                         nullptr, 0, kLinkedLosses, 1, nullptr, 0, nullptr, 0, nullptr, 0, nullptr, 0, nullptr, 0};
const rxt_plugin_descriptor_t* LinkedEntry(uint32_t, const rxt_host_api_t*) { return &kLinked; }
const rxt_plugin_descriptor_t* TooSmallEntry(uint32_t, const rxt_host_api_t*) {
  static rxt_plugin_descriptor_t small = kLinked;
  small.struct_size = offsetof(rxt_plugin_descriptor_t, num_losses);
  return &small;
}

TEST_F(PluginHostTest, ALinkedPluginIsCheckedAndRegisteredLikeALoadedOne) {
  PluginInfo info = host_.LoadLinked("linked_plugin", &LinkedEntry);
  EXPECT_EQ(info.name, "linked");
  EXPECT_EQ(info.path, "linked_plugin");
  ASSERT_TRUE(host_.Find(PluginItemKind::kLoss, "linked_l1").has_value());
  EXPECT_EQ(host_.LoadLinked("linked_plugin", &LinkedEntry).name, "linked");  // once only
  try {
    host_.LoadLinked("linked_again", &LinkedEntry);
    FAIL() << "a plugin name was loaded twice";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kAlreadyExists) << e.what();
  }
  try {
    host_.LoadLinked("too_small", &TooSmallEntry);
    FAIL() << "a descriptor without room for its lists was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument) << e.what();
    EXPECT_NE(std::string(e.what()).find("plugin too_small: returned a descriptor of"), std::string::npos) << e.what();
  }
  EXPECT_EQ(host_.Plugins().size(), 1u);
}

// Gradient rules become the FGradient attribute of their op, per host; a rule for an op the
// registry does not know is refused at load.
const rxt_gradient_rule_t kExpRule = {sizeof(rxt_gradient_rule_t), "exp", "exp.", nullptr, &NoGradient};
const rxt_gradient_rule_t kTypoRule = {sizeof(rxt_gradient_rule_t), "nn.rleu", "A typo.", nullptr, &NoGradient};
const rxt_gradient_rule_t* const kMisspeltRules[] = {&kExpRule, &kTypoRule};
const rxt_plugin_descriptor_t kMisspelt = {sizeof(rxt_plugin_descriptor_t), RXT_PLUGIN_ABI_VERSION, "misspelt", "1.0",
                                           nullptr, nullptr, 0, nullptr, 0, kMisspeltRules, 2, nullptr, 0, nullptr, 0, nullptr, 0, nullptr, 0};
const rxt_plugin_descriptor_t* MisspeltEntry(uint32_t, const rxt_host_api_t*) { return &kMisspelt; }

TEST_F(PluginHostTest, AGradientRuleForAnUnknownOpIsRefusedWithTheClosestName) {
  try {
    host_.LoadLinked("misspelt_plugin", &MisspeltEntry);
    FAIL() << "a rule for an unknown op was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotFound) << e.what();
    EXPECT_NE(std::string(e.what()).find("plugin misspelt_plugin: gradient rule for an unknown op 'nn.rleu' (did you "
                                         "mean 'nn.relu'?)"),
              std::string::npos)
        << e.what();
  }
  // Nothing of it stays: not the plugin, not its valid rule for exp.
  EXPECT_TRUE(host_.Plugins().empty());
  EXPECT_FALSE(OpRegistry::Global().Get("exp").GetOwned<FGradient>(host_.gradient_owner()).has_value());
}

TEST_F(PluginHostTest, GradientRulesAreTheirOpsAttributeOwnedByTheHostThatLoadedThem) {
  const OpDef& argmax = OpRegistry::Global().Get("argmax");
  PluginHost other;
  {
    PluginHost host;
    host.Load(kGood);  // provides a rule for argmax
    std::optional<FGradient> rule = argmax.GetOwned<FGradient>(host.gradient_owner());
    ASSERT_TRUE(rule.has_value());
    EXPECT_EQ(rule->plugin, "test_good");
    EXPECT_TRUE(rule->emit);
    EXPECT_EQ(rule->unusable, "");
    EXPECT_FALSE(argmax.GetOwned<FGradient>(other.gradient_owner()).has_value()) << "another host sees it";
  }
  // The host is gone: so is its rule (a new host at the same address must not inherit it).
  PluginHost later;
  EXPECT_FALSE(argmax.GetOwned<FGradient>(later.gradient_owner()).has_value());
}

// Found by fuzzing (plugin_descriptor, UBSan): the host read a level outside the enum's
// values as the enum, which C++ leaves undefined (and may optimize the range check away).
TEST_F(PluginHostTest, ALogLevelOutOfRangeIsLoggedAsAnError) {
  EXPECT_THROW(host_.Load(Bad("test_declining")), Error);
  ASSERT_EQ(log_->size(), 3u);
  EXPECT_EQ((*log_)[0].level, RXT_LOG_ERROR);
  EXPECT_EQ((*log_)[0].message, "level 7");
  EXPECT_EQ((*log_)[1].level, RXT_LOG_ERROR);
  EXPECT_EQ((*log_)[2].level, RXT_LOG_INFO);
}

TEST_F(PluginHostTest, TheHostKeepsWorkingAfterEveryKindOfFailure) {
  for (const char* bad : {"not_a_library", "test_no_entry", "test_wrong_abi", "test_duplicate_within",
                          "test_declining", "test_nameless"}) {
    EXPECT_THROW(host_.Load(Bad(bad)), Error) << bad;
  }
  EXPECT_EQ(host_.Load(kGood).name, "test_good");
  EXPECT_EQ(host_.Load(kOther).name, "test_other");
  EXPECT_EQ(host_.Plugins().size(), 2u);
  EXPECT_EQ(ItemCount(), 6u);
}

// The host table of ABI 3: statuses made by the host, read back and freed, as a plugin does.
const rxt_host_api_t* g_linked_api = nullptr;
const rxt_plugin_descriptor_t* KeepApiEntry(uint32_t, const rxt_host_api_t* api) {
  g_linked_api = api;
  return &kLinked;
}

TEST_F(PluginHostTest, TheHostTableMakesStatusesAPluginReadsAndFrees) {
  host_.LoadLinked("status_plugin", &KeepApiEntry);
  ASSERT_NE(g_linked_api, nullptr);
  const rxt_host_api_t& api = *g_linked_api;
  EXPECT_EQ(api.abi_version, uint32_t{RXT_PLUGIN_ABI_VERSION});
  ASSERT_TRUE(RXT_HOST_API_HAS(&api, register_extern));
  char message[] = "row 3 is out of range";
  rxt_status_t status = api.status_create(RXT_OUT_OF_RANGE, message);
  message[0] = 'X';  // copied
  EXPECT_EQ(api.status_code(status), RXT_OUT_OF_RANGE);
  EXPECT_STREQ(api.status_message(status), "row 3 is out of range");
  api.status_free(status);
  EXPECT_EQ(api.status_create(RXT_OK, "fine"), nullptr);  // success is NULL
  EXPECT_EQ(api.status_code(nullptr), RXT_OK);
  EXPECT_STREQ(api.status_message(nullptr), "");
  api.status_free(nullptr);
  status = api.status_create(static_cast<rxt_code_t>(42), nullptr);  // not a code: unknown
  EXPECT_EQ(api.status_code(status), RXT_UNKNOWN);
  EXPECT_STREQ(api.status_message(status), "");
  api.status_free(status);
}

// Vtables of ABI 3 without their functions, or too small, fail the load naming the problem.
const rxt_loss_t kNoBuild = {sizeof(rxt_loss_t), "no_build", nullptr, nullptr, nullptr};
const rxt_backend_t kTooSmall = {offsetof(rxt_backend_t, call_kernel), "small", nullptr, nullptr, nullptr, nullptr,
                                 nullptr, nullptr};
std::string g_register_message;
const rxt_plugin_descriptor_t* BadVTablesEntry(uint32_t, const rxt_host_api_t* api) {
  rxt_status_t status = api->register_loss(api->host, &kNoBuild);
  g_register_message = api->status_message(status);  // the plugin learns why, too
  api->status_free(status);
  api->status_free(api->register_backend(api->host, &kTooSmall));
  return &kLinked;
}

TEST_F(PluginHostTest, AVTableWithoutItsFunctionsIsRejected) {
  try {
    host_.LoadLinked("bad_vtables", &BadVTablesEntry);
    FAIL() << "bad vtables were accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument) << e.what();
    EXPECT_EQ(std::string(e.what()),
              "plugin bad_vtables: registers loss 'no_build' without build; registers a backend whose struct_size (40) "
              "is too small (at least 56)");
  }
  EXPECT_EQ(g_register_message, "registers loss 'no_build' without build");
  EXPECT_TRUE(host_.Plugins().empty());
  EXPECT_EQ(ItemCount(), 0u);
}

TEST_F(PluginHostTest, APluginOfAnOlderAbiVersionStillLoads) {
  PluginInfo info = host_.Load(kOther);  // speaks version 1
  EXPECT_EQ(info.abi_version, 1u);
  EXPECT_EQ(info.items[size_t(PluginItemKind::kOptimizer)], (std::vector<std::string>{"test_adam"}));
}

/// Sets RXT_PLUGIN_PATH for one test.
class ScopedPluginPath {
 public:
  explicit ScopedPluginPath(const std::string& value) {
    if (const char* old = getenv("RXT_PLUGIN_PATH")) old_ = old;
    setenv("RXT_PLUGIN_PATH", value.c_str(), 1);
  }
  ~ScopedPluginPath() {
    if (old_) {
      setenv("RXT_PLUGIN_PATH", old_->c_str(), 1);
    } else {
      unsetenv("RXT_PLUGIN_PATH");
    }
  }

 private:
  std::optional<std::string> old_;
};

TEST(PluginSearchPathTest, IsTheEnvironmentThenTheInstallDirectory) {
  ScopedPluginPath path("/first::/second:/first");
  std::vector<std::string> dirs = PluginHost::SearchPath();
  ASSERT_EQ(dirs.size(), 3u);
  EXPECT_EQ(dirs[0], "/first");
  EXPECT_EQ(dirs[1], "/second");
  // The install's plugin directory, relative to this test binary, never an absolute path
  // of the build machine.
  EXPECT_TRUE(dirs[2].ends_with("rxt/plugins")) << dirs[2];
  fs::path binary_dir = fs::canonical("/proc/self/exe").parent_path();
  EXPECT_TRUE(dirs[2].starts_with(binary_dir.parent_path().string())) << dirs[2];
}

TEST_F(PluginHostTest, LoadSearchPathLoadsEveryPluginOfEveryDirectory) {
  ScopedPluginPath path(kFixtures + "/search");
  std::vector<Error> failures = host_.LoadSearchPath();
  EXPECT_TRUE(failures.empty());
  ASSERT_EQ(host_.Plugins().size(), 2u);
  EXPECT_EQ(host_.Plugins()[0].name, "test_good");  // file name order
  EXPECT_EQ(host_.Plugins()[1].name, "test_other");
}

TEST_F(PluginHostTest, LoadSearchPathReportsEachBadFileAndKeepsTheGoodOnes) {
  ScopedPluginPath path(kFixtures + "/bad");
  std::vector<Error> failures = host_.LoadSearchPath();
  EXPECT_EQ(failures.size(), 6u);  // all but test_duplicate_across, which clashes with nobody here
  ASSERT_EQ(host_.Plugins().size(), 1u);
  EXPECT_EQ(host_.Plugins()[0].name, "test_duplicate_across");
}

TEST_F(PluginHostTest, AnEarlierSearchDirectoryShadowsTheSameFileNameLater) {
  fs::path temp = fs::temp_directory_path() / ("rxt_plugin_test_" + std::to_string(getpid()));
  fs::create_directories(temp / "first");
  fs::create_directories(temp / "second");
  fs::copy_file(kGood, temp / "first" / "test_good.so", fs::copy_options::overwrite_existing);
  fs::copy_file(kGood, temp / "second" / "test_good.so", fs::copy_options::overwrite_existing);
  fs::copy_file(kOther, temp / "second" / "test_other.so", fs::copy_options::overwrite_existing);
  {
    ScopedPluginPath path((temp / "first").string() + ":" + (temp / "second").string());
    std::vector<Error> failures = host_.LoadSearchPath();
    EXPECT_TRUE(failures.empty()) << failures.front().what();
    ASSERT_EQ(host_.Plugins().size(), 2u);
    EXPECT_EQ(host_.Plugins()[0].path, (temp / "first" / "test_good.so").string());
    EXPECT_EQ(host_.Plugins()[1].name, "test_other");
  }
  fs::remove_all(temp);
}

TEST(PluginItemKindTest, HasNames) {
  EXPECT_STREQ(PluginItemKindName(PluginItemKind::kOptimizer), "optimizer");
  EXPECT_STREQ(PluginItemKindName(PluginItemKind::kLoss), "loss");
  EXPECT_STREQ(PluginItemKindName(PluginItemKind::kGradient), "gradient");
  EXPECT_STREQ(PluginItemKindName(PluginItemKind::kBackend), "backend");
  EXPECT_STREQ(PluginItemKindName(PluginItemKind::kLibrary), "library");
}

}  // namespace
TEST_F(PluginHostTest, RegistersExternFunctionsAndHandsOverTheThreadPool) {
  host_.Load(kFixtures + "/externs/test_extern.so");
  ExternFunction twice = host_.externs().Find("test.double");
  ASSERT_TRUE(twice);
  Tensor x = Tensor::FromVector<float>({3}, DType::kFloat32, {1, 2, -4});
  Tensor y = Tensor::Empty({3}, DType::kFloat32);
  DLTensor views[2] = {ToDLTensorView(x), ToDLTensorView(y)};
  DLTensor* args[2] = {&views[0], &views[1]};
  twice(args, 2);
  EXPECT_EQ(y.data_as<float>()[2], -8.0f);
  // A failure comes back as an error with the plugin's message.
  try {
    twice(args, 1);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("takes 2 arguments, got 1"), std::string::npos) << e.what();
  }
  Tensor threads = Tensor::Empty({}, DType::kInt64);
  DLTensor view = ToDLTensorView(threads);
  DLTensor* out[1] = {&view};
  host_.externs().Find("test.num_threads")(out, 1);
  EXPECT_EQ(threads.data_as<int64_t>()[0], ThreadPool::Global().num_threads());
}

TEST_F(PluginHostTest, AnExternRegisteredTwiceFailsTheWholeLoad) {
  ExpectLoadError(kFixtures + "/externs/test_duplicate_extern.so", ErrorCode::kAlreadyExists,
                  "registers extern function 'test.dup' twice");
  EXPECT_FALSE(host_.externs().Find("test.dup"));
  EXPECT_TRUE(host_.Plugins().empty());
}

}  // namespace rxt
