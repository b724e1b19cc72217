// The Trainer across the C ABI, what runs without the compiler: tensors by kind and index or
// name as DLPack, predict / update / evaluate, learning rate and schedule, checkpoints, trainer
// files, profile. (Creating one from a module is the compiler's: abi/src/trainer_build.cc.)
#include <atomic>
#include <cstddef>
#include <memory>

#include "handles.h"
#include "rxt/runtime/dlpack.h"
#include "rxt/train/trainer.h"

namespace {

using rxt::ErrorCode;
using rxt::Throw;

rxt::Trainer& Get(rxt_trainer_t* trainer) { return *trainer->trainer; }

/// While it lives, what this thread allocates for |trainer| (parameters set, initialized or
/// loaded) comes from its context's allocator.
rxt::Allocator::Scope AllocatingFor(const rxt_trainer_t* trainer) {
  return rxt::Allocator::Scope(rxt::abi_impl::AllocatorOf(trainer->context->get()));
}
const rxt::Trainer& Get(const rxt_trainer_t* trainer) { return *trainer->trainer; }

const std::vector<rxt::TrainerTensorSpec>& Specs(const rxt::Trainer& t, rxt_trainer_tensors_t kind) {
  switch (kind) {
    case RXT_TRAINER_INPUTS: return t.program().inputs;
    case RXT_TRAINER_TARGETS: return t.program().targets;
    case RXT_TRAINER_PARAMS: return t.program().params;
    case RXT_TRAINER_STATES: return t.program().states;
    default: break;
  }
  Throw(ErrorCode::kInvalidArgument, "trainer: tensor kind ", static_cast<int>(kind), " has no specs");
}

void CheckKind(rxt_trainer_tensors_t kind) {
  if (kind < RXT_TRAINER_INPUTS || kind > RXT_TRAINER_OPTIMIZER_STATE) {
    Throw(ErrorCode::kInvalidArgument, "trainer: unknown tensor kind ", static_cast<int>(kind));
  }
}

std::vector<std::string> Names(const rxt::Trainer& t, rxt_trainer_tensors_t kind) {
  CheckKind(kind);
  if (kind == RXT_TRAINER_OPTIMIZER_STATE) return t.program().optim_state_names;
  std::vector<std::string> names;
  for (const rxt::TrainerTensorSpec& spec : Specs(t, kind)) names.push_back(spec.name);
  return names;
}

const char* KindName(rxt_trainer_tensors_t kind) {
  switch (kind) {
    case RXT_TRAINER_INPUTS: return "input";
    case RXT_TRAINER_TARGETS: return "target";
    case RXT_TRAINER_PARAMS: return "parameter";
    case RXT_TRAINER_STATES: return "state";
    case RXT_TRAINER_OPTIMIZER_STATE: return "optimizer state";
  }
  return "tensor";
}

size_t Find(const rxt::Trainer& t, rxt_trainer_tensors_t kind, const std::string& name) {
  std::vector<std::string> names = Names(t, kind);
  std::string list;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return i;
    list += (i == 0 ? "" : ", ") + names[i];
  }
  Throw(ErrorCode::kNotFound, "trainer: no ", KindName(kind), " named '", name, "' (", list.empty() ? "none" : list,
        ")");
}

DLManagedTensor* GetTensor(const rxt::Trainer& t, rxt_trainer_tensors_t kind, size_t index) {
  CheckKind(kind);
  const rxt::Tensor* tensor = nullptr;
  if (kind == RXT_TRAINER_PARAMS) {
    tensor = &t.param(static_cast<int>(index));
  } else if (kind == RXT_TRAINER_STATES) {
    tensor = &t.state(static_cast<int>(index));
  } else if (kind == RXT_TRAINER_OPTIMIZER_STATE) {
    if (index >= t.optimizer_state().size()) {
      Throw(ErrorCode::kOutOfRange, "trainer: optimizer state index ", index, " is out of range (",
            t.optimizer_state().size(), " states)");
    }
    tensor = &t.optimizer_state()[index];
  } else {
    Throw(ErrorCode::kInvalidArgument, "trainer: ", KindName(kind), "s are arguments, the trainer holds none");
  }
  if (!tensor->defined()) {
    Throw(ErrorCode::kFailedPrecondition, "trainer: ", KindName(kind), " ", index, " has no value yet");
  }
  // A copy: the caller may write into it without changing the trainer.
  return rxt::ToDLPack(tensor->Clone());
}

void SetTensor(rxt::Trainer& t, rxt_trainer_tensors_t kind, size_t index, const DLManagedTensor* tensor) {
  CheckKind(kind);
  if (kind != RXT_TRAINER_PARAMS && kind != RXT_TRAINER_STATES) {
    Throw(ErrorCode::kInvalidArgument, "trainer: only parameters and states can be set, not ", KindName(kind), "s");
  }
  const DLTensor& dl = tensor->dl_tensor;
  if (dl.device.device_type != kDLCPU) {
    Throw(ErrorCode::kInvalidArgument, "trainer: ", KindName(kind), " ", index, ": expected a CPU tensor (device type ",
          static_cast<int>(kDLCPU), "), got device type ", static_cast<int>(dl.device.device_type));
  }
  rxt::Tensor value = rxt::CopyFromDLTensor(dl);
  if (kind == RXT_TRAINER_PARAMS) {
    t.SetParam(static_cast<int>(index), value);
  } else {
    t.SetState(static_cast<int>(index), value);
  }
}

/// Borrowed DLPack arguments as tensors (read in place when compact and aligned: the step is
/// synchronous and never writes them), naming |function| and the argument on error.
std::vector<rxt::Tensor> Arguments(const char* function, const char* what, DLManagedTensor* const* tensors,
                                   size_t count) {
  if (count > 0 && tensors == nullptr) Throw(ErrorCode::kInvalidArgument, function, ": argument '", what, "' is NULL");
  std::vector<rxt::Tensor> values;
  for (size_t i = 0; i < count; ++i) {
    if (tensors[i] == nullptr) Throw(ErrorCode::kInvalidArgument, function, ": ", what, " ", i, " is NULL");
    const DLTensor& dl = tensors[i]->dl_tensor;
    if (dl.device.device_type != kDLCPU) {
      Throw(ErrorCode::kInvalidArgument, function, ": ", what, " ", i, ": expected a CPU tensor (device type ",
            static_cast<int>(kDLCPU), "), got device type ", static_cast<int>(dl.device.device_type));
    }
    try {
      values.push_back(rxt::BorrowFromDLTensor(dl));
    } catch (const rxt::Error& e) {
      Throw(e.code(), function, ": ", what, " ", i, ": ", e.what());
    }
  }
  return values;
}

}  // namespace

extern "C" {

rxt_trainer_t* rxt_trainer_retain(rxt_trainer_t* trainer) {
  if (trainer != nullptr) trainer->references.fetch_add(1, std::memory_order_relaxed);
  return trainer;
}

void rxt_trainer_release(rxt_trainer_t* trainer) {
  if (trainer != nullptr && trainer->references.fetch_sub(1, std::memory_order_acq_rel) == 1) delete trainer;
}

rxt_status_t rxt_trainer_count(const rxt_trainer_t* trainer, rxt_trainer_tensors_t kind, size_t* out_count) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(trainer);
  RXT_CHECK_ARG(out_count);
  *out_count = Names(Get(trainer), kind).size();
  RXT_API_END();
}

rxt_status_t rxt_trainer_name(const rxt_trainer_t* trainer, rxt_trainer_tensors_t kind, size_t index,
                              char** out_name) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(trainer);
  RXT_CHECK_ARG(out_name);
  std::vector<std::string> names = Names(Get(trainer), kind);
  if (index >= names.size()) {
    Throw(ErrorCode::kOutOfRange, "trainer: ", KindName(kind), " index ", index, " is out of range (", names.size(),
          ")");
  }
  *out_name = rxt::abi_impl::CopyString(names[index]);
  RXT_API_END();
}

rxt_status_t rxt_trainer_find(const rxt_trainer_t* trainer, rxt_trainer_tensors_t kind, const char* name,
                              size_t* out_index) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(trainer);
  RXT_CHECK_ARG(name);
  RXT_CHECK_ARG(out_index);
  *out_index = Find(Get(trainer), kind, name);
  RXT_API_END();
}

rxt_status_t rxt_trainer_num_outputs(const rxt_trainer_t* trainer, size_t* out_count) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(trainer);
  RXT_CHECK_ARG(out_count);
  *out_count = static_cast<size_t>(Get(trainer).output_num());
  RXT_API_END();
}

rxt_status_t rxt_trainer_get(const rxt_trainer_t* trainer, rxt_trainer_tensors_t kind, size_t index,
                             DLManagedTensor** out_tensor) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(trainer);
  RXT_CHECK_ARG(out_tensor);
  *out_tensor = GetTensor(Get(trainer), kind, index);
  RXT_API_END();
}

rxt_status_t rxt_trainer_set(rxt_trainer_t* trainer, rxt_trainer_tensors_t kind, size_t index,
                             const DLManagedTensor* tensor) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(trainer);
  rxt::Allocator::Scope allocating = AllocatingFor(trainer);
  RXT_CHECK_ARG(tensor);
  SetTensor(Get(trainer), kind, index, tensor);
  RXT_API_END();
}

rxt_status_t rxt_trainer_get_by_name(const rxt_trainer_t* trainer, rxt_trainer_tensors_t kind, const char* name,
                                     DLManagedTensor** out_tensor) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(trainer);
  RXT_CHECK_ARG(name);
  RXT_CHECK_ARG(out_tensor);
  *out_tensor = GetTensor(Get(trainer), kind, Find(Get(trainer), kind, name));
  RXT_API_END();
}

rxt_status_t rxt_trainer_set_by_name(rxt_trainer_t* trainer, rxt_trainer_tensors_t kind, const char* name,
                                     const DLManagedTensor* tensor) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(trainer);
  rxt::Allocator::Scope allocating = AllocatingFor(trainer);
  RXT_CHECK_ARG(name);
  RXT_CHECK_ARG(tensor);
  SetTensor(Get(trainer), kind, Find(Get(trainer), kind, name), tensor);
  RXT_API_END();
}

rxt_status_t rxt_trainer_init_xavier_uniform(rxt_trainer_t* trainer, uint64_t seed) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(trainer);
  rxt::Allocator::Scope allocating = AllocatingFor(trainer);
  Get(trainer).InitXavierUniform(seed);
  RXT_API_END();
}

rxt_status_t rxt_trainer_init_zero(rxt_trainer_t* trainer, rxt_trainer_tensors_t kind) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(trainer);
  rxt::Allocator::Scope allocating = AllocatingFor(trainer);
  switch (kind) {
    case RXT_TRAINER_PARAMS: Get(trainer).ZeroInitParams(); break;
    case RXT_TRAINER_STATES: Get(trainer).ZeroInitStates(); break;
    case RXT_TRAINER_OPTIMIZER_STATE: Get(trainer).ResetOptimizer(); break;
    default:
      Throw(ErrorCode::kInvalidArgument, __func__, ": kind must be RXT_TRAINER_PARAMS, RXT_TRAINER_STATES or ",
            "RXT_TRAINER_OPTIMIZER_STATE, not ", static_cast<int>(kind));
  }
  RXT_API_END();
}

rxt_status_t rxt_trainer_predict(rxt_trainer_t* trainer, DLManagedTensor* const* inputs, size_t num_inputs,
                                 DLManagedTensor** outputs, size_t capacity, size_t* out_num_outputs) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(trainer);
  if (capacity > 0) RXT_CHECK_ARG(outputs);
  std::vector<rxt::Tensor> results = Get(trainer).Predict(Arguments("predict", "inputs", inputs, num_inputs));
  if (out_num_outputs != nullptr) *out_num_outputs = results.size();
  if (results.size() > capacity) {
    Throw(ErrorCode::kOutOfRange, "predict returned ", results.size(), " tensor", results.size() == 1 ? "" : "s",
          ", more than the ", capacity, " outputs given");
  }
  std::vector<DLManagedTensor*> handed_out;
  try {
    for (const rxt::Tensor& t : results) handed_out.push_back(rxt::ToDLPack(t.Clone()));  // never shared
  } catch (...) {
    for (DLManagedTensor* managed : handed_out) managed->deleter(managed);
    throw;
  }
  for (size_t i = 0; i < handed_out.size(); ++i) outputs[i] = handed_out[i];
  RXT_API_END();
}

rxt_status_t rxt_trainer_update(rxt_trainer_t* trainer, DLManagedTensor* const* inputs, size_t num_inputs,
                                DLManagedTensor* const* targets, size_t num_targets, double* out_loss) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(trainer);
  rxt::Tensor loss = Get(trainer).Update(Arguments("train_step", "inputs", inputs, num_inputs),
                                         Arguments("train_step", "targets", targets, num_targets));
  if (out_loss != nullptr) *out_loss = loss.GetAsDouble(0);
  RXT_API_END();
}

rxt_status_t rxt_trainer_evaluate(rxt_trainer_t* trainer, DLManagedTensor* const* inputs, size_t num_inputs,
                                  DLManagedTensor* const* targets, size_t num_targets, double* out_loss) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(trainer);
  rxt::Tensor loss = Get(trainer).Evaluate(Arguments("backbone_loss", "inputs", inputs, num_inputs),
                                           Arguments("backbone_loss", "targets", targets, num_targets));
  if (out_loss != nullptr) *out_loss = loss.GetAsDouble(0);
  RXT_API_END();
}

rxt_status_t rxt_trainer_step(const rxt_trainer_t* trainer, int64_t* out_step) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(trainer);
  RXT_CHECK_ARG(out_step);
  *out_step = Get(trainer).step();
  RXT_API_END();
}

rxt_status_t rxt_trainer_learning_rate(const rxt_trainer_t* trainer, double* out_lr) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(trainer);
  RXT_CHECK_ARG(out_lr);
  *out_lr = Get(trainer).learning_rate();
  RXT_API_END();
}

rxt_status_t rxt_trainer_set_learning_rate(rxt_trainer_t* trainer, double lr) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(trainer);
  Get(trainer).SetLearningRate(lr);
  RXT_API_END();
}

rxt_status_t rxt_trainer_set_schedule(rxt_trainer_t* trainer, const char* schedule, double base_lr) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(trainer);
  RXT_CHECK_ARG(schedule);
  Get(trainer).SetSchedule(rxt::ParseLrSchedule(schedule), base_lr);
  RXT_API_END();
}

rxt_status_t rxt_trainer_save_checkpoint(const rxt_trainer_t* trainer, const char* path) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(trainer);
  RXT_CHECK_ARG(path);
  Get(trainer).SaveCheckpoint(path);
  RXT_API_END();
}

rxt_status_t rxt_trainer_load_checkpoint(rxt_trainer_t* trainer, const char* path) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(trainer);
  rxt::Allocator::Scope allocating = AllocatingFor(trainer);
  RXT_CHECK_ARG(path);
  Get(trainer).LoadCheckpoint(path);
  RXT_API_END();
}

rxt_status_t rxt_trainer_save(const rxt_trainer_t* trainer, const char* path) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(trainer);
  RXT_CHECK_ARG(path);
  rxt::abi_impl::SaveTrainer(trainer->context->get(), Get(trainer), path);
  RXT_API_END();
}

rxt_status_t rxt_trainer_load(const char* path, rxt_context_t* context, rxt_trainer_t** out_trainer) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(path);
  RXT_CHECK_ARG(out_trainer);
  auto handle = std::make_unique<rxt_trainer_s>();
  handle->context = std::make_unique<rxt::abi_impl::ContextReference>(context);
  rxt::Allocator::Scope allocating(rxt::abi_impl::AllocatorOf(handle->context->get()));
  handle->trainer = rxt::abi_impl::LoadTrainer(handle->context->get(), path);
  *out_trainer = handle.release();
  RXT_API_END();
}

rxt_status_t rxt_trainer_profile_step(rxt_trainer_t* trainer, DLManagedTensor* const* inputs, size_t num_inputs,
                                      DLManagedTensor* const* targets, size_t num_targets, char** out_text) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(trainer);
  RXT_CHECK_ARG(out_text);
  rxt::Profile profile = Get(trainer).ProfileStep(Arguments("train_step", "inputs", inputs, num_inputs),
                                                  Arguments("train_step", "targets", targets, num_targets));
  *out_text = rxt::abi_impl::CopyString(profile.Format());
  RXT_API_END();
}

}  // extern "C"

extern "C" {

rxt_status_t rxt_trainer_accumulate(rxt_trainer_t* trainer, DLManagedTensor* const* inputs, size_t num_inputs,
                                    DLManagedTensor* const* targets, size_t num_targets, double* out_loss) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(trainer);
  rxt::Tensor loss = Get(trainer).Accumulate(Arguments("accumulate_step", "inputs", inputs, num_inputs),
                                             Arguments("accumulate_step", "targets", targets, num_targets));
  if (out_loss != nullptr) *out_loss = loss.GetAsDouble(0);
  RXT_API_END();
}

rxt_status_t rxt_trainer_apply_accumulated(rxt_trainer_t* trainer, double* out_loss) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(trainer);
  rxt::Tensor loss = Get(trainer).ApplyAccumulated();
  if (out_loss != nullptr) *out_loss = loss.GetAsDouble(0);
  RXT_API_END();
}

rxt_status_t rxt_trainer_set_comm(rxt_trainer_t* trainer, rxt_comm_t* comm) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(trainer);
  auto allocating = AllocatingFor(trainer);
  Get(trainer).SetCommunicator(comm != nullptr ? comm->communicator : nullptr);
  RXT_API_END();
}

}  // extern "C"
