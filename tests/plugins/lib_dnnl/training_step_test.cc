// One training step of LeNet-5 (examples/lenet.rxt at batch 4, SGD with momentum, mean cross
// entropy) built with the dnnl library (its convolution gradients as dnnl.conv2d_backward_*
// calls) and without it gives the same loss and updated parameters on the reference backend;
// so does a small net with resnet's stem pooling (3x3 windows, stride 2, padding 1: its
// gradient dnnl.max_pool2d_backward_strided, the ReLU gradient folded in).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>

#include "test_util/reference_provider.h"
#include "rxt/exec/build_trainer.h"
#include "rxt/ir/parser.h"
#include "rxt/ir/printer.h"
#include "rxt/plugin/plugin_host.h"
#include "rxt/train/trainer.h"
#include "test_util/training_plugins.h"

namespace rxt {
namespace {

// examples/lenet.rxt with batch 4 instead of 64 (the reference interpreter is slow).
IRModule SmallLeNet() {
  std::ifstream in(std::string(RXT_SOURCE_DIR) + "/examples/lenet.rxt");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  for (const std::string from : {"(64, ", "shape(64, "}) {
    std::string to = from.substr(0, from.size() - 4) + "4, ";
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
      text.replace(at, from.size(), to);
    }
  }
  return ParseModule(text, "lenet4.rxt");
}

std::unique_ptr<Trainer> LeNetTrainer(const std::vector<std::string>& libraries) {
  TrainerProgram program = BuildTrainerProgram(
      SmallLeNet(),
      {.loss = {"cross_entropy", "reduction=\"mean\""},
       .optimizer = {"momentum", "lr=0.05, momentum=0.9"},
       .plugins = &test::TrainingPlugins()},
      {.backend = "reference", .opt_level = 0, .libraries = libraries});
  auto trainer = std::make_unique<Trainer>(std::move(program), std::make_shared<testing::ReferenceKernelProvider>());
  trainer->InitXavierUniform(3);
  return trainer;
}

std::vector<std::string> ExternNames(const Trainer& trainer) {
  std::vector<std::string> names;
  for (const auto& e : trainer.program().executable.externs) names.push_back(e);
  std::sort(names.begin(), names.end());
  return names;
}

/// Two steps of both trainers on (x, y) give the same losses and parameters (within float32
/// rounding of a different summation order); the second step also checks the momentum state.
void ExpectSameSteps(Trainer& with, Trainer& without, const Tensor& x, const Tensor& y) {
  for (int step = 0; step < 2; ++step) {
    float loss_with = static_cast<float>(with.Update({x}, {y}).GetAsDouble(0));
    float loss_without = static_cast<float>(without.Update({x}, {y}).GetAsDouble(0));
    EXPECT_NEAR(loss_with, loss_without, 1e-4f * (1 + std::abs(loss_without))) << "step " << step;
  }
  for (int p = 0; p < with.param_num(); ++p) {
    const Tensor& a = with.param(p);
    const Tensor& b = without.param(p);
    ASSERT_EQ(a.shape(), b.shape());
    for (int64_t i = 0; i < a.numel(); ++i) {
      float u = a.data_as<float>()[i], v = b.data_as<float>()[i];
      ASSERT_NEAR(u, v, 1e-4f * (1 + std::abs(v))) << "parameter " << p << " at " << i;
    }
  }
}

TEST(LibraryTraining, LeNetStepSameWithDnnl) {
  PluginHost::Global().Load(RXT_LIB_DNNL_PLUGIN);
  std::unique_ptr<Trainer> with = LeNetTrainer({"dnnl"}), without = LeNetTrainer({});
  std::vector<std::string> externs = ExternNames(*with);
  for (const char* name : {"dnnl.conv2d_backward_data", "dnnl.conv2d_backward_weights_bias", "dnnl.conv2d_bias",
                           "dnnl.matmul", "dnnl.matmul_bias"}) {
    EXPECT_NE(std::find(externs.begin(), externs.end(), name), externs.end()) << name;
  }
  EXPECT_TRUE(ExternNames(*without).empty());

  std::mt19937 rng(12);
  std::uniform_real_distribution<float> pixel(0.0f, 1.0f);
  Tensor x = Tensor::Empty({4, 1, 28, 28}, DType::kFloat32);
  for (int64_t i = 0; i < x.numel(); ++i) x.data_as<float>()[i] = pixel(rng);
  Tensor y = Tensor::FromVector<int64_t>({4}, DType::kInt64, {3, 0, 9, 5});
  ExpectSameSteps(*with, *without, x, y);
}

// resnet's stem in small: conv 3 -> 4 (3x3, padding 1) on 10x10 images, bias, ReLU, max pooling
// 3x3 stride 2 padding 1 (5x5), a dense layer to 10 classes.
IRModule StemNet() {
  return ParseModule(R"(
attributes {param_num = 4, state_num = 0}
def @backbone(%x: Tensor((3, 3, 10, 10), float32), %w: Tensor((4, 3, 3, 3), float32),
              %b: Tensor((1, 4, 1, 1), float32), %fw: Tensor((100, 10), float32),
              %fb: Tensor((10,), float32)) -> Tensor((3, 10), float32) {
  dataflow {
    %c: Tensor((3, 4, 10, 10), float32) = nn.conv2d(%x, %w, padding=[1, 1, 1, 1])
    %ca: Tensor((3, 4, 10, 10), float32) = add(%c, %b)
    %cr: Tensor((3, 4, 10, 10), float32) = nn.relu(%ca)
    %p: Tensor((3, 4, 5, 5), float32) = nn.max_pool2d(%cr, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1])
    %flat: Tensor((3, 100), float32) = reshape(%p, shape(3, 100))
    %f: Tensor((3, 10), float32) = matmul(%flat, %fw)
    %out: Tensor((3, 10), float32) = add(%f, %fb)
    output %out
  }
  return %out
}
)",
                     "stem.rxt");
}

TEST(LibraryTraining, StridedPoolingStepSameWithDnnl) {
  PluginHost::Global().Load(RXT_LIB_DNNL_PLUGIN);
  auto make = [](const std::vector<std::string>& libraries) {
    TrainerProgram program = BuildTrainerProgram(
        StemNet(),
        {.loss = {"cross_entropy", "reduction=\"mean\""},
         .optimizer = {"momentum", "lr=0.05, momentum=0.9"},
         .plugins = &test::TrainingPlugins()},
        {.backend = "reference", .opt_level = 0, .libraries = libraries});
    auto trainer = std::make_unique<Trainer>(std::move(program), std::make_shared<testing::ReferenceKernelProvider>());
    trainer->InitXavierUniform(5);
    return trainer;
  };
  std::unique_ptr<Trainer> with = make({"dnnl"}), without = make({});
  std::vector<std::string> externs = ExternNames(*with);
  EXPECT_NE(std::find(externs.begin(), externs.end(), "dnnl.max_pool2d_backward_strided"), externs.end());
  std::mt19937 rng(13);
  std::uniform_real_distribution<float> pixel(-1.0f, 1.0f);
  Tensor x = Tensor::Empty({3, 3, 10, 10}, DType::kFloat32);
  for (int64_t i = 0; i < x.numel(); ++i) x.data_as<float>()[i] = pixel(rng);
  Tensor y = Tensor::FromVector<int64_t>({3}, DType::kInt64, {1, 7, 4});
  ExpectSameSteps(*with, *without, x, y);
}

// ReLU's gradient reads its output, so each pre-ReLU tensor dies in the forward pass: the
// trainer's convolutions take bias and ReLU into dnnl.conv2d_bias (its last argument, the ReLU
// flag, 1) as in inference, no ReLU kernel is left, and each pooling gradient is one kernel
// with the ReLU gradient's where.
TEST(LibraryTraining, LeNetTrainStepFoldsTheReLUsIntoLibraryCalls) {
  PluginHost::Global().Load(RXT_LIB_DNNL_PLUGIN);  // the library's patterns
  IRModule trainer = SetupTrainer(SmallLeNet(), {.loss = {"cross_entropy", "reduction=\"mean\""},
                                                 .optimizer = {"momentum", "lr=0.05, momentum=0.9"},
                                                 .legalize = false,
                                                 .plugins = &test::TrainingPlugins()});
  IRModule lowered = LowerForBuild(trainer, {.backend = "cpu", .opt_level = 2, .libraries = {"dnnl"}});
  ASSERT_NE(lowered.FindFunction("train_step"), nullptr);
  std::string step = PrintFunction(lowered.FindFunction("train_step"), "train_step");
  auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t at = step.find(what); at != std::string::npos; at = step.find(what, at + 1)) ++n;
    return n;
  };
  // The binding of |var| calls extern |name| with the last scalar argument |last|.
  auto binds = [&](const std::string& var, const std::string& name, const std::string& last) {
    size_t at = step.find("    %" + var + ": ");
    if (at == std::string::npos) return false;
    std::string line = step.substr(at, step.find('\n', at) - at);
    return line.find("call_extern(\"" + name + "\"") != std::string::npos &&
           line.find(last + "), out_sinfo") != std::string::npos;
  };
  EXPECT_EQ(count("call_extern(\"dnnl.conv2d_bias\""), 2u) << step;
  EXPECT_TRUE(binds("c1r", "dnnl.conv2d_bias", "prim(1)")) << step;  // conv 1 with its ReLU
  EXPECT_TRUE(binds("c2r", "dnnl.conv2d_bias", "prim(1)")) << step;  // conv 2 with its ReLU
  EXPECT_EQ(count("@relu"), 0u) << step;
  // Both pooling gradients, each with the ReLU gradient before it folded in (relu = 1).
  EXPECT_EQ(count("call_extern(\"dnnl.max_pool2d_backward\""), 2u) << step;
  EXPECT_TRUE(binds("c1a_adjoint", "dnnl.max_pool2d_backward", "prim(2), prim(2), prim(1)")) << step;
  EXPECT_TRUE(binds("c2a_adjoint", "dnnl.max_pool2d_backward", "prim(2), prim(2), prim(1)")) << step;
}

}  // namespace
}  // namespace rxt
