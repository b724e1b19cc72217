// Kernel libraries as plugin items (rxt_library_t; core/src/plugin/item_staging.cc,
// kernel_library.cc): listed like every item, provided to LegalizeLibraryCalls by the host, and
// refused at load when a pattern is malformed or names an op the registry does not know.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "rxt/plugin/plugin_host.h"
#include "rxt/transform/legalize/library_patterns.h"

namespace rxt {
namespace {

rxt_status_t NoRewrite(void*, const rxt_ir_api_t*, rxt_ir_builder_t*, const rxt_library_match_t*,
                       rxt_library_rewrite_t*) {
  return nullptr;
}

const char* const kBiasRelu[] = {"add", "nn.relu", nullptr};
const char* const kTransposes[] = {"permute_dims", nullptr};
const rxt_library_pattern_t kDense = {sizeof(rxt_library_pattern_t), "lib_a.dense", "matmul", kBiasRelu, kTransposes,
                                      nullptr, &NoRewrite};
const rxt_library_pattern_t kConv = {sizeof(rxt_library_pattern_t), "lib_a.conv", "nn.conv2d", nullptr, nullptr,
                                     nullptr, &NoRewrite};
const rxt_library_pattern_t* const kPatterns[] = {&kDense, &kConv};
const rxt_library_t kLibraryA = {sizeof(rxt_library_t), "lib_a", "A library (test).", nullptr, kPatterns, 2};
const rxt_library_t* const kLibraries[] = {&kLibraryA};

rxt_plugin_descriptor_t Descriptor(const char* name) {
  rxt_plugin_descriptor_t d{};
  d.struct_size = sizeof(d);
  d.abi_version = RXT_PLUGIN_ABI_VERSION;
  d.name = name;
  return d;
}

const rxt_plugin_descriptor_t* LibraryEntry(uint32_t, const rxt_host_api_t*) {
  static rxt_plugin_descriptor_t d = [] {
    rxt_plugin_descriptor_t d = Descriptor("with_library");
    d.libraries = kLibraries;
    d.num_libraries = 1;
    return d;
  }();
  return &d;
}

/// |entry| must fail to load with |code| and exactly |message| after "plugin <name>: ".
void ExpectLoadError(PluginHost& host, const std::string& name, rxt_plugin_entry_fn_t entry, ErrorCode code,
                     const std::string& message) {
  try {
    host.LoadLinked(name, entry);
    ADD_FAILURE() << name << " loaded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_EQ(std::string(e.what()), "plugin " + name + ": " + message);
  }
  EXPECT_TRUE(host.Plugins().empty());
  EXPECT_TRUE(host.Items(PluginItemKind::kLibrary).empty());
}

TEST(LibraryPlugin, ALibraryIsAnItemTheHostProvidesToTheBuild) {
  PluginHost host;
  PluginInfo info = host.LoadLinked("with_library", &LibraryEntry);
  EXPECT_EQ(info.items[size_t(PluginItemKind::kLibrary)], std::vector<std::string>{"lib_a"});
  EXPECT_EQ(host.Find(PluginItemKind::kLibrary, "lib_a")->summary, "A library (test).");
  std::vector<KernelLibrary> libraries = host.Libraries();
  ASSERT_EQ(libraries.size(), 1u);
  EXPECT_EQ(libraries[0].name, "lib_a");
  EXPECT_EQ(libraries[0].origin, "library 'lib_a' (plugin with_library)");
  ASSERT_EQ(libraries[0].patterns.size(), 2u);
  EXPECT_EQ(libraries[0].patterns[0].name, "lib_a.dense");
  EXPECT_EQ(libraries[0].patterns[0].anchor, "matmul");
  EXPECT_EQ(libraries[0].patterns[0].epilogue, (std::vector<std::string>{"add", "nn.relu"}));
  EXPECT_EQ(libraries[0].patterns[0].input_ops, std::vector<std::string>{"permute_dims"});
  EXPECT_TRUE(libraries[0].patterns[0].sibling_ops.empty());
  EXPECT_EQ(LibrariesTaking("matmul", host), std::vector<std::string>{"lib_a"});
  EXPECT_EQ(LibrariesTaking("nn.conv2d", host), std::vector<std::string>{"lib_a"});
  EXPECT_TRUE(LibrariesTaking("add", host).empty());  // absorbed, not anchored
  EXPECT_TRUE(LibrariesTaking("matmul", PluginHost()).empty());
}

TEST(LibraryPlugin, ALibraryNameIsUniqueAcrossPlugins) {
  PluginHost host;
  host.LoadLinked("with_library", &LibraryEntry);
  try {
    host.LoadLinked("with_library_again", [](uint32_t, const rxt_host_api_t*) {
      static rxt_plugin_descriptor_t d = [] {
        rxt_plugin_descriptor_t d = Descriptor("also_with_library");
        d.libraries = kLibraries;
        d.num_libraries = 1;
        return d;
      }();
      return static_cast<const rxt_plugin_descriptor_t*>(&d);
    });
    FAIL() << "a library name was taken twice";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kAlreadyExists) << e.what();
    EXPECT_NE(std::string(e.what()).find("library 'lib_a' is already provided by plugin 'with_library'"),
              std::string::npos)
        << e.what();
  }
}

// A pattern's ops are checked like a gradient rule's op: at load, with the closest name.
const char* const kTypos[] = {"add", "nn.rleu", nullptr};
const rxt_library_pattern_t kTypoAnchor = {sizeof(rxt_library_pattern_t), "typo.anchor", "matmull", nullptr,
                                           nullptr, nullptr, &NoRewrite};
const rxt_library_pattern_t kTypoEpilogue = {sizeof(rxt_library_pattern_t), "typo.epilogue", "matmul", kTypos,
                                             nullptr, nullptr, &NoRewrite};
const rxt_library_pattern_t* const kTypoPatterns[] = {&kTypoAnchor, &kTypoEpilogue};
const rxt_library_t kTypoLibrary = {sizeof(rxt_library_t), "typo_lib", nullptr, nullptr, kTypoPatterns, 2};

TEST(LibraryPlugin, APatternNamingAnUnknownOpIsRefusedWithTheClosestName) {
  PluginHost host;
  ExpectLoadError(host, "typos", [](uint32_t, const rxt_host_api_t* api) {
                    api->status_free(api->register_library(api->host, &kTypoLibrary));
                    static rxt_plugin_descriptor_t d = Descriptor("typos");
                    return static_cast<const rxt_plugin_descriptor_t*>(&d);
                  },
                  ErrorCode::kNotFound,
                  "library 'typo_lib': pattern 'typo.anchor' names an unknown op 'matmull' (did you mean 'matmul'?); "
                  "library 'typo_lib': pattern 'typo.epilogue' names an unknown op 'nn.rleu' (did you mean "
                  "'nn.relu'?)");
}

// Malformed libraries, each registered by a call that returns the problem to the plugin too.
const rxt_library_pattern_t kNoRewrite = {sizeof(rxt_library_pattern_t), "p.no_rewrite", "matmul", nullptr, nullptr,
                                          nullptr, nullptr};
const rxt_library_pattern_t kNoAnchor = {sizeof(rxt_library_pattern_t), "p.no_anchor", nullptr, nullptr, nullptr,
                                         nullptr, &NoRewrite};
const rxt_library_pattern_t kSmall = {offsetof(rxt_library_pattern_t, rewrite), "p.small", "matmul", nullptr,
                                      nullptr, nullptr, &NoRewrite};
const rxt_library_pattern_t* const kNullPattern[] = {nullptr};
const rxt_library_pattern_t* const kNoRewritePatterns[] = {&kNoRewrite};
const rxt_library_pattern_t* const kNoAnchorPatterns[] = {&kNoAnchor};
const rxt_library_pattern_t* const kSmallPatterns[] = {&kSmall};
const rxt_library_t kBadLibraries[] = {
    {sizeof(rxt_library_t), "null_pattern", nullptr, nullptr, kNullPattern, 1},
    {sizeof(rxt_library_t), "no_rewrite", nullptr, nullptr, kNoRewritePatterns, 1},
    {sizeof(rxt_library_t), "no_anchor", nullptr, nullptr, kNoAnchorPatterns, 1},
    {sizeof(rxt_library_t), "small_pattern", nullptr, nullptr, kSmallPatterns, 1},
    {sizeof(rxt_library_t), "no_array", nullptr, nullptr, nullptr, 2},
    {offsetof(rxt_library_t, num_patterns), "small", nullptr, nullptr, nullptr, 0},
    {sizeof(rxt_library_t), nullptr, nullptr, nullptr, nullptr, 0},
};
std::vector<std::string> g_messages;

TEST(LibraryPlugin, AMalformedLibraryIsRefusedNamingTheProblem) {
  PluginHost host;
  ExpectLoadError(host, "bad_libraries", [](uint32_t, const rxt_host_api_t* api) {
                    for (const rxt_library_t& library : kBadLibraries) {
                      rxt_status_t status = api->register_library(api->host, &library);
                      g_messages.push_back(api->status_message(status));
                      api->status_free(status);
                    }
                    static rxt_plugin_descriptor_t d = Descriptor("bad_libraries");
                    return static_cast<const rxt_plugin_descriptor_t*>(&d);
                  },
                  ErrorCode::kInvalidArgument,
                  "library 'null_pattern' has a null pattern (#0); library 'no_rewrite' has pattern 'p.no_rewrite' "
                  "without rewrite; library 'no_anchor' has pattern 'p.no_anchor' without an anchor op; library "
                  "'small_pattern' has a pattern (#0) whose struct_size (48) is too small (at least 56); library "
                  "'no_array' lists 2 pattern(s) but no array; registers a library whose struct_size (40) is too small "
                  "(at least 48); registers a library without a name");
  ASSERT_EQ(g_messages.size(), 7u);
  EXPECT_EQ(g_messages[1], "library 'no_rewrite' has pattern 'p.no_rewrite' without rewrite");
}

// After the entry point, registering is over: the plugin learns it from the status.
const rxt_host_api_t* g_api = nullptr;

TEST(LibraryPlugin, ALibraryRegisteredAfterTheEntryPointIsRefused) {
  PluginHost host;
  host.LoadLinked("keeps_api", [](uint32_t, const rxt_host_api_t* api) {
    g_api = api;
    static rxt_plugin_descriptor_t d = Descriptor("keeps_api");
    return static_cast<const rxt_plugin_descriptor_t*>(&d);
  });
  ASSERT_TRUE(RXT_HOST_API_HAS(g_api, register_library));
  rxt_status_t status = g_api->register_library(g_api->host, &kLibraryA);
  EXPECT_EQ(g_api->status_code(status), RXT_FAILED_PRECONDITION);
  g_api->status_free(status);
  EXPECT_TRUE(host.Items(PluginItemKind::kLibrary).empty());
}

// A descriptor compiled before the library members were appended is read without them.
TEST(LibraryPlugin, ADescriptorWithoutTheLibraryMembersStillLoads) {
  PluginHost host;
  host.LoadLinked("older", [](uint32_t, const rxt_host_api_t*) {
    static rxt_plugin_descriptor_t d = [] {
      rxt_plugin_descriptor_t d = Descriptor("older");
      d.struct_size = offsetof(rxt_plugin_descriptor_t, libraries);
      d.libraries = reinterpret_cast<const rxt_library_t* const*>(uintptr_t{0xdead});  // never read
      d.num_libraries = 7;
      return d;
    }();
    return static_cast<const rxt_plugin_descriptor_t*>(&d);
  });
  EXPECT_EQ(host.Plugins().size(), 1u);
  EXPECT_TRUE(host.Libraries().empty());
}

}  // namespace
}  // namespace rxt
