// The pass tests: IR text in, expected IR text out. Every file
// tests/data/passes/<PassName>/<case>.rxt holds
//
//   # what the case shows (comments)
//   # passes: Normalize, DeadCodeElimination     (optional; default: the folder's pass)
//   # options: {"ConvertToDataflow.min_size" = 3} (optional; values in attribute syntax)
//   # plugins: test_grad_rules                    (optional; test fixtures or plugins to load first)
//   <input module>
//   # ---- expected ----
//   <expected module>
//
// or, for a pass that must refuse its input, `# ---- expected error ----` followed by
// a comment line holding a piece of the error message. The passes run with the well-formed
// check after each, so every case also checks that the output is well formed.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "rxt/ir/equality.h"
#include "rxt/ir/parser.h"
#include "rxt/ir/printer.h"
#include "rxt/plugin/plugin_host.h"
#include "rxt/transform/passes.h"
#include "test_util/test_files.h"

namespace rxt {
namespace {

using test::FilesWithExtension;
using test::ReadFile;

namespace fs = std::filesystem;

const std::string kExpectedMarker = "# ---- expected ----";
const std::string kErrorMarker = "# ---- expected error ----";

struct PassCase {
  std::string pass;  // the folder
  std::string name;  // the file, without .rxt
  std::string path;
};

// Names the case in gtest's messages (instead of a byte dump).
void PrintTo(const PassCase& c, std::ostream* os) { *os << c.path; }

std::vector<PassCase> DiscoverCases() {
  std::vector<PassCase> cases;
  fs::path root = fs::path(RXT_TEST_DATA_DIR) / "passes";
  if (!fs::is_directory(root)) return cases;
  for (const auto& dir : fs::directory_iterator(root)) {
    if (!dir.is_directory()) continue;
    for (const auto& file : fs::directory_iterator(dir.path())) {
      if (file.path().extension() != ".rxt") continue;
      cases.push_back({dir.path().filename().string(), file.path().stem().string(), file.path().string()});
    }
  }
  std::sort(cases.begin(), cases.end(), [](const PassCase& a, const PassCase& b) { return a.path < b.path; });
  return cases;
}

std::string Trim(std::string s) {
  size_t begin = s.find_first_not_of(" \t\r");
  size_t end = s.find_last_not_of(" \t\r");
  return begin == std::string::npos ? "" : s.substr(begin, end - begin + 1);
}

/// The value of a "# key: value" directive line of |text|, or "".
std::string Directive(const std::string& text, const std::string& key) {
  std::istringstream lines(text);
  const std::string prefix = "# " + key + ":";
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(prefix, 0) == 0) return Trim(line.substr(prefix.size()));
  }
  return "";
}

std::vector<std::string> SplitNames(const std::string& list) {
  std::vector<std::string> names;
  std::stringstream ss(list);
  for (std::string name; std::getline(ss, name, ',');) {
    if (!Trim(name).empty()) names.push_back(Trim(name));
  }
  return names;
}

class PassCaseTest : public testing::TestWithParam<PassCase> {};

TEST_P(PassCaseTest, GivesTheExpectedModule) {
  const PassCase& c = GetParam();
  std::string text = ReadFile(c.path);
  size_t expected_at = text.find(kExpectedMarker);
  size_t error_at = text.find(kErrorMarker);
  ASSERT_TRUE(expected_at != std::string::npos || error_at != std::string::npos)
      << c.path << ": no '" << kExpectedMarker << "' or '" << kErrorMarker << "' line";
  bool expects_error = error_at != std::string::npos;
  size_t split = expects_error ? error_at : expected_at;
  std::string input_text = text.substr(0, split);
  std::string expected_text = text.substr(split + (expects_error ? kErrorMarker : kExpectedMarker).size());

  std::vector<std::string> passes = SplitNames(Directive(input_text, "passes"));
  if (passes.empty()) passes.push_back(c.pass);
  PassContext ctx;
  ctx.verify_well_formed_after_each = true;
  if (std::string options = Directive(input_text, "options"); !options.empty()) {
    IRModule holder = ParseModule("attributes " + options, c.path + " (options)");
    for (const auto& [key, value] : holder.attrs.entries()) ctx.options[key] = value;
  }
  // Plugins the passes need (e.g. gradient rules, kernel libraries): the test fixtures
  // (tests/plugins), else the build's plugins (plugins/).
  for (const std::string& plugin : SplitNames(Directive(input_text, "plugins"))) {
    fs::path fixture = fs::path(RXT_TEST_IR_PLUGIN_DIR) / (plugin + ".so");
    PluginHost::Global().Load(fs::exists(fixture) ? fixture.string()
                                                  : (fs::path(RXT_PLUGIN_BUILD_DIR) / (plugin + ".so")).string());
  }
  IRModule input = ParseModule(input_text, c.path);

  if (expects_error) {
    std::string needle = Trim(Directive(expected_text + "\n", "error"));
    ASSERT_FALSE(needle.empty()) << c.path << ": the expected error needs a '# error: <part of the message>' line";
    try {
      IRModule out = RunPasses(input, passes, ctx);
      FAIL() << c.path << ": expected an error containing '" << needle << "', got:\n" << PrintModule(out);
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
          << c.path << ": the error\n  " << e.what() << "\ndoes not contain\n  " << needle;
    }
    return;
  }
  IRModule expected = ParseModule(expected_text, c.path + " (expected)");
  IRModule actual = RunPasses(input, passes, ctx);
  EXPECT_TRUE(StructuralEqual(actual, expected)) << c.path << "\n---- actual ----\n"
                                                 << PrintModule(actual) << "---- expected ----\n"
                                                 << PrintModule(expected);
}

INSTANTIATE_TEST_SUITE_P(Data, PassCaseTest, testing::ValuesIn(DiscoverCases()),
                         [](const testing::TestParamInfo<PassCase>& info) {
                           std::string name = info.param.pass + "_" + info.param.name;
                           for (char& ch : name) {
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return name;
                         });

TEST(PassCases, EveryPassHasCases) {
  std::vector<PassCase> cases = DiscoverCases();
  for (const PassInfo& info : ListPasses()) {
    size_t count = std::count_if(cases.begin(), cases.end(), [&](const PassCase& c) { return c.pass == info.name; });
    EXPECT_GE(count, 2u) << "tests/data/passes/" << info.name << "/ needs cases";
  }
}

}  // namespace
}  // namespace rxt
