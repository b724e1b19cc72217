// rxt.hpp's Trainer: built from a backbone through librxt.so only, trained a few steps, with
// tensors by name, checkpoint and trainer-file round trips and errors as exceptions.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "rxt/rxt.hpp"

namespace {

const char kBackbone[] = R"(attributes {param_num = 2, state_num = 0}
def @backbone(%x: Tensor((4, 3), float32), %w: Tensor((3, 2), float32), %b: Tensor((2,), float32))
    -> Tensor((4, 2), float32) {
  dataflow {
    %h = matmul(%x, %w)
    %out = add(%h, %b)
    output %out
  }
  return %out
})";

/// A borrowed float32 view of |data|.
struct View {
  View(float* data, std::vector<int64_t> dims) : shape(std::move(dims)) {
    managed.dl_tensor.data = data;
    managed.dl_tensor.device = {kDLCPU, 0};
    managed.dl_tensor.ndim = static_cast<int32_t>(shape.size());
    managed.dl_tensor.dtype = {kDLFloat, 32, 1};
    managed.dl_tensor.shape = shape.data();
  }
  std::vector<int64_t> shape;
  DLManagedTensor managed{};
};

TEST(RxtHppTrainerTest, TrainsPredictsAndResumes) {
  rxt::abi::Module module = rxt::abi::Module::Parse(kBackbone, "linear.rxt");
  rxt::abi::TrainerOptions options;
  options.loss = "mse";
  options.loss_options = "reduction=\"sum\"";
  options.optimizer = "adam";
  options.optimizer_options = "lr=0.05";
  rxt::abi::Trainer trainer = rxt::abi::Trainer::Create(module, options);
  EXPECT_EQ(trainer.Count(RXT_TRAINER_PARAMS), 2u);
  EXPECT_EQ(trainer.Name(RXT_TRAINER_PARAMS, 1), "b");
  EXPECT_EQ(trainer.Find(RXT_TRAINER_PARAMS, "w"), 0u);
  trainer.InitXavierUniform(4);

  float x[12], y[8], bias[2] = {0.5f, -0.5f};
  for (int i = 0; i < 12; ++i) x[i] = -0.5f + 0.1f * static_cast<float>(i);
  for (int i = 0; i < 8; ++i) y[i] = 0.3f - 0.07f * static_cast<float>(i);
  View xv(x, {4, 3}), yv(y, {4, 2}), bv(bias, {2});
  trainer.Set(RXT_TRAINER_PARAMS, "b", &bv.managed);
  EXPECT_EQ(static_cast<float*>(trainer.Get(RXT_TRAINER_PARAMS, "b")->dl_tensor.data)[0], 0.5f);

  double first = trainer.Evaluate({&xv.managed}, {&yv.managed});
  for (int i = 0; i < 40; ++i) trainer.Update({&xv.managed}, {&yv.managed});
  EXPECT_LT(trainer.Evaluate({&xv.managed}, {&yv.managed}), 0.2 * first);
  EXPECT_EQ(trainer.Step(), 40);
  std::vector<rxt::abi::ManagedTensor> out = trainer.Predict({&xv.managed});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0]->dl_tensor.shape[1], 2);
  EXPECT_NE(trainer.ProfileStep({&xv.managed}, {&yv.managed}).find("kernel"), std::string::npos);

  std::string path = ::testing::TempDir() + "rxt_hpp_trainer.safetensors";
  trainer.SaveCheckpoint(path);
  double next = trainer.Update({&xv.managed}, {&yv.managed});
  rxt::abi::Trainer resumed = rxt::abi::Trainer::Create(module, options);
  resumed.LoadCheckpoint(path);
  EXPECT_EQ(resumed.Update({&xv.managed}, {&yv.managed}), next);
  std::remove(path.c_str());

  // The same through a trainer file.
  std::string file = ::testing::TempDir() + "rxt_hpp_trainer.rxtt";
  trainer.Save(file);
  rxt::abi::Trainer reopened = rxt::abi::Trainer::Load(file);
  EXPECT_EQ(reopened.Step(), trainer.Step());
  EXPECT_EQ(reopened.Update({&xv.managed}, {&yv.managed}), trainer.Update({&xv.managed}, {&yv.managed}));
  std::remove(file.c_str());

  try {
    trainer.Update({&yv.managed}, {&yv.managed});
    FAIL() << "an update with the wrong input shape succeeded";
  } catch (const rxt::abi::Error& e) {
    EXPECT_EQ(e.code(), RXT_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("train_step: argument 0 (%x)"), std::string::npos) << e.what();
  }
}

}  // namespace
