// Trainer modules (SetupTrainer) run step after step through train_step, the way the Trainer
// runs them: a 1-layer MLP with MSE (reduction "sum") and SGD converges to near-zero loss, and
// a model with batch-norm states returns its updated running statistics every step.
#include <gtest/gtest.h>

#include <random>

#include "rxt/ir/parser.h"
#include "rxt/ir/well_formed.h"
#include "rxt/transform/training/setup_trainer.h"
#include "test_util/training_plugins.h"

namespace rxt {
namespace {

Tensor Uniform(std::vector<int64_t> shape, std::mt19937& rng, float lo, float hi) {
  Tensor t = Tensor::Empty(std::move(shape), DType::kFloat32);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (int64_t i = 0; i < t.numel(); ++i) t.data_as<float>()[i] = dist(rng);
  return t;
}

std::vector<Value> OptimState(const IRModule& trainer) {
  std::vector<Value> state;
  for (const AttrValue& s : trainer.attrs.Get("optim_state").get<AttrArray>()) state.emplace_back(s.get<Tensor>());
  return state;
}

const char* kLinear = R"(
attributes {param_num = 2, state_num = 0}
def @backbone(%x: Tensor((16, 4), float32), %w: Tensor((4, 3), float32), %b: Tensor((3,), float32))
    -> Tensor((16, 3), float32) {
  dataflow {
    %h = matmul(%x, %w)
    %out = add(%h, %b)
    output %out
  }
  return %out
})";

TEST(Training, OneLayerMlpWithMseSumAndSgdConverges) {
  IRModule trainer = SetupTrainer(ParseModule(kLinear), {.loss = {"mse", "reduction=\"sum\""},
                                                         .optimizer = {"sgd", "lr=0.02"},
                                                         .plugins = &test::TrainingPlugins()});
  ASSERT_NO_THROW(VerifyWellFormed(trainer));
  test::ReferenceVM vm(trainer, /*opt_level=*/2);

  // Targets a linear layer can fit exactly: y = x w* + b*.
  std::mt19937 rng(7);
  Tensor x = Uniform({16, 4}, rng, -1, 1), w_true = Uniform({4, 3}, rng, -1, 1), b_true = Uniform({3}, rng, -1, 1);
  Tensor y = vm.Invoke("predict", {x, w_true, b_true}).tensor();
  EXPECT_TRUE(y.BitwiseEqual(vm.Invoke("backbone", {x, w_true, b_true}).tensor()));  // predict is the backbone
  Value w = Tensor::Empty({4, 3}, DType::kFloat32), b = Tensor::Empty({3}, DType::kFloat32);
  std::vector<Value> state = OptimState(trainer);

  double first = 0, last = 0;
  for (int step = 0; step < 400; ++step) {
    std::vector<Value> args = {x, y, w, b};
    args.insert(args.end(), state.begin(), state.end());
    std::vector<Value> out = vm.Invoke("train_step", args).tuple();
    ASSERT_EQ(out.size(), 3 + state.size());
    last = out[0].tensor().GetAsDouble(0);
    if (step == 0) first = last;
    w = out[1];
    b = out[2];
    state.assign(out.begin() + 3, out.end());
  }
  EXPECT_GT(first, 1.0);
  EXPECT_LT(last, 1e-8 * first) << "first loss " << first;
  for (int64_t i = 0; i < 12; ++i) EXPECT_NEAR(w.tensor().GetAsDouble(i), w_true.GetAsDouble(i), 1e-3);
  EXPECT_EQ(state[2].tensor().GetAsDouble(0), 400);  // step
}

const char* kBatchNorm = R"(
attributes {param_num = 4, state_num = 2}
def @backbone(%x: Tensor((8, 3), float32), %w: Tensor((3, 2), float32), %b: Tensor((2,), float32),
              %gamma: Tensor((2,), float32), %beta: Tensor((2,), float32),
              %mean: Tensor((2,), float32), %var: Tensor((2,), float32))
    -> Tuple(Tensor((8, 2), float32), Tensor((2,), float32), Tensor((2,), float32)) {
  dataflow {
    %h = matmul(%x, %w)
    %hb = add(%h, %b)
    %bn = nn.batch_norm(%hb, %gamma, %beta, %mean, %var, momentum=0.1)
    %out = %bn[0]
    %new_mean = %bn[1]
    %new_var = %bn[2]
    %result = (%out, %new_mean, %new_var)
    output %result
  }
  return %result
})";

TEST(Training, TrainStepReturnsUpdatedModelStates) {
  IRModule trainer = SetupTrainer(ParseModule(kBatchNorm), {.loss = {"cross_entropy", ""},
                                                            .optimizer = {"adam", "lr=0.01"},
                                                            .plugins = &test::TrainingPlugins()});
  ASSERT_NO_THROW(VerifyWellFormed(trainer));
  EXPECT_EQ(trainer.attrs.Get("state_num").get<int64_t>(), 2);
  EXPECT_EQ(ToString(trainer.GetFunction("predict")->ret_sinfo), "Tensor((8, 2), float32)");
  test::ReferenceVM vm(trainer);

  std::mt19937 rng(3);
  Tensor x = Uniform({8, 3}, rng, -2, 2);
  Tensor labels = Tensor::FromVector<int64_t>({8}, DType::kInt64, {0, 1, 1, 0, 1, 0, 0, 1});
  std::vector<Value> params = {Uniform({3, 2}, rng, -1, 1), Uniform({2}, rng, -1, 1),
                               Tensor::FromVector<float>({2}, DType::kFloat32, {1, 1}), Tensor::Empty({2}, DType::kFloat32)};
  Tensor mean = Tensor::Empty({2}, DType::kFloat32), var = Tensor::FromVector<float>({2}, DType::kFloat32, {1, 1});
  std::vector<Value> state = OptimState(trainer);
  // train_step(x, labels, w, b, gamma, beta, mean, var, optim...) -> (loss, 4 params, mean', var', optim'...)
  std::vector<Value> args = {x, labels};
  args.insert(args.end(), params.begin(), params.end());
  args.insert(args.end(), {mean, var});
  args.insert(args.end(), state.begin(), state.end());
  std::vector<Value> out = vm.Invoke("train_step", args).tuple();
  ASSERT_EQ(out.size(), 1 + 4 + 2 + state.size());

  std::vector<Value> predict_args = {x};
  predict_args.insert(predict_args.end(), params.begin(), params.end());
  predict_args.insert(predict_args.end(), {mean, var});
  EXPECT_EQ(vm.Invoke("predict", predict_args).tensor().shape(), (std::vector<int64_t>{8, 2}));

  // The running mean moves 10% of the way to the batch mean of x w + b.
  const Tensor& w = params[0].tensor();
  const Tensor& b = params[1].tensor();
  for (int j = 0; j < 2; ++j) {
    double batch_mean = 0;
    for (int n = 0; n < 8; ++n) {
      double h = b.GetAsDouble(j);
      for (int k = 0; k < 3; ++k) h += x.GetAsDouble(n * 3 + k) * w.GetAsDouble(k * 2 + j);
      batch_mean += h / 8;
    }
    EXPECT_NEAR(out[5].tensor().GetAsDouble(j), 0.1 * batch_mean, 1e-5) << "running mean " << j;
  }
  EXPECT_NE(out[6].tensor().GetAsDouble(0), 1.0);  // the running variance moved too
  EXPECT_GT(out[0].tensor().GetAsDouble(0), 0);
}

}  // namespace
}  // namespace rxt
