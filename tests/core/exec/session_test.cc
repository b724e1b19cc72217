// The build session's defaults (exec/session.h), with a host of its own and no search path,
// so nothing outside the test decides them.
#include "rxt/exec/session.h"

#include <gtest/gtest.h>

#include "rxt/ir/parser.h"

namespace rxt {
namespace {

ErrorCode CodeOf(const std::function<void()>& fn, std::string* message = nullptr) {
  try {
    fn();
  } catch (const Error& e) {
    if (message != nullptr) *message = e.what();
    return e.code();
  }
  return ErrorCode::kOk;
}

TEST(ParseLibraryList, NamesAreTrimmedAndNoneMeansNoLibrary) {
  EXPECT_EQ(ParseLibraryList("dnnl", "--library"), std::vector<std::string>{"dnnl"});
  EXPECT_EQ(ParseLibraryList(" dnnl , other", "--library"), (std::vector<std::string>{"dnnl", "other"}));
  EXPECT_TRUE(ParseLibraryList("none", "--library").empty());
}

TEST(ParseLibraryList, AnEmptyNameOrNoneAmongLibrariesIsAnErrorNamingTheOption) {
  std::string message;
  EXPECT_EQ(CodeOf([] { ParseLibraryList("dnnl,", "options.libraries"); }, &message), ErrorCode::kInvalidArgument);
  EXPECT_EQ(message, "options.libraries 'dnnl,' has an empty name");
  EXPECT_EQ(CodeOf([] { ParseLibraryList("", "--library"); }), ErrorCode::kInvalidArgument);
  EXPECT_EQ(CodeOf([] { ParseLibraryList("none,dnnl", "--library"); }, &message), ErrorCode::kInvalidArgument);
  EXPECT_NE(message.find("'none' cannot be combined"), std::string::npos) << message;
}

TEST(Session, WithoutACpuBackendTheDefaultIsTheReferenceInterpreterAndItSaysSo) {
  PluginHost host;  // nothing loaded
  Session session({.search_path = false}, host);
  BuildOptions build = session.Resolve({});
  EXPECT_EQ(build.backend, "reference");
  EXPECT_TRUE(build.libraries.empty());  // the reference backend prefers none
  EXPECT_EQ(build.opt_level, 2);
  ASSERT_EQ(session.notes().size(), 1u);
  EXPECT_NE(session.notes()[0].find("no cpu backend is loaded"), std::string::npos) << session.notes()[0];
}

const std::string kTestLibrary = std::string(RXT_TEST_IR_PLUGIN_DIR) + "/test_library.so";

// The fixture's backends prefer its library test_lib (and one nobody provides).
TEST(Session, ByDefaultABuildUsesTheLibrariesItsBackendPrefersThatAreLoaded) {
  PluginHost host;
  host.Load(kTestLibrary);
  EXPECT_EQ(host.PreferredLibraries("test_lib_backend"), std::vector<std::string>{"test_lib"});
  EXPECT_EQ(ChooseLibraries("test_lib_backend", {}, host), std::vector<std::string>{"test_lib"});
  EXPECT_TRUE(ChooseLibraries("test_lib_backend", {"none"}, host).empty());
  EXPECT_TRUE(ChooseLibraries("no_such_backend", {}, host).empty());
  Session session({.search_path = false}, host);
  BuildOptions build = session.Resolve({.backend = "test_lib_backend"});
  EXPECT_EQ(build.libraries, std::vector<std::string>{"test_lib"});
  EXPECT_EQ(build.library_provider, &host);  // the patterns come from the session's plugins
  EXPECT_TRUE(session.notes().empty());
  // One it prefers that no plugin provides: a note, and the build goes on without it.
  EXPECT_EQ(session.Resolve({.backend = "test_lib_backend_more"}).libraries, std::vector<std::string>{"test_lib"});
  ASSERT_EQ(session.notes().size(), 1u);
  EXPECT_EQ(session.notes()[0], "kernel library 'missing_lib' is not loaded: using generated kernels only");
  // Asked for none.
  BuildRequest none{.backend = "test_lib_backend", .libraries = std::vector<std::string>{}};
  EXPECT_TRUE(session.Resolve(none).libraries.empty());
}

TEST(Session, ALibraryAskedForMustBeProvidedByALoadedPlugin) {
  PluginHost host;
  host.Load(kTestLibrary);
  Session session({.search_path = false}, host);
  EXPECT_EQ(session.Resolve({.backend = "reference", .libraries = std::vector<std::string>{"test_lib"}}).libraries,
            std::vector<std::string>{"test_lib"});
  std::string message;
  EXPECT_EQ(CodeOf([&] { session.Resolve({.backend = "reference", .libraries = std::vector<std::string>{"mkl"}}); },
                   &message),
            ErrorCode::kNotFound);
  EXPECT_EQ(message,
            "no kernel library 'mkl' is loaded (loaded libraries: test_lib); load the plugin that provides it");
  PluginHost empty;
  Session bare({.search_path = false}, empty);
  EXPECT_EQ(CodeOf([&] { bare.Resolve({.backend = "cpu", .libraries = std::vector<std::string>{"dnnl"}}); }, &message),
            ErrorCode::kNotFound);
  EXPECT_EQ(message,
            "no kernel library 'dnnl' is loaded (no loaded plugin provides one); load the plugin that provides it");
}

TEST(Session, AnOptLevelOutOfRangeIsRefused) {
  PluginHost host;
  Session session({.search_path = false}, host);
  EXPECT_EQ(CodeOf([&] { session.Resolve({.backend = "reference", .opt_level = 4}); }), ErrorCode::kInvalidArgument);
  EXPECT_EQ(CodeOf([&] { session.Resolve({.backend = "reference", .opt_level = -1}); }), ErrorCode::kInvalidArgument);
}

TEST(Session, ABackboneNeedsALossAndAnOptimizer) {
  PluginHost host;
  Session session({.search_path = false}, host);
  IRModule backbone = ParseModule(R"(
attributes {param_num = 1, state_num = 0}
def @backbone(%x: Tensor((2, 3), float32), %w: Tensor((3, 4), float32)) -> Tensor((2, 4), float32) {
  %y = matmul(%x, %w)
  return %y
}
)");
  std::string message;
  EXPECT_EQ(CodeOf([&] { session.CreateTrainer(backbone, {.build = {.backend = "reference"}}); }, &message),
            ErrorCode::kInvalidArgument);
  EXPECT_NE(message.find("a backbone module needs a loss and an optimizer"), std::string::npos) << message;
}

TEST(Session, KernelsForAnExecutableNeedItsBackendLoaded) {
  PluginHost host;
  Session session({.search_path = false}, host);
  Executable exec;
  exec.backend = "nowhere";
  EXPECT_EQ(CodeOf([&] { session.KernelsFor(exec); }), ErrorCode::kNotFound);
}

}  // namespace
}  // namespace rxt
