// plugins/loss_std: every loss against PyTorch (tests/data/golden/losses.json, made by
// tests/golden/make_training_golden.py): the loss value, and for reductions to a scalar the
// gradient with respect to the prediction through the Gradient pass and grad_std. Then every
// way a loss's options or prediction can be wrong.
#include <gtest/gtest.h>

#include <set>

#include "rxt/plugin/plugin_host.h"
#include "rxt/ir/parser.h"
#include "rxt/ir/printer.h"
#include "rxt/ir/well_formed.h"
#include "rxt/transform/training/gradient.h"
#include "rxt/transform/training/training_components.h"
#include "test_util/golden_json.h"
#include "test_util/training_plugins.h"

namespace rxt {
namespace {

using nlohmann::json;

StructInfo SInfoOf(const Tensor& t) { return TensorSI(t.shape(), t.dtype()); }

class LossGolden : public ::testing::TestWithParam<json> {};

TEST_P(LossGolden, MatchesPyTorch) {
  const json& c = GetParam();
  Tensor prediction = test::GoldenTensor(c.at("prediction"));
  Tensor targets = test::GoldenTensor(c.at("targets"));
  Tensor expected = test::GoldenTensor(c.at("expected_loss"));
  const PluginHost& plugins = test::TrainingPlugins();

  IRModule module;
  module.Add("loss", MakeLossFunction({c.at("loss"), c.at("options")}, SInfoOf(prediction), &plugins));
  bool with_grad = c.contains("expected_grad");
  if (with_grad) module = Gradient(module, "loss", std::vector<int>{0}, 0, &plugins);
  ASSERT_NO_THROW(VerifyWellFormed(module)) << PrintModule(module);
  // float32 losses agree with PyTorch's to rounding; float64 ones much closer.
  double rtol = prediction.dtype() == DType::kFloat64 ? 1e-12 : 2e-6, atol = rtol;

  test::ReferenceVM vm(module);
  Value loss = vm.Invoke("loss", {prediction, targets});
  EXPECT_EQ(test::CompareTensors(loss.tensor(), expected, rtol, atol), "") << "loss";
  if (!with_grad) return;
  Value adjoint = vm.Invoke("loss_adjoint", {prediction, targets});
  EXPECT_EQ(test::CompareTensors(adjoint.tuple()[0].tensor(), expected, rtol, atol), "") << "adjoint's loss";
  Tensor grad = test::GoldenTensor(c.at("expected_grad"));
  EXPECT_EQ(test::CompareTensors(adjoint.tuple()[1].tuple()[0].tensor(), grad, rtol, atol), "") << "gradient";
}

std::vector<json> GoldenCases() {
  std::vector<json> cases;
  json golden = test::ReadGolden("losses.json");  // kept: the loop reads into it
  for (const json& c : golden.at("cases")) cases.push_back(c);
  return cases;
}

INSTANTIATE_TEST_SUITE_P(LossStd, LossGolden, ::testing::ValuesIn(GoldenCases()),
                         [](const ::testing::TestParamInfo<json>& info) { return info.param.at("name").get<std::string>(); });

TEST(LossStd, EveryLossIsCovered) {
  std::set<std::string> covered;
  for (const json& c : GoldenCases()) covered.insert(c.at("loss").get<std::string>());
  for (const PluginItem& item : test::TrainingPlugins().Items(PluginItemKind::kLoss)) {
    EXPECT_TRUE(covered.count(item.name)) << item.name << " has no golden case";
  }
  EXPECT_EQ(covered.size(), 7u);
}

TEST(LossStd, DeclaresTargetsFromThePrediction) {
  const PluginHost& plugins = test::TrainingPlugins();
  // Symbolic batch: the targets share the prediction's n.
  IRModule m = ParseModule("def @f(%p: Tensor((n, 10), float32)) -> Tensor((n, 10), float32) { return %p }");
  StructInfo prediction = m.GetFunction("f")->params[0]->struct_info;
  Function ce = MakeLossFunction({"cross_entropy", ""}, prediction, &plugins);
  ASSERT_EQ(ce->params.size(), 2u);
  EXPECT_EQ(ToString(ce->params[1]->struct_info), "Tensor((n,), int64)");
  EXPECT_EQ(ToString(ce->ret_sinfo), "Tensor((), float32)");
  Function mse = MakeLossFunction({"mse", "reduction=\"none\""}, prediction, &plugins);
  EXPECT_EQ(ToString(mse->params[1]->struct_info), "Tensor((n, 10), float32)");
  EXPECT_EQ(ToString(mse->ret_sinfo), "Tensor((n, 10), float32)");
  Function per_sample = MakeLossFunction({"categorical_cross_entropy", "reduction=\"none\""}, prediction, &plugins);
  EXPECT_EQ(ToString(per_sample->ret_sinfo), "Tensor((n,), float32)");
  Function kdim = MakeLossFunction({"nll", ""}, TensorSI(std::vector<int64_t>{2, 3, 5, 7}, DType::kFloat32), &plugins);
  EXPECT_EQ(ToString(kdim->params[1]->struct_info), "Tensor((2, 5, 7), int64)");
}

/// The error MakeLossFunction throws, or "".
std::string LossError(const std::string& name, const std::string& options,
                      StructInfo prediction = TensorSI(std::vector<int64_t>{4, 3}, DType::kFloat32)) {
  try {
    MakeLossFunction({name, options}, prediction, &test::TrainingPlugins());
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(LossStd, BadOptionsAndPredictions) {
  auto expect = [](const std::string& error, const std::string& part) {
    EXPECT_NE(error.find(part), std::string::npos) << error;
  };
  expect(LossError("mse", "reductoin=\"sum\""), "unknown option 'reductoin'");
  expect(LossError("mse", "reductoin=\"sum\""), "loss 'mse' (plugin rxt_loss_std)");
  expect(LossError("l1", "reduction=\"avg\""), "option 'reduction' must be \"mean\", \"sum\" or \"none\", got \"avg\"");
  expect(LossError("l1", "reduction=3"), "option 'reduction' must be");
  expect(LossError("huber", "delta=0.0"), "option 'delta' must be positive, got 0.0");
  expect(LossError("huber", "delta=\"x\""), "option 'delta'");
  expect(LossError("cross_entropy", "weight=[1.0, 2.0]"), "option 'weight' must hold one number per class (3), got 2");
  expect(LossError("cross_entropy", "ignore_index=1.5"), "option 'ignore_index'");
  expect(LossError("cross_entropy", "label_smoothing=0.1"), "unknown option 'label_smoothing'");
  expect(LossError("categorical_cross_entropy", "ignore_index=1"), "unknown option 'ignore_index'");
  expect(LossError("bce_with_logits", "pos_weight=[1.0, 2.0]"), "one per element of the last axis");
  expect(LossError("nll", "weight=[1.0]", TensorSI(DType::kFloat32, 2)), "must be known");
  expect(LossError("nll", "", TensorSI(DType::kFloat32, -1)), "known ndim");
  expect(LossError("mse", "", TensorSI(std::vector<int64_t>{4}, DType::kInt64)), "must be a float tensor");
  expect(LossError("cross_entropy", "", TensorSI(std::vector<int64_t>{}, DType::kFloat32)), "at least 1 dim");
  expect(LossError("no_such_loss", ""), "no loss named 'no_such_loss' is loaded (known: bce_with_logits, "
                                         "categorical_cross_entropy, cross_entropy, huber, l1, mse, nll)");
}

}  // namespace
}  // namespace rxt
