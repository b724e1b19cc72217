// The Trainer (the seed's relax.training.Trainer): runs a compiled trainer module and keeps
// its parameters, model states and optimizer state resident between steps. An update is one
// VM call of @train_step (forward, loss, gradients and the optimizer's update); its results
// are the next step's arguments, with no copy in or out.
//
//   Trainer trainer(BuildTrainerProgram(backbone, setup, {.backend = "cpu"}), provider);
//   trainer.InitXavierUniform(/*seed=*/0);
//   Tensor loss = trainer.Update({x}, {labels});
//   Tensor logits = trainer.Predict({x})[0];
//   trainer.SaveCheckpoint("run/epoch-1.safetensors");
//
// Errors are rxt::Error: kInvalidArgument for a wrong count, name, dtype or shape (the VM's
// checks name the function and the argument: "train_step: argument 0 (%x): expected
// Tensor((64, 784), float32), got float64 (64, 784)"), kNotFound for an unknown name,
// kFailedPrecondition for a parameter without a value, kDataLoss for a bad checkpoint.
// Not thread-safe: one call at a time.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rxt/runtime/communicator.h"
#include "rxt/runtime/extern.h"
#include "rxt/runtime/kernel.h"
#include "rxt/runtime/profile.h"
#include "rxt/runtime/safetensors.h"
#include "rxt/runtime/vm.h"
#include "rxt/train/lr_schedule.h"
#include "rxt/train/trainer_program.h"

namespace rxt {

class Trainer {
 public:
  /// Loads the program's kernels with |provider| (kept alive by the trainer). Parameters and
  /// states of static shape start at zero (the seed's zero_init_param_state), the optimizer
  /// state at its initial value, the step count at 0.
  Trainer(TrainerProgram program, std::shared_ptr<KernelProvider> provider,
          const ExternRegistry& externs = ExternRegistry::Global());
  ~Trainer();
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  // ---- Layout
  const TrainerProgram& program() const { return program_; }
  int param_num() const { return static_cast<int>(program_.params.size()); }
  int state_num() const { return static_cast<int>(program_.states.size()); }
  int input_num() const { return static_cast<int>(program_.inputs.size()); }
  int target_num() const { return static_cast<int>(program_.targets.size()); }
  int output_num() const { return program_.output_num; }
  /// The index of the parameter (state) called |name|; kNotFound listing the names.
  int ParamIndex(const std::string& name) const;
  int StateIndex(const std::string& name) const;

  // ---- Initialization
  /// Xavier (Glorot) uniform: every weight gets U(-b, b) with b = sqrt(6 / (fan_in + fan_out))
  /// (TrainerTensorSpec's fans); biases get zeros. A weight is a parameter the backbone uses
  /// as a matmul or conv2d weight, or any with at least two dims above 1; a bias has at most
  /// one ((n,), (1, n, 1, 1)). Same seed, same values on every machine.
  void InitXavierUniform(uint64_t seed);
  void ZeroInitParams();
  void ZeroInitStates();
  /// The optimizer state back to its initial value and the step count to 0.
  void ResetOptimizer();

  // ---- Parameters and states (by index or by the backbone's name). Values are copied in. A
  // tensor handed out stays as it is: Update writes new values over the old storage only while
  // the trainer holds its only reference (a copy of param(i) keeps it from doing so).
  const Tensor& param(int index) const;
  const Tensor& param(const std::string& name) const { return param(ParamIndex(name)); }
  void SetParam(int index, const Tensor& value);
  void SetParam(const std::string& name, const Tensor& value) { SetParam(ParamIndex(name), value); }
  /// A list sets every parameter (its length must be param_num); a map sets those it names.
  void LoadParams(const std::vector<Tensor>& values);
  void LoadParams(const std::map<std::string, Tensor>& values);
  /// (name, value) in parameter order.
  std::vector<std::pair<std::string, Tensor>> ExportParams() const;

  const Tensor& state(int index) const;
  const Tensor& state(const std::string& name) const { return state(StateIndex(name)); }
  void SetState(int index, const Tensor& value);
  void SetState(const std::string& name, const Tensor& value) { SetState(StateIndex(name), value); }
  void LoadStates(const std::vector<Tensor>& values);
  void LoadStates(const std::map<std::string, Tensor>& values);
  std::vector<std::pair<std::string, Tensor>> ExportStates() const;

  /// The optimizer state, in program().optim_state_names order.
  const std::vector<Tensor>& optimizer_state() const { return optim_state_; }

  // ---- Running
  /// @predict: the backbone's outputs (without updated states) for |inputs|.
  std::vector<Tensor> Predict(const std::vector<Tensor>& inputs);
  /// One training step (@train_step): updates parameters, states and optimizer state and
  /// returns the loss (0-d) before the update. Element-by-element updates are written over the
  /// old values where nothing else holds them (docs/vm.md, "Donated inputs"); if the step
  /// fails after such an update ran, that update stays written.
  Tensor Update(const std::vector<Tensor>& inputs, const std::vector<Tensor>& targets);
  /// The loss (@backbone_loss) without changing anything.
  Tensor Evaluate(const std::vector<Tensor>& inputs, const std::vector<Tensor>& targets);
  /// The time per kernel of one training step, run with profiling on; changes nothing. With a
  /// communicator it is a collective call like Update: every rank calls it.
  Profile ProfileStep(const std::vector<Tensor>& inputs, const std::vector<Tensor>& targets);
  /// Updates done since initialization (or restored from a checkpoint).
  int64_t step() const { return step_; }

  // ---- Gradient accumulation (a program built with TrainerSetup::accumulation: @accumulate_step
  // and @apply_step). Accumulate micro-batches, then ApplyAccumulated: one optimizer step on
  // their combined gradients ("mean" loss: their mean, as one batch of all their samples).
  /// Whether the program can accumulate.
  bool can_accumulate() const;
  /// Forward and backward of one micro-batch, its gradients added to the sums; updates the
  /// states (BatchNorm statistics), not the parameters. Returns the micro-batch's loss.
  Tensor Accumulate(const std::vector<Tensor>& inputs, const std::vector<Tensor>& targets);
  /// Micro-batches accumulated since the last ApplyAccumulated.
  int accumulated() const { return accumulated_; }
  /// One optimizer step (counted by step()) with the accumulated gradients, combined over the
  /// ranks first under data parallelism (one allreduce per bucket); returns the step's loss
  /// (the mean, or sum, of the micro-batches' and ranks'). kFailedPrecondition when nothing
  /// was accumulated.
  Tensor ApplyAccumulated();

  // ---- Data parallelism (a program built with TrainerSetup::data_parallel; docs/distributed.md)
  /// Whether the program combines gradients over ranks (calls ccl.allreduce).
  bool data_parallel() const { return data_parallel_; }
  /// Trains together with the other ranks of |communicator| (every rank calls this, in the
  /// same order as its other collective calls): checks that every rank runs the same program
  /// (kFailedPrecondition naming the ranks that differ), then every rank takes rank 0's
  /// parameters, states, optimizer state and step count. Without a communicator a trainer is
  /// a world of one rank. kFailedPrecondition for a program without data parallelism on more
  /// than one rank (each would train alone).
  void SetCommunicator(std::shared_ptr<Communicator> communicator);
  const std::shared_ptr<Communicator>& communicator() const { return communicator_; }
  /// A fingerprint of the program (its executable and layout): equal on ranks that can train together.
  uint64_t ProgramFingerprint() const;
  /// Tensor storage the VM has taken from the heap so far (VirtualMachine::
  /// num_storage_allocations): constant from the third Update on, when nothing else holds the
  /// tensors the steps returned (the parameters alternate between two buffers).
  int64_t num_storage_allocations() const;
  /// The pool its kernels run on (VirtualMachine::set_thread_pool; null: the current one).
  void set_thread_pool(ThreadPool* pool);
  /// The allocator of what its steps allocate (VirtualMachine::set_allocator).
  void set_allocator(const Allocator* allocator);
  /// Where its kernels come from (an AotKernelProvider for a trainer opened from a file).
  const KernelProvider& kernels() const { return *provider_; }

  // ---- Learning rate (the optimizer state "lr": changing it recompiles nothing)
  /// kFailedPrecondition if the optimizer has no "lr" state.
  double learning_rate() const;
  /// Sets the rate of the next updates and removes any schedule.
  void SetLearningRate(double lr);
  /// From now on, update k (counting from 0 since initialization) runs with
  /// schedule.LearningRate(base_lr, k). Validates the schedule.
  void SetSchedule(const LrSchedule& schedule, double base_lr);
  const std::optional<LrSchedule>& schedule() const { return schedule_; }
  /// The base rate the schedule scales (0 without a schedule).
  double base_learning_rate() const { return base_lr_; }

  // ---- Checkpoints: one safetensors file with every parameter ("param/<name>"), state
  // ("state/<name>") and optimizer state ("optim/<name>"), and metadata: the step count and
  // |metadata| (keys starting "rxt." are reserved). Written atomically: a temporary file,
  // then renamed. Loading one and going on continues bit-identically.
  /// The metadata key of a checkpoint's step count: what marks a safetensors file as one.
  static constexpr const char* kCheckpointStepKey = "rxt.step";
  TensorFile MakeCheckpoint(const std::map<std::string, std::string>& metadata = {}) const;
  void SaveCheckpoint(const std::string& path, const std::map<std::string, std::string>& metadata = {}) const;
  /// Checks that the file fits this trainer (every tensor present with its dtype and shape,
  /// the same optimizer state names) before changing anything; returns the user metadata.
  std::map<std::string, std::string> RestoreCheckpoint(const TensorFile& checkpoint, const std::string& source);
  std::map<std::string, std::string> LoadCheckpoint(const std::string& path);

 private:
  std::vector<Value> Arguments(const std::string& function, const std::vector<Tensor>& inputs,
                               const std::vector<Tensor>* targets) const;
  void CheckReady(const std::string& function) const;
  void ApplySchedule();
  /// Sets the optimizer state "lr" (a new tensor) without touching the schedule.
  void WriteLearningRate(double lr);
  int LrIndex() const;
  /// ccl.allreduce_sum/_mean, ccl.allreduce_start_sum/_mean and ccl.allreduce_wait bound to
  /// this trainer's communicator (or a world of one).
  void RegisterCollectiveExterns();
  /// Waits for every request a failed step started and left in flight.
  void DrainCollectives() noexcept;
  void CheckNothingAccumulated(const char* what) const;
  /// Runs |function| on |args| whose resident tensors (|resident|, starting at args[first])
  /// the call takes (donated); on failure hands them back.
  Value InvokeDonating(const char* function, std::vector<Value>& args, size_t first,
                       const std::vector<std::vector<Tensor>*>& resident);

  TrainerProgram program_;
  std::shared_ptr<KernelProvider> provider_;
  std::shared_ptr<Communicator> communicator_;
  ExternRegistry externs_;  // the caller's, plus the collectives (before vm_: it outlives it)
  bool data_parallel_ = false;
  std::unique_ptr<VirtualMachine> vm_;
  std::vector<unsigned char> ccl_staging_;  // a bucket's tensors packed for one allreduce
  // The requests of ccl.allreduce_start, by the index the request tensor holds: each packs its
  // bucket into its own buffer (kept for the next step's request of that index).
  struct CclRequest {
    std::vector<unsigned char> staging;
    std::vector<size_t> bytes;  // of each tensor of the bucket
    DLDataType dtype{};
    rxt_request_t* handle = nullptr;  // the communicator's; null without one
    bool in_flight = false;
  };
  std::vector<CclRequest> ccl_requests_;
  // Accumulated micro-batches: the loss's sum and one gradient sum per parameter.
  std::vector<Tensor> loss_sum_, grad_sums_;
  int accumulated_ = 0;
  std::vector<Tensor> params_, states_, optim_state_;
  int64_t step_ = 0;
  std::optional<LrSchedule> schedule_;
  double base_lr_ = 0;
};

}  // namespace rxt
