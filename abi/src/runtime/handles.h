// Internal to the C ABI: the handles behind rxt_executable_t, rxt_vm_t and rxt_trainer_t, which
// both libraries share (librxt and librxt_runtime), and what they need from a context. Each
// library has its own rxt_context_t and implements the functions declared at the end: librxt
// over the compiler's Context and Session (abi/src/context.cc), librxt_runtime over the runtime
// alone (abi/src/runtime_alone/context.cc).
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "boundary.h"
#include "rxt/runtime/allocator.h"
#include "rxt/runtime/communicator.h"
#include "rxt/runtime/executable.h"
#include "rxt/runtime/kernel.h"
#include "rxt/runtime/vm.h"
#include "rxt/train/trainer.h"

namespace rxt::abi_impl {

/// One reference to a context, held by what was made in it (a VM, a trainer) so that its
/// threads, allocator and plugins outlive them; NULL stands for the default context.
class ContextReference {
 public:
  explicit ContextReference(rxt_context_t* context) : handle_(rxt_context_retain(context)) {}
  ~ContextReference() { rxt_context_release(handle_); }
  ContextReference(const ContextReference&) = delete;
  ContextReference& operator=(const ContextReference&) = delete;
  rxt_context_t* get() const { return handle_; }

 private:
  rxt_context_t* handle_;
};

}  // namespace rxt::abi_impl

struct rxt_executable_s {
  std::atomic<int> references{1};
  rxt::Executable executable;
};

struct rxt_vm_s {
  std::atomic<int> references{1};
  // First, so it is released last: the VM runs on its threads and allocator.
  std::unique_ptr<rxt::abi_impl::ContextReference> context;
  // The provider outlives the VM, which keeps a reference to it.
  std::unique_ptr<rxt::KernelProvider> provider;
  std::unique_ptr<rxt::VirtualMachine> vm;
};

struct rxt_comm_s {
  std::atomic<int> references{1};
  std::shared_ptr<rxt::Communicator> communicator;
};

struct rxt_trainer_s {
  std::atomic<int> references{1};
  // First, so it is released last: the trainer runs on its threads and allocator.
  std::unique_ptr<rxt::abi_impl::ContextReference> context;
  std::unique_ptr<rxt::Trainer> trainer;
};

// ---- What each library's context provides (NULL |context|: the default one).
namespace rxt::abi_impl {

/// A new handle with one reference.
rxt_executable_t* WrapExecutable(Executable executable);

/// Its allocator, or null (the heap).
const Allocator* AllocatorOf(rxt_context_t* context);
/// Makes |vm|'s provider and VM for |exec| and |backend| ("": the executable's own).
void CreateVM(rxt_context_t* context, const Executable& exec, const std::string& backend, rxt_vm_s& vm);
/// A trainer going on from the trainer file at |path|, on the context's threads and allocator.
std::unique_ptr<Trainer> LoadTrainer(rxt_context_t* context, const std::string& path);
/// Writes |trainer| as a trainer file at |path|.
void SaveTrainer(rxt_context_t* context, const Trainer& trainer, const std::string& path);
/// A communicator of the collective |name| ("mpi") of the context's plugins, loading
/// rxt_ccl_<name> from the plugin search path when no loaded plugin provides it; |external|
/// is the caller's own (an MPI_Comm*), null for the launch's world.
std::shared_ptr<Communicator> CreateCommunicator(rxt_context_t* context, const std::string& name,
                                                 const std::string& options, void* external);

}  // namespace rxt::abi_impl
