// The virtual machine: runs an Executable's functions on host tensors.
//
//   VirtualMachine vm(Executable::Load("mlp.rxtx"), provider);
//   Value y = vm.Invoke("main", {Value(x), Value(w0), ...});
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "rxt/runtime/allocator.h"
#include "rxt/runtime/executable.h"
#include "rxt/runtime/extern.h"
#include "rxt/runtime/kernel.h"
#include "rxt/runtime/profile.h"
#include "rxt/runtime/thread_pool.h"
#include "rxt/support/error.h"
#include "rxt/runtime/value.h"

namespace rxt {

/// An argument of VirtualMachine::Invoke that does not match its parameter: which one, so that
/// a caller can say where the value came from (`rxt run` names the .npy file).
class ArgumentError : public Error {
 public:
  ArgumentError(int argument, const std::string& message) : Error(ErrorCode::kInvalidArgument, message), argument_(argument) {}
  int argument() const { return argument_; }

 private:
  int argument_;
};

class VirtualMachine {
 public:
  /// Validates |exec|, loads every kernel with |provider| and resolves every extern function
  /// in |externs|. Throws kNotFound naming a missing extern function, kFailedPrecondition if the
  /// executable was built for another backend than |provider|'s.
  VirtualMachine(Executable exec, KernelProvider& provider, const ExternRegistry& externs = ExternRegistry::Global());
  ~VirtualMachine();
  VirtualMachine(const VirtualMachine&) = delete;
  VirtualMachine& operator=(const VirtualMachine&) = delete;

  /// Calls function |name|. Arguments are checked against the function's parameter struct
  /// info (kInvalidArgument: "main: argument 0 (%x): expected Tensor((1, m), float32), got
  /// float64 (2, 784)"). Not thread-safe: one VM runs one call at a time.
  Value Invoke(const std::string& name, const std::vector<Value>& args);
  /// The same, but the call takes the arguments (|args| is left empty): a tensor nothing else
  /// holds may then have its storage written over by a result the function computes from it
  /// element by element (docs/vm.md, "Donated inputs": a training step's new parameters over
  /// the old ones). Invoke never does this. On an exception |args| holds the arguments again
  /// (their tensors possibly written).
  Value InvokeTakingArguments(const std::string& name, std::vector<Value>& args);

  const Executable& executable() const { return exec_; }

  /// The pool its kernels' parallel loops run on (null, the default: the calling thread's
  /// current pool, ThreadPool::Current()). A context gives its VMs its own pool.
  void set_thread_pool(ThreadPool* pool) { pool_ = pool; }
  ThreadPool* thread_pool() const { return pool_; }
  /// The allocator of the tensors and arenas its calls allocate (null, the default: the
  /// calling thread's current one, Allocator::Current()). It must outlive the VM.
  void set_allocator(const Allocator* allocator) { allocator_ = allocator; }

  /// How many times alloc_tensor has taken storage from the heap: outputs allocated per call,
  /// reuse slots (re)filled, and arenas (one per function and call depth, on its first call).
  /// A steady-state call of a planned function adds nothing once its callers drop the tensors
  /// it returned two calls before (escaping outputs are recycled; docs/vm.md).
  int64_t num_storage_allocations() const { return num_storage_allocations_; }
  /// How many times alloc_tensor has taken a donated argument's storage instead.
  int64_t num_donated() const { return num_donated_; }

  /// Starts (and resets) or stops collecting a profile.
  void SetProfiling(bool on);
  Profile GetProfile() const;

 private:
  struct Frame;
  /// |take|: move the arguments into the frame (Invoke with an rvalue), else copy them.
  Value Run(int function, const Value* args, int num_args, int depth, bool take = false);
  void Match(const VMFunction& f, const Instruction& ins, Frame& frame, bool top_level);
  void CallKernelLike(const Instruction& ins, Frame& frame);
  void AllocTensor(const VMFunction& f, const Instruction& ins, Frame& frame);
  void View(const VMFunction& f, const Instruction& ins, Frame& frame);
  Frame& AcquireFrame(int function, int depth);
  void CheckPlannedMemory() const;

  Executable exec_;
  std::vector<std::unique_ptr<Kernel>> kernels_;
  std::vector<ExternFunction> externs_;
  // frames_[function][depth]: register files reused from call to call.
  std::vector<std::vector<std::unique_ptr<Frame>>> frames_;

  ThreadPool* pool_ = nullptr;
  const Allocator* allocator_ = nullptr;
  int64_t num_storage_allocations_ = 0;
  int64_t num_donated_ = 0;
  bool profiling_ = false;
  std::vector<ProfileRow> kernel_profile_;  // kernels, then externs
  std::vector<ProfileRow> instruction_profile_;
};

}  // namespace rxt
