// Exporter plugins (rxt_exporter_t) through ExportModel: a toy exporter (tests/plugins/fixtures/
// exporter.c) lists the graph it is handed; the host prepares the function (a backbone at
// inference, calls inlined), checks the values, and names failures.
#include "rxt/exec/export.h"

#include <gtest/gtest.h>

#include "rxt/ir/parser.h"

namespace rxt {
namespace {

const std::string kExporterPlugin = std::string(RXT_TEST_IR_PLUGIN_DIR) + "/test_exporter.so";

std::string ErrorOf(const std::function<void()>& f, ErrorCode* code = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (code != nullptr) *code = e.code();
    return e.what();
  }
  return "(no error)";
}

// A backbone with a batch norm (a state pair) and a dropout: at inference the first normalizes
// on its moving statistics, the second loses its seed, and only the output is returned.
const char* kBackbone = R"(
attributes {param_num = 3, state_num = 2}
def @backbone(%x: Tensor((n, 3), float32), %seed: Tensor((), int64), %w: Tensor((2, 3), float32),
              %gamma: Tensor((2,), float32), %beta: Tensor((2,), float32),
              %mean: Tensor((2,), float32), %var: Tensor((2,), float32))
    -> Tuple(Tensor((n, 2), float32), Tensor((2,), float32), Tensor((2,), float32)) {
  dataflow {
    %y: Tensor((n, 2), float32) = linear(%x, %w)
    %bn: Tuple(Tensor((n, 2), float32), Tensor((2,), float32), Tensor((2,), float32)) = nn.batch_norm(%y, %gamma, %beta, %mean, %var, axis=1)
    %z: Tensor((n, 2), float32) = %bn[0]
    %d: Tuple(Tensor((n, 2), float32), Tensor((n, 2), float32)) = nn.dropout(%z, %seed, rate=0.5)
    %out: Tensor((n, 2), float32) = %d[0]
    %m: Tensor((2,), float32) = %bn[1]
    %v: Tensor((2,), float32) = %bn[2]
    output %out, %m, %v
  }
  return (%out, %m, %v)
}
)";

std::map<std::string, Tensor> BackboneValues() {
  std::map<std::string, Tensor> values;
  values["w"] = Tensor::FromVector<float>({2, 3}, DType::kFloat32, std::vector<float>{0.5f, 1, 2, 3, 4, 5});
  for (const char* name : {"gamma", "beta", "mean", "var"}) values[name] = Tensor::FromVector<float>({2}, DType::kFloat32, std::vector<float>{1, 2});
  return values;
}

TEST(ExportModel, ABackboneExportsAtInferenceWithItsValues) {
  PluginHost host;
  host.Load(kExporterPlugin);
  ASSERT_EQ(host.Items(PluginItemKind::kExporter).size(), 1u);
  EXPECT_EQ(FindExporter(host, "", "out/model.LISTING").name, "listing");  // extensions are case-insensitive
  EXPECT_EQ(FindExporter(host, "listing", "model.other").name, "listing");
  EXPECT_TRUE(IsExportable(host, "", "m.listing"));
  EXPECT_FALSE(IsExportable(host, "", "m.onnx"));

  IRModule module = ParseModule(kBackbone, "backbone.rxt");
  ExportedModel m = ExportModel(host, module, BackboneValues(), {.path = "m.listing"});
  EXPECT_EQ(m.format, "listing");
  EXPECT_EQ(m.function, "backbone");
  EXPECT_EQ(m.num_inputs, 2);  // x and the dropout's seed (no value)
  EXPECT_EQ(m.num_values, 5);
  const std::string& text = m.bytes;
  EXPECT_NE(text.find("function backbone\n"), std::string::npos) << text;
  EXPECT_NE(text.find("input %x: Tensor((n, 3), float32)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("input %w: Tensor((2, 3), float32) = value float ndim 2 first 0.5\n"), std::string::npos) << text;
  EXPECT_NE(text.find("nn.batch_norm(%y, %gamma, %beta, %mean, %var) training=false"), std::string::npos) << text;
  EXPECT_NE(text.find("nn.dropout(%z)"), std::string::npos) << text;  // no seed: the identity
  EXPECT_NE(text.find("[0]\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("output (%out"), std::string::npos) << "the states are not outputs at inference:\n" << text;
}

TEST(ExportModel, OtherFunctionsExportAsTheyAreWithCallsInlined) {
  PluginHost host;
  host.Load(kExporterPlugin);
  IRModule module = ParseModule(R"(
def @scale(%a: Tensor((4,), float32)) -> Tensor((4,), float32) {
  %s: Tensor((4,), float32) = multiply(%a, %a)
  return %s
}
def @main(%x: Tensor((4,), float32), %k: Tensor((4,), float32)) -> Tensor((4,), float32) {
  %r: Tensor((4, 1), float32) = reshape(%x, shape(4, 1))
  %t: Tensor((4,), float32) = reshape(%r, shape(4))
  %c: Tensor((4,), float32) = @scale(%t)
  %o: Tensor((4,), float32) = add(%c, %k)
  return %o
}
)",
                                "two.rxt");
  std::map<std::string, Tensor> values = {{"k", Tensor::FromVector<float>({4}, DType::kFloat32, std::vector<float>{1, 2, 3, 4})}};
  ExportedModel m = ExportModel(host, module, values, {.function = "main", .path = "m.listing"});
  EXPECT_EQ(m.num_inputs, 1);
  EXPECT_EQ(m.num_values, 1);
  EXPECT_NE(m.bytes.find("= multiply(%t, %t)"), std::string::npos) << m.bytes;  // @scale inlined
  EXPECT_NE(m.bytes.find("reshape(%x, shape(4, 1))"), std::string::npos) << m.bytes;
  EXPECT_EQ(m.bytes.find("call"), std::string::npos) << m.bytes;

  // Without --function: two functions and no @backbone is ambiguous.
  ErrorCode code{};
  std::string error = ErrorOf([&] { ExportModel(host, module, values, {.path = "m.listing"}); }, &code);
  EXPECT_EQ(code, ErrorCode::kInvalidArgument);
  EXPECT_NE(error.find("functions: scale, main"), std::string::npos) << error;
}

TEST(ExportModel, FailuresNameTheValueTheFunctionOrTheExporter) {
  PluginHost host;
  ErrorCode code{};
  IRModule module = ParseModule(kBackbone, "backbone.rxt");
  std::string error = ErrorOf([&] { ExportModel(host, module, BackboneValues(), {.path = "m.listing"}); }, &code);
  EXPECT_EQ(code, ErrorCode::kNotFound);
  EXPECT_NE(error.find("no exporter writes 'm.listing' (no exporter is loaded"), std::string::npos) << error;

  host.Load(kExporterPlugin);
  error = ErrorOf([&] { ExportModel(host, module, BackboneValues(), {.format = "onnx"}); }, &code);
  EXPECT_NE(error.find("no exporter 'onnx'; exporters: listing (.listing)"), std::string::npos) << error;

  std::map<std::string, Tensor> values = BackboneValues();
  values.erase("mean");
  error = ErrorOf([&] { ExportModel(host, module, values, {.path = "m.listing"}); }, &code);
  EXPECT_EQ(code, ErrorCode::kNotFound);
  EXPECT_NE(error.find("no value for 'mean', a parameter or state of the backbone"), std::string::npos) << error;

  values = BackboneValues();
  values["w"] = Tensor::FromVector<float>({3, 2}, DType::kFloat32, std::vector<float>{1, 2, 3, 4, 5, 6});
  error = ErrorOf([&] { ExportModel(host, module, values, {.path = "m.listing"}); }, &code);
  EXPECT_EQ(code, ErrorCode::kInvalidArgument);
  EXPECT_NE(error.find("the value of 'w' is float32 (3, 2), the parameter is Tensor((2, 3), float32)"), std::string::npos)
      << error;

  error = ErrorOf([&] { ExportModel(host, module, BackboneValues(), {.function = "nope", .path = "m.listing"}); }, &code);
  EXPECT_EQ(code, ErrorCode::kNotFound);
  EXPECT_NE(error.find("no function @nope"), std::string::npos) << error;

  error = ErrorOf([&] { ExportModel(host, module, BackboneValues(), {.path = "m.listing", .options = "fail"}); }, &code);
  EXPECT_EQ(code, ErrorCode::kUnimplemented);
  EXPECT_NE(error.find("@backbone: listing exporter: the listing cannot say that"), std::string::npos) << error;
}

}  // namespace
}  // namespace rxt
