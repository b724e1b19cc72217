// plugins/optim_std: every optimizer against torch.optim (tests/data/golden/optimizers.json,
// made by tests/golden/make_training_golden.py): the parameters after each of several steps,
// with the optimizer state carried from step to step as the Trainer does, the learning rate
// changed between steps through the "lr" state (no rebuild), gradient clipping and mixed
// dtypes. Then the state every optimizer declares and every bad option.
#include <gtest/gtest.h>

#include <set>

#include "rxt/ir/printer.h"
#include "rxt/ir/well_formed.h"
#include "rxt/transform/training/training_components.h"
#include "golden_optimizer.h"
#include "test_util/golden_json.h"
#include "test_util/training_plugins.h"

namespace rxt {
namespace {

using nlohmann::json;

int StateIndex(const OptimizerInstance& opt, const std::string& name) {
  for (size_t i = 0; i < opt.state_names.size(); ++i) {
    if (opt.state_names[i] == name) return static_cast<int>(i);
  }
  return -1;
}

class OptimizerGolden : public ::testing::TestWithParam<json> {};

TEST_P(OptimizerGolden, MatchesTorchOptim) {
  const json& c = GetParam();
  test::GoldenOptimizer golden = test::BuildGoldenOptimizer(c);
  std::vector<Value> params = golden.params;
  const OptimizerInstance& opt = golden.opt;
  const IRModule& module = golden.module;
  ASSERT_NO_THROW(VerifyWellFormed(module)) << PrintModule(module);
  test::ReferenceVM vm(module);

  std::vector<Value> state(opt.state.begin(), opt.state.end());
  bool half = params[0].tensor().dtype() == DType::kFloat16;
  for (size_t step = 0; step < c.at("expected").size(); ++step) {
    if (c.contains("lr_per_step")) {
      Tensor lr = Tensor::Empty({}, DType::kFloat32);
      lr.SetFromDouble(0, c.at("lr_per_step")[step].get<double>());
      state[StateIndex(opt, "lr")] = lr;
    }
    Value result = vm.Invoke("optimizer", {Value::Tuple(params), Value::Tuple(test::GoldenTensors(c.at("grads")[step])),
                                           Value::Tuple(state)});
    params = result.tuple()[0].tuple();
    state = result.tuple()[1].tuple();
    std::vector<Value> expected = test::GoldenTensors(c.at("expected")[step]);
    ASSERT_EQ(params.size(), expected.size());
    for (size_t i = 0; i < params.size(); ++i) {
      const Tensor& want = expected[i].tensor();
      ASSERT_EQ(params[i].tensor().dtype(), want.dtype()) << "param " << i;
      // float16 results are the same float32 update rounded: allow one float16 ulp.
      double rtol = half ? 1e-3 : want.dtype() == DType::kFloat64 ? 1e-8 : 1e-5, atol = half ? 1e-3 : 1e-7;
      EXPECT_EQ(test::CompareTensors(params[i].tensor(), want, rtol, atol), "") << "param " << i << " after step "
                                                                                << step + 1;
    }
  }
  EXPECT_EQ(state[StateIndex(opt, "step")].tensor().GetAsDouble(0), static_cast<double>(c.at("expected").size()));
}

std::vector<json> GoldenCases() {
  std::vector<json> cases;
  json golden = test::ReadGolden("optimizers.json");  // kept: the loop reads into it
  for (const json& c : golden.at("cases")) cases.push_back(c);
  return cases;
}

INSTANTIATE_TEST_SUITE_P(OptimStd, OptimizerGolden, ::testing::ValuesIn(GoldenCases()),
                         [](const ::testing::TestParamInfo<json>& info) { return info.param.at("name").get<std::string>(); });

TEST(OptimStd, EveryOptimizerIsCovered) {
  std::set<std::string> covered;
  for (const json& c : GoldenCases()) covered.insert(c.at("optimizer").get<std::string>());
  for (const PluginItem& item : test::TrainingPlugins().Items(PluginItemKind::kOptimizer)) {
    EXPECT_TRUE(covered.count(item.name)) << item.name << " has no golden case";
  }
  EXPECT_EQ(covered.size(), 6u);
}

std::vector<StructInfo> TwoParams() {
  return {TensorSI(std::vector<int64_t>{3, 2}, DType::kFloat32), TensorSI(std::vector<int64_t>{2}, DType::kFloat16)};
}

TEST(OptimStd, DeclaresRuntimeHyperparametersAndPerParameterState) {
  OptimizerInstance adam = MakeOptimizer({"adam", "lr=0.002, weight_decay=0.5, amsgrad=true"}, TwoParams(),
                                         &test::TrainingPlugins());
  EXPECT_EQ(adam.state_names, (std::vector<std::string>{"lr", "weight_decay", "step", "exp_avg.0", "exp_avg_sq.0",
                                                        "max_exp_avg_sq.0", "exp_avg.1", "exp_avg_sq.1",
                                                        "max_exp_avg_sq.1"}));
  ASSERT_EQ(adam.state.size(), adam.state_names.size());
  EXPECT_EQ(adam.state[0].dtype(), DType::kFloat32);
  EXPECT_FLOAT_EQ(static_cast<float>(adam.state[0].GetAsDouble(0)), 0.002f);
  EXPECT_FLOAT_EQ(static_cast<float>(adam.state[1].GetAsDouble(0)), 0.5f);
  EXPECT_EQ(adam.state[2].dtype(), DType::kInt64);
  EXPECT_EQ(adam.state[3].shape(), (std::vector<int64_t>{3, 2}));
  // The float16 parameter's state is float32; its update keeps float16.
  EXPECT_EQ(adam.state[6].dtype(), DType::kFloat32);
  EXPECT_EQ(PrintStructInfo(adam.function->ret_sinfo),
            "Tuple(Tuple(Tensor((3, 2), float32), Tensor((2,), float16)), Tuple(Tensor((), float32), "
            "Tensor((), float32), Tensor((), int64), Tensor((3, 2), float32), Tensor((3, 2), float32), "
            "Tensor((3, 2), float32), Tensor((2,), float32), Tensor((2,), float32), Tensor((2,), float32)))");

  OptimizerInstance adagrad = MakeOptimizer({"adagrad", "initial_accumulator_value=0.25"}, TwoParams(),
                                            &test::TrainingPlugins());
  EXPECT_EQ(adagrad.state_names, (std::vector<std::string>{"lr", "weight_decay", "step", "sum.0", "sum.1"}));
  EXPECT_EQ(adagrad.state[3].GetAsDouble(5), 0.25);
  OptimizerInstance sgd = MakeOptimizer({"sgd", ""}, TwoParams(), &test::TrainingPlugins());
  EXPECT_EQ(sgd.state_names, (std::vector<std::string>{"lr", "weight_decay", "step"}));
  EXPECT_FLOAT_EQ(static_cast<float>(sgd.state[0].GetAsDouble(0)), 0.01f);
}

/// The error MakeOptimizer throws, or "".
std::string OptimizerError(const std::string& name, const std::string& options,
                           std::vector<StructInfo> params = TwoParams()) {
  try {
    MakeOptimizer({name, options}, params, &test::TrainingPlugins());
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(OptimStd, BadOptionsAndParameters) {
  auto expect = [](const std::string& error, const std::string& part) {
    EXPECT_NE(error.find(part), std::string::npos) << error;
  };
  expect(OptimizerError("sgd", "momentum=0.9"), "unknown option 'momentum' (known: lr, weight_decay, max_grad_norm)");
  expect(OptimizerError("sgd", "momentum=0.9"), "optimizer 'sgd' (plugin rxt_optim_std)");
  expect(OptimizerError("sgd", "lr=-0.1"), "option 'lr' must be at least 0, got -0.1");
  expect(OptimizerError("adam", "lr=\"fast\""), "option 'lr'");
  expect(OptimizerError("adam", "weight_decay=-1"), "option 'weight_decay' must be at least 0");
  expect(OptimizerError("adam", "betas=[0.9]"), "option 'betas' must hold 2 numbers, got 1");
  expect(OptimizerError("adamw", "betas=[0.9, 1.0]"), "option 'betas' must be in [0, 1), got 1.0");
  expect(OptimizerError("adam", "eps=-1e-8"), "option 'eps' must be at least 0");
  expect(OptimizerError("adam", "amsgrad=1.5"), "option 'amsgrad'");
  expect(OptimizerError("momentum", "nesterov=true, dampening=0.1"), "nesterov needs momentum > 0 and dampening = 0");
  expect(OptimizerError("momentum", "momentum=-0.5"), "option 'momentum' must be at least 0");
  expect(OptimizerError("rmsprop", "alpha=-0.1"), "option 'alpha' must be at least 0");
  expect(OptimizerError("adagrad", "lr_decay=-1"), "option 'lr_decay' must be at least 0");
  expect(OptimizerError("sgd", "max_grad_norm=0"), "option 'max_grad_norm' must be positive");
  expect(OptimizerError("sgd", "lr="), "options");
  expect(OptimizerError("sgd", "", {TensorSI(std::vector<int64_t>{3}, DType::kInt64)}),
         "parameter 0 must be a float tensor of known ndim, got Tensor((3,), int64)");
  expect(OptimizerError("sgd", "", {}), "there are no parameters to update");
  expect(OptimizerError("adam", "", {TensorSI(DType::kFloat32, 2)}), "must be known");
  expect(OptimizerError("lion", ""), "no optimizer named 'lion' is loaded (known: adagrad, adam, adamw, momentum, "
                                     "rmsprop, sgd)");
}

}  // namespace
}  // namespace rxt
