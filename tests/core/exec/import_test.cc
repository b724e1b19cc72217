// Importer plugins (rxt_importer_t) through ImportModel: a toy importer (tests/plugins/fixtures/
// importer.c) writes a module and its values; its failures come back as errors naming them.
#include "rxt/exec/import.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "rxt/ir/printer.h"

namespace rxt {
namespace {

const std::string kImporterPlugin = std::string(RXT_TEST_IR_PLUGIN_DIR) + "/test_importer.so";

/// A file |name| in the test's own temporary directory holding |first_line| (ctest runs the
/// tests of this file in parallel processes: a shared "ok.toy" was read while another rewrote it).
std::string ToyFile(const std::string& name, const std::string& first_line) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "rxt_import_test" /
                              ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::filesystem::create_directories(dir);
  std::string path = (dir / name).string();
  std::ofstream(path) << first_line << "\n";
  return path;
}

std::string ErrorOf(const std::function<void()>& f, ErrorCode* code = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (code != nullptr) *code = e.code();
    return e.what();
  }
  return "(no error)";
}

TEST(ImportModel, AnImporterWritesTheModuleAndItsValues) {
  PluginHost host;
  host.Load(kImporterPlugin);
  ASSERT_EQ(host.Items(PluginItemKind::kImporter).size(), 1u);
  EXPECT_EQ(FindImporter(host, "a/b/model.TOY").name, "toy");  // extensions are case-insensitive
  EXPECT_TRUE(IsImportable(host, "m.toymodel"));
  EXPECT_FALSE(IsImportable(host, "m.rxt"));

  ImportedModel m = ImportModel(host, ToyFile("ok.toy", "linear 3 2"), "batch=5");
  EXPECT_EQ(m.format, "toy");
  std::string text = PrintModule(m.module);
  EXPECT_NE(text.find("def @backbone(%x: Tensor((5, 3), float32), %w: Tensor((2, 3), float32)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("param_num = 2"), std::string::npos);
  ASSERT_EQ(m.values.size(), 2u);
  const Tensor& b = m.values.at("b");
  EXPECT_EQ(b.shape(), (std::vector<int64_t>{2}));
  EXPECT_EQ(b.data_as<float>()[1], 1.0f);
  EXPECT_EQ(m.values.at("w").data_as<float>()[5], 0.5f);
}

TEST(ImportModel, FailuresNameTheImporterAndTheProblem) {
  PluginHost none;
  ErrorCode code = ErrorCode::kOk;
  EXPECT_NE(ErrorOf([&] { FindImporter(none, "m.onnx"); }, &code).find("no importer reads 'm.onnx' (no importer is loaded"),
            std::string::npos);
  EXPECT_EQ(code, ErrorCode::kNotFound);

  PluginHost host;
  host.Load(kImporterPlugin);
  EXPECT_NE(ErrorOf([&] { FindImporter(host, "m.onnx"); }).find("importers: toy (.toy, .ToyModel)"), std::string::npos);
  std::string bad = ToyFile("bad.toy", "what is this");
  EXPECT_NE(ErrorOf([&] { ImportModel(host, bad); }, &code)
                .find(bad + ": toy importer: line 1: not a toy model (expected 'linear IN OUT')"),
            std::string::npos);
  EXPECT_EQ(code, ErrorCode::kInvalidArgument);
  EXPECT_NE(ErrorOf([&] { ImportModel(host, ToyFile("ok.toy", "linear 3 2"), "size=3"); }).find("unknown option"),
            std::string::npos);
  // Text rxt cannot read: a bug of the importer, with where the parser stopped.
  std::string garbage = ErrorOf([&] { ImportModel(host, ToyFile("garbage.toy", "garbage")); }, &code);
  EXPECT_EQ(code, ErrorCode::kInternal);
  EXPECT_NE(garbage.find("the toy importer (plugin 'test_importer') wrote a module rxt cannot read: "), std::string::npos)
      << garbage;
  EXPECT_NE(garbage.find("garbage.toy (as imported):1:"), std::string::npos) << garbage;
  EXPECT_NE(ErrorOf([&] { ImportModel(host, ToyFile("twice.toy", "twice")); }, &code).find("'b' has a value already"),
            std::string::npos);
  EXPECT_EQ(code, ErrorCode::kAlreadyExists);
}

}  // namespace
}  // namespace rxt
