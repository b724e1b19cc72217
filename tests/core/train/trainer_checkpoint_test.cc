// Trainer checkpoints (core/src/train/trainer_checkpoint.cc): a run resumed from a checkpoint
// continues bit-identically, the file is written atomically, and every checkpoint that does
// not fit the trainer is refused before anything changes.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/train/trainer_fixture.h"

namespace rxt {
namespace {

namespace fs = std::filesystem;
using test::CodeOf;
using test::SampleInputs;
using test::SampleTargets;

fs::path TempDir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("rxt_trainer_checkpoint_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

/// A batch that differs from step to step.
Tensor Inputs(int step) { return test::Ramp({4, 3}, -0.5f + 0.01f * static_cast<float>(step), 0.1f); }

struct Run {
  std::vector<double> losses;
  std::vector<std::pair<std::string, Tensor>> params;
  std::vector<Tensor> optimizer;
};

void Train(Trainer& trainer, int from, int to, Run& run) {
  for (int step = from; step < to; ++step) {
    run.losses.push_back(trainer.Update({Inputs(step)}, {SampleTargets()}).GetAsDouble(0));
  }
  run.params = trainer.ExportParams();
  run.optimizer = trainer.optimizer_state();
}

void ExpectIdentical(const Run& a, const Run& b) {
  ASSERT_EQ(a.losses.size(), b.losses.size());
  for (size_t i = 0; i < a.losses.size(); ++i) EXPECT_EQ(a.losses[i], b.losses[i]) << "loss " << i;
  for (size_t i = 0; i < a.params.size(); ++i) EXPECT_TRUE(a.params[i].second.BitwiseEqual(b.params[i].second));
  ASSERT_EQ(a.optimizer.size(), b.optimizer.size());
  for (size_t i = 0; i < a.optimizer.size(); ++i) EXPECT_TRUE(a.optimizer[i].BitwiseEqual(b.optimizer[i])) << i;
}

void ExpectResumeIsBitIdentical(const std::string& optimizer, const std::string& options, const std::string& schedule) {
  fs::path dir = TempDir(optimizer);
  TrainerProgram program = test::LinearProgram("mse", optimizer, options);
  auto configure = [&](Trainer& t) {
    if (!schedule.empty()) t.SetSchedule(ParseLrSchedule(schedule), 0.05);
  };

  // Uninterrupted: 8 steps. Interrupted: 3 steps, checkpoint, a new trainer resumes for 5.
  auto whole = test::MakeTrainer(program);
  configure(*whole);
  whole->InitXavierUniform(11);
  Run uninterrupted, first, second;
  Train(*whole, 0, 8, uninterrupted);

  auto before = test::MakeTrainer(program);
  configure(*before);
  before->InitXavierUniform(11);
  Train(*before, 0, 3, first);
  std::string path = (dir / "ckpt.safetensors").string();
  before->SaveCheckpoint(path, {{"epoch", "1"}});

  auto after = test::MakeTrainer(program);
  configure(*after);
  std::map<std::string, std::string> metadata = after->LoadCheckpoint(path);
  EXPECT_EQ(metadata, (std::map<std::string, std::string>{{"epoch", "1"}}));
  EXPECT_EQ(after->step(), 3);
  Train(*after, 3, 8, second);

  Run resumed = second;
  resumed.losses = first.losses;
  resumed.losses.insert(resumed.losses.end(), second.losses.begin(), second.losses.end());
  ExpectIdentical(uninterrupted, resumed);
  // Nothing but the checkpoint in the directory: the temporary file was renamed.
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) files += entry.is_regular_file();
  EXPECT_EQ(files, 1);
  fs::remove_all(dir);
}

TEST(TrainerCheckpoint, SgdResumesBitIdentically) { ExpectResumeIsBitIdentical("sgd", "lr=0.05", ""); }

TEST(TrainerCheckpoint, AdamWithACosineScheduleResumesBitIdentically) {
  ExpectResumeIsBitIdentical("adam", "lr=0.05", "cosine:total_steps=8,warmup=2");
}

TEST(TrainerCheckpoint, MomentumResumesBitIdentically) {
  ExpectResumeIsBitIdentical("momentum", "lr=0.05, momentum=0.9", "step:step_size=2,gamma=0.5");
}

TEST(TrainerCheckpoint, HoldsNamedTensorsAndTheStep) {
  auto trainer = test::LinearTrainer("adam", "lr=0.01");
  trainer->Update({SampleInputs()}, {SampleTargets()});
  TensorFile file = trainer->MakeCheckpoint();
  EXPECT_NE(file.Find("param/w"), nullptr);
  EXPECT_NE(file.Find("param/b"), nullptr);
  EXPECT_NE(file.Find("optim/lr"), nullptr);
  EXPECT_NE(file.Find("optim/step"), nullptr);
  EXPECT_EQ(file.metadata.at("rxt.step"), "1");
  EXPECT_EQ(file.metadata.at("rxt.format"), "trainer-checkpoint/1");
  EXPECT_EQ(file.Find("param/w")->GetAsDouble(0), trainer->param("w").GetAsDouble(0));
}

std::string RestoreError(Trainer& trainer, const TensorFile& file) {
  try {
    trainer.RestoreCheckpoint(file, "ckpt");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kDataLoss) << e.what();
    return e.what();
  }
  return "(no error)";
}

TensorFile Without(TensorFile file, const std::string& name) {
  std::erase_if(file.tensors, [&](const auto& entry) { return entry.first == name; });
  return file;
}

TensorFile Replacing(TensorFile file, const std::string& name, Tensor value) {
  for (auto& entry : file.tensors) {
    if (entry.first == name) entry.second = std::move(value);
  }
  return file;
}

TEST(TrainerCheckpoint, RefusesWhatDoesNotFitAndChangesNothing) {
  auto trainer = test::LinearTrainer("sgd", "lr=0.05");
  trainer->InitXavierUniform(1);
  trainer->Update({SampleInputs()}, {SampleTargets()});
  TensorFile good = trainer->MakeCheckpoint();
  Tensor w = trainer->param(0);

  EXPECT_EQ(RestoreError(*trainer, Without(good, "param/w")), "checkpoint 'ckpt': no tensor 'param/w'");
  EXPECT_EQ(RestoreError(*trainer, Replacing(good, "param/w", Tensor::Empty({2, 3}, DType::kFloat32))),
            "checkpoint 'ckpt': 'param/w' is float32 (2, 3), this trainer needs float32 Tensor((3, 2), float32)");
  EXPECT_EQ(RestoreError(*trainer, Replacing(good, "optim/lr", Tensor::Empty({}, DType::kFloat64))),
            "checkpoint 'ckpt': 'optim/lr' is float64 (), this trainer needs float32 ()");
  TensorFile extra = good;
  extra.tensors.emplace_back("param/v", Tensor::Empty({1}, DType::kFloat32));
  EXPECT_EQ(RestoreError(*trainer, extra),
            "checkpoint 'ckpt': tensor 'param/v' is not a parameter, state or optimizer state of this trainer");
  TensorFile no_format = good;
  no_format.metadata.erase("rxt.format");
  EXPECT_NE(RestoreError(*trainer, no_format).find("not an rxt trainer checkpoint"), std::string::npos);
  TensorFile bad_step = good;
  bad_step.metadata["rxt.step"] = "12x";
  EXPECT_EQ(RestoreError(*trainer, bad_step), "checkpoint 'ckpt': metadata rxt.step is '12x', not a step count (0 to 2^53)");
  // Issue 11, class 2: every number read from a file is range-checked.
  bad_step.metadata["rxt.step"] = "9223372036854775807";
  EXPECT_EQ(RestoreError(*trainer, bad_step),
            "checkpoint 'ckpt': metadata rxt.step is '9223372036854775807', not a step count (0 to 2^53)");
  bad_step.metadata.erase("rxt.step");
  EXPECT_EQ(RestoreError(*trainer, bad_step), "checkpoint 'ckpt': no metadata rxt.step (the step count)");

  auto adam = test::LinearTrainer("adam", "lr=0.05");
  std::string other = RestoreError(*trainer, adam->MakeCheckpoint());
  EXPECT_NE(other.find("is not this trainer's (lr, weight_decay, step)"), std::string::npos) << other;
  EXPECT_NE(other.find("another optimizer"), std::string::npos) << other;

  EXPECT_TRUE(trainer->param(0).BitwiseEqual(w));
  EXPECT_EQ(trainer->step(), 1);

  EXPECT_EQ(CodeOf([&] { trainer->MakeCheckpoint({{"rxt.step", "3"}}); }), ErrorCode::kInvalidArgument);
  EXPECT_EQ(CodeOf([&] { trainer->LoadCheckpoint("/nonexistent/ckpt.safetensors"); }), ErrorCode::kNotFound);
}

TEST(TrainerCheckpoint, CorruptFilesAreDataLoss) {
  fs::path dir = TempDir("corrupt");
  auto trainer = test::LinearTrainer();
  std::string path = (dir / "ckpt.safetensors").string();
  trainer->SaveCheckpoint(path);
  fs::resize_file(path, fs::file_size(path) - 3);
  try {
    trainer->LoadCheckpoint(path);
    ADD_FAILURE() << "a truncated checkpoint loaded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kDataLoss) << e.what();
    EXPECT_NE(std::string(e.what()).find("ckpt.safetensors"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace rxt
