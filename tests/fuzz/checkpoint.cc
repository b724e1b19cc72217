// Fuzz target checkpoint: restoring a trainer checkpoint (Trainer::RestoreCheckpoint, core/src/
// train/trainer_checkpoint.cc) and `rxt train --resume`'s reading of its metadata
// (ReadCheckpointMetadata, ParseHistoryJson: apps/rxt/train_checkpoints.cc, training_metrics.cc)
// and plot of the history read back (svg_plot.cc).
//
// The first byte chooses what the rest is: even, a safetensors checkpoint; odd, the history's
// JSON alone (deep inside a checkpoint's header, byte mutations rarely reach it well-formed).
// A restore either changes nothing (an rxt::Error) or makes the trainer hold exactly the file's
// tensors; a history that reads writes back to JSON that reads to the same history.
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "fuzz_util.h"
#include "rxt/support/error.h"
#include "rxt/runtime/safetensors.h"
#include "rxt/train/trainer.h"
#include "train_checkpoints.h"
#include "train_options.h"
#include "training_metrics.h"

namespace {

using rxt::DType;
using rxt::Tensor;

// The trainer needs a backend only to load kernels, and this program has none.
class NoKernels : public rxt::KernelProvider {
 public:
  std::string name() const override { return "reference"; }
  std::unique_ptr<rxt::Kernel> Load(const rxt::KernelRecord&) override {
    rxt::Throw(rxt::ErrorCode::kInternal, "no kernels here");
  }
};

rxt::TrainerTensorSpec Spec(const std::string& name, std::vector<int64_t> shape) {
  rxt::TrainerTensorSpec spec;
  spec.name = name;
  spec.dtype = DType::kFloat32;
  spec.ndim = static_cast<int>(shape.size());
  spec.shape = std::move(shape);
  return spec;
}

Tensor Scalar(DType dtype, double value) {
  Tensor t = Tensor::Empty({}, dtype);
  if (dtype == DType::kInt64) {
    *t.data_as<int64_t>() = static_cast<int64_t>(value);
  } else {
    *t.data_as<float>() = static_cast<float>(value);
  }
  return t;
}

// A small trainer of the layout SetupTrainer gives a linear layer with a running statistic
// (one dim not static) and SGD with momentum; its functions do nothing (restoring runs none).
std::unique_ptr<rxt::Trainer> SmallTrainer() {
  rxt::TrainerProgram program;
  for (const char* name : {"train_step", "predict", "backbone_loss"}) {
    rxt::VMFunction f;
    f.name = name;
    f.num_registers = 1;
    f.code.push_back({.op = rxt::Opcode::kMakeTuple, .dst = 0});
    f.code.push_back({.op = rxt::Opcode::kReturn, .arg = 0});
    program.executable.functions.push_back(std::move(f));
  }
  program.inputs = {Spec("x", {4, 3})};
  program.targets = {Spec("y", {4, 2})};
  program.params = {Spec("w", {3, 2}), Spec("b", {2})};
  program.states = {Spec("running_mean", {-1, 2})};
  program.optim_state_names = {"lr", "step", "velocity.0", "velocity.1"};
  for (const rxt::Tensor& initial : {Scalar(DType::kFloat32, 0.01), Scalar(DType::kInt64, 0), Tensor::Empty({3, 2}, DType::kFloat32),
                                     Tensor::Empty({2}, DType::kFloat32)}) {
    program.initial_optim_state.push_back(rxt::InitialOptimState::Of(initial));
  }
  return std::make_unique<rxt::Trainer>(std::move(program), std::make_shared<NoKernels>());
}

bool SameTensor(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && a.nbytes() == b.nbytes() &&
         (a.nbytes() == 0 || std::memcmp(a.data(), b.data(), a.nbytes()) == 0);
}

void CheckRestore(const rxt::TensorFile& file) {
  std::unique_ptr<rxt::Trainer> trainer = SmallTrainer();
  std::map<std::string, std::string> user;
  try {
    user = trainer->RestoreCheckpoint(file, "fuzz.safetensors");
  } catch (const rxt::Error&) {
    return;  // a checkpoint of another trainer, or not one
  }
  for (const auto& [name, tensor] : trainer->MakeCheckpoint(user).tensors) {
    const Tensor* restored = file.Find(name);
    FUZZ_CHECK(restored != nullptr && SameTensor(*restored, tensor), "tensor '" + name + "' was not restored as stored");
  }
  for (const auto& [key, value] : user) FUZZ_CHECK(key.rfind("rxt.", 0) != 0, "reserved key '" + key + "' returned");
}

// A number of a history: equal, or both NaN (a diverged loss is written as null).
bool Same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

bool SameHistory(const rxt::cli::TrainingHistory& a, const rxt::cli::TrainingHistory& b) {
  if (a.epochs.size() != b.epochs.size() || a.curve.size() != b.curve.size()) return false;
  for (size_t i = 0; i < a.epochs.size(); ++i) {
    const auto &x = a.epochs[i], &y = b.epochs[i];
    if (x.epoch != y.epoch || !Same(x.loss, y.loss) || !Same(x.test_accuracy, y.test_accuracy) ||
        !Same(x.seconds, y.seconds) || !Same(x.steps_per_second, y.steps_per_second)) {
      return false;
    }
  }
  for (size_t i = 0; i < a.curve.size(); ++i) {
    if (!Same(a.curve[i].epoch, b.curve[i].epoch) || !Same(a.curve[i].loss, b.curve[i].loss)) return false;
  }
  return true;
}

// What `rxt train --resume` does with a history it read: writes it back with the next epoch's
// checkpoint, and plots it.
void CheckHistory(const rxt::cli::TrainingHistory& history) {
  std::string json = rxt::cli::HistoryJson(history);
  rxt::cli::TrainingHistory again;
  try {
    again = rxt::cli::ParseHistoryJson(json, "written", rxt::cli::kMaxEpochs);
  } catch (const rxt::Error& e) {
    FUZZ_CHECK(false, std::string("a history written back does not read: ") + e.what() + "\n" + json);
  }
  FUZZ_CHECK(SameHistory(history, again), "a history written back reads as another one:\n" + json);
  rxt::cli::PlotSvg(history, "fuzz");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  if (data[0] % 2 == 1) {
    rxt::cli::TrainingHistory history;
    try {
      history = rxt::cli::ParseHistoryJson(std::string(reinterpret_cast<const char*>(data) + 1, size - 1), "fuzz",
                                           rxt::cli::kMaxEpochs);
    } catch (const rxt::Error&) {
      return 0;
    }
    CheckHistory(history);
    return 0;
  }
  rxt::TensorFile file;
  try {
    file = rxt::ParseSafetensors(data + 1, size - 1, "fuzz.safetensors");
  } catch (const rxt::Error&) {
    return 0;  // the safetensors target covers the format itself
  }
  CheckRestore(file);
  rxt::cli::ResumePoint point;
  try {
    point = rxt::cli::ReadCheckpointMetadata(file.metadata, "fuzz.safetensors");
  } catch (const rxt::Error&) {
    return 0;
  }
  FUZZ_CHECK(point.epoch >= 1, "epoch " + std::to_string(point.epoch) + " was accepted");
  CheckHistory(point.history);
  return 0;
}
