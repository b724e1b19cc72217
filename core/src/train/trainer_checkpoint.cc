/// Trainer checkpoints (train/trainer.h): parameters, states, optimizer state and the step
/// count in one safetensors file, checked in full before anything is restored.
#include <charconv>
#include <set>

#include "rxt/support/error.h"
#include "rxt/support/message_text.h"
#include "rxt/train/trainer.h"

namespace rxt {
namespace {

constexpr const char* kFormatKey = "rxt.format";
constexpr const char* kFormat = "trainer-checkpoint/1";
constexpr const char* kStepKey = Trainer::kCheckpointStepKey;

std::string ParamKey(const std::string& name) { return "param/" + name; }
std::string StateKey(const std::string& name) { return "state/" + name; }
std::string OptimKey(const std::string& name) { return "optim/" + name; }

// A step count stays far from overflowing when training adds to it.
constexpr int64_t kMaxStep = int64_t{1} << 53;

std::string ShapeOf(const std::vector<int64_t>& shape) { return ShapeText(shape.data(), shape.size()); }

/// The tensor |key| of |file|, with |dtype| and a shape |fits| accepts; kDataLoss otherwise.
template <typename Fits>
const Tensor& Expect(const TensorFile& file, const std::string& source, const std::string& key, DType dtype,
                     const std::string& expected_shape, Fits fits) {
  const Tensor* t = file.Find(key);
  if (t == nullptr) Throw(ErrorCode::kDataLoss, "checkpoint ", Quoted(source), ": no tensor ", Quoted(key));
  if (t->dtype() != dtype || !fits(t->shape())) {
    Throw(ErrorCode::kDataLoss, "checkpoint ", Quoted(source), ": ", Quoted(key), " is ", DTypeName(t->dtype()), " ",
          ShapeOf(t->shape()), ", this trainer needs ", DTypeName(dtype), " ", expected_shape);
  }
  return *t;
}

const Tensor& ExpectSpec(const TensorFile& file, const std::string& source, const std::string& key,
                         const TrainerTensorSpec& spec) {
  auto fits = [&spec](const std::vector<int64_t>& shape) {
    if (spec.ndim < 0) return true;
    if (static_cast<int>(shape.size()) != spec.ndim) return false;
    for (int d = 0; d < spec.ndim; ++d) {
      if (spec.shape[d] >= 0 && spec.shape[d] != shape[d]) return false;
    }
    return true;
  };
  std::string text = spec.TypeText();
  return Expect(file, source, key, spec.dtype, text, fits);
}

}  // namespace

TensorFile Trainer::MakeCheckpoint(const std::map<std::string, std::string>& metadata) const {
  CheckNothingAccumulated("save a checkpoint");
  CheckReady("checkpoint");
  TensorFile file;
  for (const auto& [key, value] : metadata) {
    if (key.rfind("rxt.", 0) == 0) {
      Throw(ErrorCode::kInvalidArgument, "checkpoint: metadata key '", key, "' is reserved (keys starting \"rxt.\")");
    }
    file.metadata[key] = value;
  }
  file.metadata[kFormatKey] = kFormat;
  file.metadata[kStepKey] = std::to_string(step_);
  for (int i = 0; i < param_num(); ++i) file.tensors.emplace_back(ParamKey(program_.params[i].name), params_[i]);
  for (int i = 0; i < state_num(); ++i) file.tensors.emplace_back(StateKey(program_.states[i].name), states_[i]);
  for (size_t i = 0; i < optim_state_.size(); ++i) {
    file.tensors.emplace_back(OptimKey(program_.optim_state_names[i]), optim_state_[i]);
  }
  return file;
}

void Trainer::SaveCheckpoint(const std::string& path, const std::map<std::string, std::string>& metadata) const {
  SaveSafetensors(path, MakeCheckpoint(metadata));
}

std::map<std::string, std::string> Trainer::RestoreCheckpoint(const TensorFile& file, const std::string& source) {
  auto format = file.metadata.find(kFormatKey);
  if (format == file.metadata.end() || format->second != kFormat) {
    Throw(ErrorCode::kDataLoss, "checkpoint ", Quoted(source), ": not an rxt trainer checkpoint (metadata ", kFormatKey,
          " is ", format == file.metadata.end() ? "missing" : Quoted(format->second), ", expected '", kFormat, "')");
  }
  int64_t step = -1;
  auto step_text = file.metadata.find(kStepKey);
  if (step_text == file.metadata.end()) {
    Throw(ErrorCode::kDataLoss, "checkpoint ", Quoted(source), ": no metadata ", kStepKey, " (the step count)");
  }
  const std::string& text = step_text->second;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), step);
  if (ec != std::errc() || end != text.data() + text.size() || step < 0 || step > kMaxStep) {
    Throw(ErrorCode::kDataLoss, "checkpoint ", Quoted(source), ": metadata ", kStepKey, " is ", Quoted(text),
          ", not a step count (0 to 2^53)");
  }

  // The optimizer must be the same one: compare the state names first, for a clear message.
  std::vector<std::string> file_optim;
  std::set<std::string> expected;
  for (const auto& [key, tensor] : file.tensors) {
    if (key.rfind("optim/", 0) == 0) file_optim.push_back(key.substr(6));
  }
  std::set<std::string> file_optim_set(file_optim.begin(), file_optim.end());
  std::set<std::string> own_optim(program_.optim_state_names.begin(), program_.optim_state_names.end());
  if (file_optim_set != own_optim) {
    auto join = [](const auto& names) {
      std::string text;
      for (const std::string& n : names) text += (text.empty() ? "" : ", ") + n;
      return text.empty() ? std::string("none") : text;
    };
    Throw(ErrorCode::kDataLoss, "checkpoint ", Quoted(source), ": its optimizer state (", MessageText(join(file_optim)),
          ") is not this trainer's (", join(program_.optim_state_names), "): was it made with another optimizer?");
  }

  std::vector<Tensor> params, states, optim;
  for (const TrainerTensorSpec& spec : program_.params) {
    params.push_back(ExpectSpec(file, source, ParamKey(spec.name), spec));
    expected.insert(ParamKey(spec.name));
  }
  for (const TrainerTensorSpec& spec : program_.states) {
    states.push_back(ExpectSpec(file, source, StateKey(spec.name), spec));
    expected.insert(StateKey(spec.name));
  }
  for (size_t i = 0; i < program_.optim_state_names.size(); ++i) {
    const InitialOptimState& initial = program_.initial_optim_state[i];
    std::string key = OptimKey(program_.optim_state_names[i]);
    optim.push_back(Expect(file, source, key, initial.dtype, ShapeOf(initial.shape),
                           [&initial](const std::vector<int64_t>& shape) { return shape == initial.shape; }));
    expected.insert(key);
  }
  for (const auto& [key, tensor] : file.tensors) {
    if (expected.count(key) == 0) {
      Throw(ErrorCode::kDataLoss, "checkpoint ", Quoted(source), ": tensor ", Quoted(key),
            " is not a parameter, state or optimizer state of this trainer");
    }
  }

  params_ = std::move(params);
  states_ = std::move(states);
  optim_state_ = std::move(optim);
  step_ = step;
  // Micro-batches accumulated before are of another run: dropped.
  loss_sum_.clear();
  grad_sums_.clear();
  accumulated_ = 0;
  std::map<std::string, std::string> user;
  for (const auto& [key, value] : file.metadata) {
    if (key.rfind("rxt.", 0) != 0) user[key] = value;
  }
  return user;
}

std::map<std::string, std::string> Trainer::LoadCheckpoint(const std::string& path) {
  return RestoreCheckpoint(LoadSafetensors(path), path);
}

}  // namespace rxt
