// The seed tutorial's MLP (examples/mlp.rxt: 784-128-128-10, batch 64), one training step with
// cross entropy (reduction "sum") and SGD (lr 0.01, weight decay 0.01), against the same step
// in PyTorch (tests/data/golden/seed_step.json): loss, gradients and updated parameters within
// 1e-5 relative. Once through the low-level path of the tutorial (loss function, AppendLoss,
// Gradient, optimizer function, build, one step) and once through SetupTrainer's train_step.
#include <gtest/gtest.h>

#include <numeric>

#include "rxt/plugin/plugin_host.h"
#include "rxt/ir/parser.h"
#include "rxt/ir/well_formed.h"
#include "rxt/transform/training/append_loss.h"
#include "rxt/transform/training/gradient.h"
#include "rxt/transform/training/setup_trainer.h"
#include "test_util/deterministic_tensor.h"
#include "test_util/golden_json.h"
#include "test_util/test_files.h"
#include "test_util/training_plugins.h"

namespace rxt {
namespace {

using nlohmann::json;

const json& Golden() {
  static const json golden = test::ReadGolden("seed_step.json");
  return golden;
}

IRModule SeedMlp() {
  return ParseModule(test::ReadFile(std::string(RXT_SOURCE_DIR) + "/examples/mlp.rxt"), "mlp.rxt");
}

/// x, w0, b0, w1, b1, w2, b2 as the golden script made them.
std::vector<Value> InputAndParams() {
  std::vector<Value> values;
  for (const json& t : Golden().at("tensors")) {
    values.emplace_back(test::DeterministicTensor(t.at("shape").get<std::vector<int64_t>>(), t.at("seed").get<uint64_t>(),
                                                  t.at("lo").get<double>(), t.at("hi").get<double>()));
  }
  return values;
}

Tensor Labels() {
  return Tensor::FromVector({64}, DType::kInt64, Golden().at("labels").get<std::vector<int64_t>>());
}

/// "" if |t| matches the golden summary |s| within 1e-5 relative: each sampled element (an
/// element near zero: within 1e-5 of the tensor's mean magnitude), the sum and the sum of
/// magnitudes.
std::string CompareSummary(const Tensor& t, const json& s) {
  if (t.shape() != s.at("shape").get<std::vector<int64_t>>()) return "shape differs";
  double abs_sum = s.at("abs_sum").get<double>(), scale = abs_sum / static_cast<double>(t.numel());
  double sum = 0, magnitude = 0;
  for (int64_t i = 0; i < t.numel(); ++i) {
    sum += t.GetAsDouble(i);
    magnitude += std::abs(t.GetAsDouble(i));
  }
  std::ostringstream out;
  if (std::abs(magnitude - abs_sum) > 1e-5 * abs_sum) out << "sum of magnitudes " << magnitude << " vs " << abs_sum << "; ";
  if (std::abs(sum - s.at("sum").get<double>()) > 1e-5 * abs_sum) out << "sum " << sum << " vs " << s.at("sum") << "; ";
  for (const json& sample : s.at("samples")) {
    int64_t j = sample[0].get<int64_t>();
    double want = sample[1].get<double>(), got = t.GetAsDouble(j);
    if (std::abs(got - want) > 1e-5 * std::max(std::abs(want), scale)) out << "[" << j << "] " << got << " vs " << want << "; ";
  }
  return out.str();
}

void ExpectLoss(const Value& loss) {
  double want = Golden().at("expected_loss").get<double>();
  EXPECT_NEAR(loss.tensor().GetAsDouble(0), want, 1e-5 * std::abs(want));
}

void ExpectParams(const std::vector<Value>& params) {
  ASSERT_EQ(params.size(), 6u);
  for (size_t i = 0; i < params.size(); ++i) {
    EXPECT_EQ(CompareSummary(params[i].tensor(), Golden().at("expected_params")[i]), "") << "param " << i;
  }
}

TEST(SeedTutorial, LowLevelPathMatchesPyTorch) {
  const PluginHost& plugins = test::TrainingPlugins();
  IRModule module = SeedMlp();
  // func = CrossEntropyLoss(reduction="sum")(out_sinfo, label_sinfo)
  StructInfo out_sinfo = module.GetFunction("backbone")->ret_sinfo;
  Function loss = MakeLossFunction({Golden().at("loss"), Golden().at("loss_options")}, out_sinfo, &plugins);
  // Backbone["loss"] = append_loss(Backbone["backbone"], func)
  module = AppendLoss(module, "backbone", loss, 1, "loss");
  // Gradient("loss", require_grads=params)
  module = Gradient(module, "loss", std::vector<int>{1, 2, 3, 4, 5, 6}, 0, &plugins);
  // opt = SGD(...).init(params); Backbone["SGD"] = opt.get_function()
  std::vector<StructInfo> params;
  for (int i = 1; i <= 6; ++i) params.push_back(module.GetFunction("backbone")->params[i]->struct_info);
  OptimizerInstance sgd =
      MakeOptimizer({Golden().at("optimizer"), Golden().at("optimizer_options")}, params, &plugins);
  module.Add("SGD", sgd.function);
  ASSERT_NO_THROW(VerifyWellFormed(module));

  // LegalizeOps + build + VM; loss, grads = vm["loss_adjoint"](...); params, state = vm["SGD"](...)
  test::ReferenceVM vm(module);
  std::vector<Value> args = InputAndParams();
  args.push_back(Labels());
  Value adjoint = vm.Invoke("loss_adjoint", args);
  ExpectLoss(adjoint.tuple()[0]);
  const std::vector<Value>& grads = adjoint.tuple()[1].tuple();
  ASSERT_EQ(grads.size(), 6u);
  for (size_t i = 0; i < grads.size(); ++i) {
    EXPECT_EQ(CompareSummary(grads[i].tensor(), Golden().at("expected_grads")[i]), "") << "gradient " << i;
  }
  std::vector<Value> param_values(args.begin() + 1, args.begin() + 7);
  Value updated = vm.Invoke("SGD", {Value::Tuple(param_values), adjoint.tuple()[1],
                                    Value::Tuple(std::vector<Value>(sgd.state.begin(), sgd.state.end()))});
  ExpectParams(updated.tuple()[0].tuple());
  EXPECT_EQ(updated.tuple()[1].tuple()[2].tensor().GetAsDouble(0), 1);  // the step counter
}

TEST(SeedTutorial, TrainStepMatchesPyTorch) {
  IRModule trainer = SetupTrainer(SeedMlp(), {.loss = {Golden().at("loss"), Golden().at("loss_options")},
                                              .optimizer = {Golden().at("optimizer"), Golden().at("optimizer_options")},
                                              .plugins = &test::TrainingPlugins()});
  ASSERT_NO_THROW(VerifyWellFormed(trainer));
  // Built as the Trainer builds it: fused, memory planned.
  test::ReferenceVM vm(trainer, /*opt_level=*/2);
  std::vector<Value> values = InputAndParams();
  const AttrArray& optim_state = trainer.attrs.Get("optim_state").get<AttrArray>();
  // train_step(x, labels, params..., optim_states...) -> (loss, params'..., optim_states'...)
  std::vector<Value> args = {values[0], Labels()};
  args.insert(args.end(), values.begin() + 1, values.end());
  for (const AttrValue& s : optim_state) args.emplace_back(s.get<Tensor>());
  Value result = vm.Invoke("train_step", args);
  const std::vector<Value>& fields = result.tuple();
  ASSERT_EQ(fields.size(), 1 + 6 + optim_state.size());
  ExpectLoss(fields[0]);
  ExpectParams(std::vector<Value>(fields.begin() + 1, fields.begin() + 7));
  // The optimizer state comes back too: lr and weight decay as they were, one step done.
  for (size_t i = 0; i < optim_state.size(); ++i) {
    const Tensor& state = fields[7 + i].tensor();
    std::string name = trainer.attrs.Get("optim_state_names").get<AttrArray>()[i].get<std::string>();
    double want = name == "step" ? 1 : optim_state[i].get<Tensor>().GetAsDouble(0);
    EXPECT_EQ(state.GetAsDouble(0), want) << name;
  }
}

}  // namespace
}  // namespace rxt
