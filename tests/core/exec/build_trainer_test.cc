// BuildTrainerProgram (core/src/exec/build_trainer.cc): the layout read from a trainer module,
// Xavier fans from the backbone's uses (conv2d kernels in both layouts, matmul weights), a
// trainer module built beforehand, and the errors for modules that are not trainer modules.
#include "rxt/exec/build_trainer.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/train/trainer_fixture.h"

namespace rxt {
namespace {

using test::ErrorOf;

// A convolution in each kernel layout, and a bias shaped (1, C, 1, 1).
const char* kConvBackbone = R"(
attributes {param_num = 4, state_num = 0}
def @backbone(%x: Tensor((2, 3, 6, 6), float32), %k: Tensor((4, 3, 3, 3), float32),
              %kb: Tensor((1, 4, 1, 1), float32), %h: Tensor((3, 3, 4, 5), float32),
              %w: Tensor((20, 2), float32)) -> Tensor((2, 2), float32) {
  dataflow {
    %c = nn.conv2d(%x, %k)
    %cb = add(%c, %kb)
    %t = permute_dims(%cb, axes=[0, 2, 3, 1])
    %d = nn.conv2d(%t, %h, data_layout="NHWC", kernel_layout="HWIO")
    %f = reshape(%d, shape(2, 20))
    %out = matmul(%f, %w)
    output %out
  }
  return %out
})";

TrainerProgram ConvProgram() {
  return BuildTrainerProgram(ParseModule(kConvBackbone),
                             {.loss = {"mse", ""}, .optimizer = {"sgd", "lr=0.1"}, .plugins = &test::TrainingPlugins()},
                             {.backend = "reference"});
}

TEST(BuildTrainer, FansFollowTheKernelLayout) {
  TrainerProgram program = ConvProgram();
  ASSERT_EQ(program.params.size(), 4u);
  // OIHW (4, 3, 3, 3): fan_in = 3 * 9, fan_out = 4 * 9.
  EXPECT_EQ(program.params[0].fan_in, 27);
  EXPECT_EQ(program.params[0].fan_out, 36);
  // The bias is not a weight.
  EXPECT_EQ(program.params[1].fan_in + program.params[1].fan_out, 0);
  // HWIO (3, 3, 4, 5): fan_in = 4 * 9, fan_out = 5 * 9 (PyTorch's rule on these dims would
  // say 3 * 20 and 3 * 20).
  EXPECT_EQ(program.params[2].fan_in, 36);
  EXPECT_EQ(program.params[2].fan_out, 45);
  // matmul weight (in, out).
  EXPECT_EQ(program.params[3].fan_in, 20);
  EXPECT_EQ(program.params[3].fan_out, 2);
}

TEST(BuildTrainer, XavierUsesTheFans) {
  auto trainer = test::MakeTrainer(ConvProgram());
  trainer->InitXavierUniform(3);
  auto largest = [&](int index) {
    double m = 0;
    for (int64_t i = 0; i < trainer->param(index).numel(); ++i) m = std::max(m, std::abs(trainer->param(index).GetAsDouble(i)));
    return m;
  };
  double hwio_bound = std::sqrt(6.0 / (36 + 45));
  EXPECT_LE(largest(2), hwio_bound);
  EXPECT_GT(largest(2), 0.8 * hwio_bound);  // 180 draws come near the bound
  EXPECT_EQ(largest(1), 0.0);               // the (1, 4, 1, 1) bias
  EXPECT_LE(largest(0), std::sqrt(6.0 / (27 + 36)));
  // The conv net trains: its loss goes down.
  Tensor x = test::Ramp({2, 3, 6, 6}, -1, 0.01f), y = test::Ramp({2, 2}, 0.5f, -0.25f);
  double first = trainer->Update({x}, {y}).GetAsDouble(0);
  for (int i = 0; i < 5; ++i) trainer->Update({x}, {y});
  EXPECT_LT(trainer->Evaluate({x}, {y}).GetAsDouble(0), first);
}

TEST(BuildTrainer, TakesATrainerModuleBuiltBefore) {
  IRModule trainer_module = SetupTrainer(ParseModule(test::kLinearBackbone),
                                         {.loss = {"mse", "reduction=\"sum\""},
                                          .optimizer = {"sgd", "lr=0.05"},
                                          .plugins = &test::TrainingPlugins()});  // legalized
  EXPECT_TRUE(IsTrainerModule(trainer_module));
  EXPECT_FALSE(IsTrainerModule(ParseModule(test::kLinearBackbone)));
  auto from_module = test::MakeTrainer(BuildTrainerProgram(trainer_module, {.backend = "reference"}));
  auto from_backbone = test::LinearTrainer("sgd", "lr=0.05");
  from_module->InitXavierUniform(5);
  from_backbone->InitXavierUniform(5);
  // Legalized: the matmul is gone, PyTorch's rule gives the same bound for a 2-D weight.
  EXPECT_TRUE(from_module->param(0).BitwiseEqual(from_backbone->param(0)));
  double a = from_module->Update({test::SampleInputs()}, {test::SampleTargets()}).GetAsDouble(0);
  double b = from_backbone->Update({test::SampleInputs()}, {test::SampleTargets()}).GetAsDouble(0);
  EXPECT_NEAR(a, b, 1e-6 * std::abs(a));
}

TEST(BuildTrainer, RefusesModulesThatAreNotTrainerModules) {
  EXPECT_EQ(ErrorOf([] { BuildTrainerProgram(ParseModule(test::kLinearBackbone)); }),
            "trainer module: no function @train_step (a backbone module needs a loss and an optimizer: SetupTrainer)");
  IRModule trainer_module = SetupTrainer(ParseModule(test::kLinearBackbone),
                                         {.loss = {"mse", ""}, .optimizer = {"sgd", ""}, .plugins = &test::TrainingPlugins()});
  IRModule no_attr = trainer_module;
  no_attr.attrs.Erase("target_num");
  EXPECT_EQ(ErrorOf([&] { BuildTrainerProgram(no_attr); }),
            "trainer module: attribute target_num is missing (is it SetupTrainer's result?)");
  IRModule wrong_count = trainer_module;
  wrong_count.attrs.Set("param_num", int64_t{3});
  EXPECT_NE(ErrorOf([&] { BuildTrainerProgram(wrong_count); }).find("@train_step takes"), std::string::npos);
  IRModule no_names = trainer_module;
  no_names.attrs.Set("optim_state_names", AttrArray{});
  EXPECT_NE(ErrorOf([&] { BuildTrainerProgram(no_names); }).find("optimizer states but 0 names"), std::string::npos);
  IRModule no_predict = trainer_module;
  no_predict.Remove("predict");
  EXPECT_EQ(ErrorOf([&] { BuildTrainerProgram(no_predict); }), "trainer module: no function @predict");
}

}  // namespace
}  // namespace rxt
