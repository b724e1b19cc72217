/// Gradient accumulation (train/trainer.h): @accumulate_step per micro-batch, @apply_step once
/// per optimizer step; the sums live in the trainer between the two.
#include "rxt/support/error.h"
#include "rxt/train/trainer.h"

namespace rxt {
namespace {

constexpr const char* kAccumulateStep = "accumulate_step";
constexpr const char* kApplyStep = "apply_step";

/// The dtype of @apply_step's loss_sum (its argument 0): the loss's.
DType LossDType(const Executable& exec) {
  const VMFunction& f = exec.functions[exec.FindFunction(kApplyStep)];
  for (const TypePattern& p : f.patterns) {
    if (p.context.rfind("argument 0 ", 0) == 0 && p.kind == TypePattern::Kind::kTensor) {
      return static_cast<DType>(p.dtype);
    }
  }
  return DType::kFloat32;
}

}  // namespace

bool Trainer::can_accumulate() const {
  return program_.executable.FindFunction(kAccumulateStep) >= 0 && program_.executable.FindFunction(kApplyStep) >= 0;
}

void Trainer::CheckNothingAccumulated(const char* what) const {
  if (accumulated_ > 0) {
    Throw(ErrorCode::kFailedPrecondition, "trainer: cannot ", what, " with ", accumulated_, " micro-batch",
          accumulated_ == 1 ? "" : "es", " accumulated and not applied (ApplyAccumulated first)");
  }
}

Tensor Trainer::Accumulate(const std::vector<Tensor>& inputs, const std::vector<Tensor>& targets) {
  if (!can_accumulate()) {
    Throw(ErrorCode::kFailedPrecondition,
          "accumulate: the trainer was built without gradient accumulation (SetupTrainer accumulation; "
          "rxt build --trainer --accumulate)");
  }
  CheckReady(kAccumulateStep);
  std::vector<Value> args = Arguments("train_step", inputs, &targets);  // inputs, targets, params, states, optim
  args.resize(args.size() - optim_state_.size());
  if (grad_sums_.empty()) {
    // Zeros to add the first micro-batch to (the new storage comes zero-filled).
    for (const TrainerTensorSpec& spec : program_.params) grad_sums_.push_back(Tensor::Empty(spec.shape, spec.dtype));
    loss_sum_ = {Tensor::Empty({}, LossDType(program_.executable))};
  }
  size_t first_state = inputs.size() + targets.size() + params_.size();
  for (const Tensor& t : loss_sum_) args.emplace_back(t);
  for (const Tensor& t : grad_sums_) args.emplace_back(t);
  Value result = InvokeDonating(kAccumulateStep, args, first_state, {&states_, &loss_sum_, &grad_sums_});
  const std::vector<Value>& fields = result.tuple();
  size_t expected = 1 + states_.size() + 1 + grad_sums_.size();
  RXT_CHECK(fields.size() == expected, "accumulate_step returned ", fields.size(), " values, expected ", expected);
  size_t k = 1;
  for (Tensor& s : states_) s = fields[k++].tensor();
  loss_sum_[0] = fields[k++].tensor();
  for (Tensor& g : grad_sums_) g = fields[k++].tensor();
  ++accumulated_;
  return fields[0].tensor();
}

Tensor Trainer::ApplyAccumulated() {
  if (accumulated_ == 0) {
    Throw(ErrorCode::kFailedPrecondition, "apply: no micro-batch accumulated (Accumulate first)");
  }
  ApplySchedule();
  Tensor count = Tensor::Empty({}, loss_sum_[0].dtype());
  count.SetFromDouble(0, accumulated_);
  std::vector<Value> args;
  args.reserve(2 + grad_sums_.size() + params_.size() + states_.size() + optim_state_.size());
  args.emplace_back(loss_sum_[0]);
  for (const Tensor& g : grad_sums_) args.emplace_back(g);
  args.emplace_back(count);
  for (const auto* group : {&params_, &states_, &optim_state_}) {
    for (const Tensor& t : *group) args.emplace_back(t);
  }
  // The call takes the sums (and the resident values, handed back on failure).
  const size_t first_param = 2 + grad_sums_.size();
  grad_sums_.clear();
  loss_sum_.clear();
  Value result;
  try {
    result = InvokeDonating(kApplyStep, args, first_param, {&params_, &states_, &optim_state_});
  } catch (...) {
    loss_sum_ = {args[0].tensor()};
    for (size_t i = 0; i < program_.params.size(); ++i) grad_sums_.push_back(args[1 + i].tensor());
    throw;
  }
  const std::vector<Value>& fields = result.tuple();
  size_t expected = 1 + params_.size() + states_.size() + optim_state_.size();
  RXT_CHECK(fields.size() == expected, "apply_step returned ", fields.size(), " values, expected ", expected);
  size_t k = 1;
  for (Tensor& p : params_) p = fields[k++].tensor();
  for (Tensor& s : states_) s = fields[k++].tensor();
  for (Tensor& o : optim_state_) o = fields[k++].tensor();
  accumulated_ = 0;
  ++step_;
  return fields[0].tensor();
}

}  // namespace rxt
