// SetupTrainer with the standard plugins: what a user of the seed's API meets first.
#include <gtest/gtest.h>

#include "rxt/ir/parser.h"
#include "rxt/ir/printer.h"
#include "rxt/transform/training/setup_trainer.h"
#include "test_util/test_files.h"
#include "test_util/training_plugins.h"

namespace rxt {
namespace {

IRModule SeedMlp() {
  return ParseModule(test::ReadFile(std::string(RXT_SOURCE_DIR) + "/examples/mlp.rxt"), "mlp.rxt");
}

std::string SetupError(const TrainerSetup& setup) {
  try {
    SetupTrainer(SeedMlp(), setup);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TrainerSetup Standard(LossSpec loss, OptimizerSpec optimizer) {
  return {.loss = std::move(loss), .optimizer = std::move(optimizer), .legalize = false,
          .plugins = &test::TrainingPlugins()};
}

TEST(StandardPlugins, EveryLossAndOptimizerSetsUpTheSeedMlp) {
  for (const char* loss : {"cross_entropy", "categorical_cross_entropy", "mse", "l1", "huber", "bce_with_logits"}) {
    EXPECT_EQ(SetupError(Standard({loss, ""}, {"sgd", ""})), "") << loss;
  }
  for (const char* optimizer : {"sgd", "momentum", "adam", "adamw", "rmsprop", "adagrad"}) {
    EXPECT_EQ(SetupError(Standard({"cross_entropy", "reduction=\"sum\""}, {optimizer, "max_grad_norm=1.0"})), "")
        << optimizer;
  }
}

TEST(StandardPlugins, ClearErrors) {
  EXPECT_EQ(SetupError(Standard({"mse", "reduction=\"none\""}, {"sgd", ""})),
            "SetupTrainer: loss 'mse' returns Tensor((64, 10), float32), not a scalar (reduction \"none\" cannot be "
            "trained: use \"mean\" or \"sum\")");
  EXPECT_EQ(SetupError(Standard({"crossentropy", ""}, {"sgd", ""})),
            "SetupTrainer: no loss named 'crossentropy' is loaded (known: bce_with_logits, categorical_cross_entropy, "
            "cross_entropy, huber, l1, mse, nll)");
  EXPECT_EQ(SetupError(Standard({"cross_entropy", ""}, {"Adam", ""})),
            "SetupTrainer: no optimizer named 'Adam' is loaded (known: adagrad, adam, adamw, momentum, rmsprop, sgd)");
  EXPECT_EQ(SetupError(Standard({"cross_entropy", ""}, {"sgd", "lr=0.1, momentum=0.9"})),
            "SetupTrainer: optimizer 'sgd' (plugin rxt_optim_std): unknown option 'momentum' (known: lr, weight_decay, "
            "max_grad_norm)");
  // The seed's label_sinfo, one-hot labels (64, 10), does not fit class-index cross entropy.
  TrainerSetup seed = Standard({"cross_entropy", "reduction=\"sum\""}, {"sgd", "lr=0.01, weight_decay=0.01"});
  seed.loss_args = {TensorSI(std::vector<int64_t>{64, 10}, DType::kFloat32),
                    TensorSI(std::vector<int64_t>{64, 10}, DType::kInt64)};
  EXPECT_EQ(SetupError(seed),
            "SetupTrainer: loss_args[1] is Tensor((64, 10), int64) but loss 'cross_entropy' takes its target %targets as "
            "Tensor((64,), int64)");
  seed.loss.name = "categorical_cross_entropy";
  seed.loss_args[1] = TensorSI(std::vector<int64_t>{64, 10}, DType::kFloat32);
  EXPECT_EQ(SetupError(seed), "");
}

}  // namespace
}  // namespace rxt

namespace rxt {
namespace {

// A backbone with batch statistics and dropout, as an imported ONNX model trains.
constexpr const char* kBatchNormBackbone = R"(
attributes {param_num = 2, state_num = 2}
def @backbone(%x: Tensor((4, 3), float32), %seed: Tensor((), int64), %g: Tensor((3,), float32),
              %b: Tensor((3,), float32), %mean: Tensor((3,), float32), %var: Tensor((3,), float32))
    -> Tuple(Tensor((4, 3), float32), Tensor((3,), float32), Tensor((3,), float32)) {
  dataflow {
    %bn = nn.batch_norm(%x, %g, %b, %mean, %var, axis=1, training=true)
    %y = %bn[0]
    %d = nn.dropout(%y, %seed, rate=0.5)
    %out = %d[0]
    %result = (%out, %bn[1], %bn[2])
    output %result
  }
  return %result
})";

TEST(StandardPlugins, PredictRunsAtInferenceTrainingOnBatchStatistics) {
  IRModule m = SetupTrainer(ParseModule(kBatchNormBackbone), Standard({"mse", ""}, {"sgd", ""}));
  std::string predict = PrintFunction(m.GetFunction("predict"), "predict");
  EXPECT_NE(predict.find("training=false"), std::string::npos) << predict;  // the moving statistics
  EXPECT_EQ(predict.find("training=true"), std::string::npos) << predict;
  EXPECT_EQ(predict.find("nn.dropout(%y, %seed"), std::string::npos) << predict;  // the identity
  std::string step = PrintFunction(m.GetFunction("backbone_loss"), "backbone_loss");
  EXPECT_NE(step.find("training=true"), std::string::npos) << step;  // training keeps batch statistics
  EXPECT_NE(step.find("nn.dropout(%y, %seed"), std::string::npos) << step;
}

}  // namespace
}  // namespace rxt
