// The text format's two properties, over every module file of the project:
//   parse(print(m)) is structurally equal to m, and
//   print(parse(print(m))) == print(m), byte for byte.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "rxt/ir/equality.h"
#include "rxt/ir/parser.h"
#include "rxt/ir/printer.h"
#include "rxt/ir/well_formed.h"
#include "test_util/test_files.h"

namespace rxt {
namespace {

using test::FilesWithExtension;
using test::ReadFile;

namespace fs = std::filesystem;

std::vector<fs::path> ModuleFiles() {
  std::vector<fs::path> files = FilesWithExtension(fs::path(RXT_SOURCE_DIR) / "examples", ".rxt");
  for (const auto& f : FilesWithExtension(fs::path(RXT_TEST_DATA_DIR) / "roundtrip", ".rxt")) files.push_back(f);
  return files;
}

class RoundTrip : public testing::TestWithParam<fs::path> {};

TEST_P(RoundTrip, PrintParsePrintIsStableAndStructurallyEqual) {
  const fs::path& path = GetParam();
  IRModule original = ParseModule(ReadFile(path), path.filename().string());
  const std::string printed = PrintModule(original);
  IRModule reparsed = ParseModule(printed, "printed.rxt");
  EXPECT_TRUE(StructuralEqual(original, reparsed)) << printed;
  EXPECT_EQ(StructuralHash(original), StructuralHash(reparsed));
  EXPECT_EQ(PrintModule(reparsed), printed);
}

TEST_P(RoundTrip, ModuleIsWellFormed) {
  const fs::path& path = GetParam();
  IRModule module = ParseModule(ReadFile(path), path.filename().string());
  std::string problems;
  for (const Diagnostic& d : CheckWellFormed(module)) problems += d.ToString() + "\n";
  EXPECT_EQ(problems, "");
}

INSTANTIATE_TEST_SUITE_P(ModuleFiles, RoundTrip, testing::ValuesIn(ModuleFiles()),
                         [](const testing::TestParamInfo<fs::path>& info) {
                           std::string name = info.param.parent_path().filename().string() + "_" +
                                              info.param.stem().string();
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

TEST(RoundTripCorpus, CoversTheExamplesAndAtLeastFifteenTestModules) {
  std::vector<fs::path> files = ModuleFiles();
  auto has = [&](const std::string& name) {
    return std::any_of(files.begin(), files.end(), [&](const fs::path& p) { return p.filename() == name; });
  };
  EXPECT_TRUE(has("mlp.rxt"));
  EXPECT_TRUE(has("my_module.rxt"));
  EXPECT_GE(FilesWithExtension(fs::path(RXT_TEST_DATA_DIR) / "roundtrip", ".rxt").size(), 15u);
}

// The seed modules keep their names and shapes through the text form.
TEST(RoundTripExamples, SeedModulesHaveTheSeedsNamesAndAttributes) {
  IRModule mlp = ParseModule(ReadFile(fs::path(RXT_SOURCE_DIR) / "examples" / "mlp.rxt"), "mlp.rxt");
  EXPECT_EQ(mlp.attrs.Get("param_num"), AttrValue(6));
  EXPECT_EQ(mlp.attrs.Get("state_num"), AttrValue(0));
  ASSERT_NE(mlp.FindFunction("backbone"), nullptr);
  EXPECT_EQ(mlp.GetFunction("backbone")->params.size(), 7u);
  EXPECT_EQ(ToString(mlp.GetFunction("backbone")->ret_sinfo), "Tensor((64, 10), float32)");

  IRModule my_module =
      ParseModule(ReadFile(fs::path(RXT_SOURCE_DIR) / "examples" / "my_module.rxt"), "my_module.rxt");
  ASSERT_EQ(my_module.entries().size(), 3u);
  EXPECT_EQ(my_module.entries()[0].name, "relu0");
  EXPECT_EQ(my_module.entries()[1].name, "linear0");
  EXPECT_EQ(my_module.entries()[2].name, "main");
  EXPECT_NE(my_module.FindKernel("linear0"), nullptr);
  EXPECT_EQ(my_module.GetFunction("main")->params.size(), 5u);
}

// ---- Size: parsing, checking and printing are linear in the text

// Name lookups scanned the module (quadratic in functions). The sizes keep the Debug test
// short; docs/ir.md gives the Release figures at 100,000 bindings.
TEST(RoundTripScale, ThirtyThousandBindingsAndTenThousandFunctions) {
  std::string chain = "def @main(%x: Tensor((4, 4), float32)) -> Object {\n  dataflow {\n";
  std::string previous = "%x";
  for (int i = 0; i < 30000; ++i) {
    const std::string name = "%a" + std::to_string(i);
    switch (i % 3) {
      case 0: chain += "    " + name + ": Tensor((4, 4), float32) = add(" + previous + ", %x)\n"; break;
      case 1: chain += "    " + name + " = (" + previous + ",)\n"; break;
      case 2: chain += "    " + name + ": Tensor((4, 4), float32) = " + previous + "[0]\n"; break;
    }
    previous = name;
  }
  chain += "    output %a29999\n  }\n  return %a29999\n}\n";
  std::string functions;
  for (int i = 0; i < 10000; ++i) {
    functions += std::string(i ? "\n" : "") + "def @f" + std::to_string(i) + "(%x: Tensor((4, 4), float32)) -> Tensor((4, 4), float32) {\n" +
                 "  %y: Tensor((4, 4), float32) = " + (i ? "@f" + std::to_string(i - 1) + "(%x)" : "add(%x, %x)") +
                 "\n  return %y\n}\n";
  }
  for (const std::string& text : {chain, functions}) {
    IRModule module = ParseModule(text);
    EXPECT_TRUE(CheckWellFormed(module).empty());
    const std::string printed = PrintModule(module);
    EXPECT_EQ(printed, text);
    EXPECT_TRUE(StructuralEqual(ParseModule(printed), module));
  }
}

}  // namespace
}  // namespace rxt
