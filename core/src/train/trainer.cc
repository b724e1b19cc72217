/// The Trainer (train/trainer.h): resident parameters, states and optimizer state, and the
/// VM calls of @train_step, @predict and @backbone_loss. Initialization is in
/// trainer_init.cc, checkpoints in trainer_checkpoint.cc.
#include "rxt/train/trainer.h"

#include <cmath>

#include "rxt/support/error.h"

namespace rxt {
namespace {

constexpr const char* kTrainStep = "train_step";
constexpr const char* kPredict = "predict";
constexpr const char* kBackboneLoss = "backbone_loss";

std::string NameList(const std::vector<TrainerTensorSpec>& specs) {
  std::string names;
  for (const TrainerTensorSpec& spec : specs) names += (names.empty() ? "" : ", ") + spec.name;
  return names.empty() ? "none" : names;
}

int IndexOf(const std::vector<TrainerTensorSpec>& specs, const std::string& name, const char* what) {
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].name == name) return static_cast<int>(i);
  }
  Throw(ErrorCode::kNotFound, "trainer: no ", what, " named '", name, "' (", what, "s: ", NameList(specs), ")");
}

std::string Describe(const Tensor& t) {
  std::string dims;
  for (size_t i = 0; i < t.shape().size(); ++i) dims += (i == 0 ? "" : ", ") + std::to_string(t.shape()[i]);
  if (t.shape().size() == 1) dims += ",";
  return StrCat(DTypeName(t.dtype()), " (", dims, ")");
}

/// |value| fits |spec|: same dtype, rank and static dims.
void CheckFits(const TrainerTensorSpec& spec, const Tensor& value, const std::string& what) {
  if (!value.defined()) Throw(ErrorCode::kInvalidArgument, what, " '", spec.name, "': the tensor is undefined");
  bool fits = value.dtype() == spec.dtype && (spec.ndim < 0 || value.ndim() == spec.ndim);
  for (int d = 0; fits && spec.ndim >= 0 && d < spec.ndim; ++d) {
    fits = spec.shape[d] < 0 || spec.shape[d] == value.shape()[d];
  }
  if (!fits) {
    Throw(ErrorCode::kInvalidArgument, what, " '", spec.name, "': expected ", spec.TypeText(), ", got ",
          Describe(value));
  }
}

/// "1 input (x)", "2 targets (a, b)".
std::string Count(const std::vector<TrainerTensorSpec>& specs, const char* what) {
  return StrCat(specs.size(), " ", what, specs.size() == 1 ? "" : "s", " (", NameList(specs), ")");
}

}  // namespace

Trainer::Trainer(TrainerProgram program, std::shared_ptr<KernelProvider> provider, const ExternRegistry& externs)
    : program_(std::move(program)), provider_(std::move(provider)), externs_(&externs) {
  if (provider_ == nullptr) Throw(ErrorCode::kInvalidArgument, "trainer: no kernel provider (backend) given");
  for (const char* function : {kTrainStep, kPredict, kBackboneLoss}) {
    if (program_.executable.FindFunction(function) < 0) {
      Throw(ErrorCode::kInvalidArgument, "trainer: the executable has no function @", function,
            " (is it built from a trainer module? SetupTrainer adds it)");
    }
  }
  if (program_.optim_state_names.size() != program_.initial_optim_state.size()) {
    Throw(ErrorCode::kInvalidArgument, "trainer: ", program_.optim_state_names.size(), " optimizer state names for ",
          program_.initial_optim_state.size(), " initial values");
  }
  RegisterCollectiveExterns();
  vm_ = std::make_unique<VirtualMachine>(program_.executable, *provider_, externs_);
  params_.resize(program_.params.size());
  states_.resize(program_.states.size());
  ZeroInitParams();
  ZeroInitStates();
  ResetOptimizer();
}

Trainer::~Trainer() = default;

int Trainer::ParamIndex(const std::string& name) const { return IndexOf(program_.params, name, "parameter"); }
int Trainer::StateIndex(const std::string& name) const { return IndexOf(program_.states, name, "state"); }

void Trainer::ResetOptimizer() {
  optim_state_.clear();
  for (const InitialOptimState& initial : program_.initial_optim_state) optim_state_.push_back(initial.Materialize());
  step_ = 0;
}

// ---- Parameters and states

const Tensor& Trainer::param(int index) const {
  if (index < 0 || index >= param_num()) {
    Throw(ErrorCode::kOutOfRange, "trainer: parameter index ", index, " is out of range (", param_num(), " parameters)");
  }
  return params_[index];
}

void Trainer::SetParam(int index, const Tensor& value) {
  param(index);  // range check
  CheckFits(program_.params[index], value, "parameter");
  params_[index] = value.Clone();
}

void Trainer::LoadParams(const std::vector<Tensor>& values) {
  if (static_cast<int>(values.size()) != param_num()) {
    Throw(ErrorCode::kInvalidArgument, "trainer: expected ", Count(program_.params, "parameter"), ", got ",
          values.size());
  }
  for (int i = 0; i < param_num(); ++i) CheckFits(program_.params[i], values[i], "parameter");
  for (int i = 0; i < param_num(); ++i) params_[i] = values[i].Clone();
}

void Trainer::LoadParams(const std::map<std::string, Tensor>& values) {
  for (const auto& [name, value] : values) CheckFits(program_.params[ParamIndex(name)], value, "parameter");
  for (const auto& [name, value] : values) params_[ParamIndex(name)] = value.Clone();
}

std::vector<std::pair<std::string, Tensor>> Trainer::ExportParams() const {
  std::vector<std::pair<std::string, Tensor>> named;
  for (int i = 0; i < param_num(); ++i) named.emplace_back(program_.params[i].name, params_[i]);
  return named;
}

const Tensor& Trainer::state(int index) const {
  if (index < 0 || index >= state_num()) {
    Throw(ErrorCode::kOutOfRange, "trainer: state index ", index, " is out of range (", state_num(), " states)");
  }
  return states_[index];
}

void Trainer::SetState(int index, const Tensor& value) {
  state(index);
  CheckFits(program_.states[index], value, "state");
  states_[index] = value.Clone();
}

void Trainer::LoadStates(const std::vector<Tensor>& values) {
  if (static_cast<int>(values.size()) != state_num()) {
    Throw(ErrorCode::kInvalidArgument, "trainer: expected ", Count(program_.states, "state"), ", got ", values.size());
  }
  for (int i = 0; i < state_num(); ++i) CheckFits(program_.states[i], values[i], "state");
  for (int i = 0; i < state_num(); ++i) states_[i] = values[i].Clone();
}

void Trainer::LoadStates(const std::map<std::string, Tensor>& values) {
  for (const auto& [name, value] : values) CheckFits(program_.states[StateIndex(name)], value, "state");
  for (const auto& [name, value] : values) states_[StateIndex(name)] = value.Clone();
}

std::vector<std::pair<std::string, Tensor>> Trainer::ExportStates() const {
  std::vector<std::pair<std::string, Tensor>> named;
  for (int i = 0; i < state_num(); ++i) named.emplace_back(program_.states[i].name, states_[i]);
  return named;
}

// ---- Running

void Trainer::CheckReady(const std::string& function) const {
  for (int i = 0; i < param_num(); ++i) {
    if (!params_[i].defined()) {
      Throw(ErrorCode::kFailedPrecondition, function, ": parameter '", program_.params[i].name,
            "' has no value (its shape is not static: load it first)");
    }
  }
  for (int i = 0; i < state_num(); ++i) {
    if (!states_[i].defined()) {
      Throw(ErrorCode::kFailedPrecondition, function, ": state '", program_.states[i].name,
            "' has no value (its shape is not static: load it first)");
    }
  }
}

std::vector<Value> Trainer::Arguments(const std::string& function, const std::vector<Tensor>& inputs,
                                      const std::vector<Tensor>* targets) const {
  if (inputs.size() != program_.inputs.size() || (targets != nullptr && targets->size() != program_.targets.size())) {
    std::string expected = Count(program_.inputs, "input");
    std::string got = StrCat(inputs.size(), " input", inputs.size() == 1 ? "" : "s");
    if (targets != nullptr) {
      expected += " and " + Count(program_.targets, "target");
      got += StrCat(" and ", targets->size(), " target", targets->size() == 1 ? "" : "s");
    }
    Throw(ErrorCode::kInvalidArgument, function, ": expected ", expected, ", got ", got);
  }
  auto check_defined = [&](const std::vector<Tensor>& values, const std::vector<TrainerTensorSpec>& specs,
                           const char* what) {
    for (size_t i = 0; i < values.size(); ++i) {
      if (!values[i].defined()) {
        Throw(ErrorCode::kInvalidArgument, function, ": ", what, " ", i, " (", specs[i].name, ") is an undefined tensor");
      }
    }
  };
  check_defined(inputs, program_.inputs, "input");
  if (targets != nullptr) check_defined(*targets, program_.targets, "target");

  std::vector<Value> args;
  args.reserve(inputs.size() + (targets ? targets->size() : 0) + params_.size() + states_.size() + optim_state_.size());
  auto append = [&args](const std::vector<Tensor>& values) {
    for (const Tensor& t : values) args.emplace_back(t);
  };
  append(inputs);
  if (function == kTrainStep) {
    append(*targets);
    append(params_);
    append(states_);
    append(optim_state_);
  } else {
    append(params_);
    append(states_);
    if (targets != nullptr) append(*targets);  // @backbone_loss takes the targets last
  }
  return args;
}

std::vector<Tensor> Trainer::Predict(const std::vector<Tensor>& inputs) {
  CheckReady(kPredict);
  Value result = vm_->Invoke(kPredict, Arguments(kPredict, inputs, nullptr));
  std::vector<Tensor> outputs;
  if (result.is_tensor()) {
    outputs.push_back(result.tensor());
  } else {
    for (const Value& field : result.tuple()) outputs.push_back(field.tensor());
  }
  return outputs;
}

Tensor Trainer::Update(const std::vector<Tensor>& inputs, const std::vector<Tensor>& targets) {
  CheckReady(kTrainStep);
  CheckNothingAccumulated("update");
  ApplySchedule();
  std::vector<Value> args = Arguments(kTrainStep, inputs, &targets);
  Value result = InvokeDonating(kTrainStep, args, inputs.size() + targets.size(), {&params_, &states_, &optim_state_});
  const std::vector<Value>& fields = result.tuple();
  size_t expected = 1 + params_.size() + states_.size() + optim_state_.size();
  RXT_CHECK(fields.size() == expected, "train_step returned ", fields.size(), " values, expected ", expected);
  // The results become the resident values: the next step's arguments, no copy.
  size_t k = 1;
  for (Tensor& p : params_) p = fields[k++].tensor();
  for (Tensor& s : states_) s = fields[k++].tensor();
  for (Tensor& o : optim_state_) o = fields[k++].tensor();
  ++step_;
  return fields[0].tensor();
}

Value Trainer::InvokeDonating(const char* function, std::vector<Value>& args, size_t first,
                              const std::vector<std::vector<Tensor>*>& resident) {
  // The step gets the only references to the resident tensors (parameters, states, optimizer
  // state, accumulators), so an update computed element by element is written over the old
  // values instead of beside them (docs/vm.md, "Donated inputs"): one copy of each in memory,
  // not two. A tensor a caller still holds (param() copied, ExportParams) is never written:
  // the VM sees the other owner.
  for (std::vector<Tensor>* values : resident) {
    for (Tensor& t : *values) t = Tensor();
  }
  try {
    return vm_->InvokeTakingArguments(function, args);
  } catch (...) {
    // Back from the arguments (handed back on failure). A step that failed after an update
    // ran leaves that update written.
    DrainCollectives();
    size_t k = first;
    for (std::vector<Tensor>* values : resident) {
      for (Tensor& t : *values) t = args[k++].tensor();
    }
    throw;
  }
}

int64_t Trainer::num_storage_allocations() const { return vm_->num_storage_allocations(); }
void Trainer::set_thread_pool(ThreadPool* pool) { vm_->set_thread_pool(pool); }
void Trainer::set_allocator(const Allocator* allocator) { vm_->set_allocator(allocator); }

Tensor Trainer::Evaluate(const std::vector<Tensor>& inputs, const std::vector<Tensor>& targets) {
  CheckReady("evaluate");
  Value result = vm_->Invoke(kBackboneLoss, Arguments(kBackboneLoss, inputs, &targets));
  return result.is_tuple() ? result.tuple().at(0).tensor() : result.tensor();
}

Profile Trainer::ProfileStep(const std::vector<Tensor>& inputs, const std::vector<Tensor>& targets) {
  CheckReady(kTrainStep);
  ApplySchedule();
  std::vector<Value> args = Arguments(kTrainStep, inputs, &targets);
  vm_->SetProfiling(true);
  try {
    vm_->Invoke(kTrainStep, args);  // the results are dropped: nothing changes
  } catch (...) {
    vm_->SetProfiling(false);
    DrainCollectives();
    throw;
  }
  Profile profile = vm_->GetProfile();
  vm_->SetProfiling(false);
  return profile;
}

// ---- Learning rate

int Trainer::LrIndex() const {
  for (size_t i = 0; i < program_.optim_state_names.size(); ++i) {
    if (program_.optim_state_names[i] == "lr") return static_cast<int>(i);
  }
  return -1;
}

double Trainer::learning_rate() const {
  int index = LrIndex();
  if (index < 0) Throw(ErrorCode::kFailedPrecondition, "trainer: the optimizer has no learning-rate state \"lr\"");
  return optim_state_[index].GetAsDouble(0);
}

void Trainer::WriteLearningRate(double lr) {
  int index = LrIndex();
  if (index < 0) Throw(ErrorCode::kFailedPrecondition, "trainer: the optimizer has no learning-rate state \"lr\"");
  if (!std::isfinite(lr) || lr < 0) Throw(ErrorCode::kInvalidArgument, "trainer: learning rate ", lr, " is not >= 0");
  // A new tensor, not a write in place: the old one may be shared with a caller.
  Tensor value = Tensor::Empty(optim_state_[index].shape(), optim_state_[index].dtype());
  for (int64_t i = 0; i < value.numel(); ++i) value.SetFromDouble(i, lr);
  if (!value.BitwiseEqual(optim_state_[index])) optim_state_[index] = value;
}

void Trainer::SetLearningRate(double lr) {
  WriteLearningRate(lr);
  schedule_.reset();
}

void Trainer::SetSchedule(const LrSchedule& schedule, double base_lr) {
  learning_rate();  // the optimizer must have "lr"
  schedule.Validate();
  if (!std::isfinite(base_lr) || base_lr < 0) {
    Throw(ErrorCode::kInvalidArgument, "trainer: base learning rate ", base_lr, " is not >= 0");
  }
  schedule_ = schedule;
  base_lr_ = base_lr;
  ApplySchedule();
}

void Trainer::ApplySchedule() {
  if (schedule_) WriteLearningRate(schedule_->LearningRate(base_lr_, step_));
}

}  // namespace rxt
