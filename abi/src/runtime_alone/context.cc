// librxt_runtime's contexts: threads, an allocator, and the extern functions of plugins —
// everything a trainer file or an executable compiled ahead of time needs, without the compiler
// (no IR, no plugin host, no backend plugin: a plugin loaded here gives its extern functions
// only, rxt/runtime/extern_plugins.h). What runtime/handles.h asks of a context is done here
// with the runtime alone.
#include <atomic>
#include <filesystem>
#include <memory>

#include "runtime/context_options.h"
#include "runtime/handles.h"
#include "rxt/runtime/aot_library.h"
#include "rxt/runtime/extern_plugins.h"
#include "rxt/runtime/plugin_search_path.h"
#include "rxt/runtime/thread_pool.h"
#include "rxt/support/message_text.h"
#include "rxt/train/trainer_file.h"

struct rxt_context_s {
  std::atomic<int> references{1};
  bool is_default = false;
  rxt::abi_impl::ContextSettings settings;
  std::unique_ptr<rxt::ThreadPool> pool;  // null: the calling thread's current pool
  // A context made by rxt_context_create has its own functions on top of the process's.
  std::unique_ptr<rxt::ExternRegistry> own_externs;
  rxt::ExternRegistry* externs = nullptr;
  std::unique_ptr<rxt::ExternPlugins> plugins;
};

namespace rxt::abi_impl {
namespace {

rxt_context_s& Resolve(rxt_context_t* context) { return context != nullptr ? *context : *rxt_context_default(); }

/// The plugins of the extern functions |externs| names that |context| lacks, by name from the
/// search path (rxt_lib_<library>.so); what cannot be loaded goes to the context's log (the VM
/// names a function still missing when it loads the program).
void LoadExternPlugins(rxt_context_s& context, const std::vector<std::string>& externs) {
  if (!context.settings.search_path) return;
  for (const std::string& failure : context.plugins->LoadFor(externs, PluginSearchPath())) {
    if (context.settings.log) context.settings.log(RXT_LOG_WARNING, "rxt", failure);
  }
}

/// The kernels of an executable that has none (every op became a library call): none to load.
class NoKernels : public KernelProvider {
 public:
  explicit NoKernels(std::string backend) : backend_(std::move(backend)) {}
  std::string name() const override { return backend_; }
  std::unique_ptr<Kernel> Load(const KernelRecord& record) override {
    Throw(ErrorCode::kFailedPrecondition, "kernel '", record.name, "': the executable has no kernel library");
  }

 private:
  std::string backend_;
};

void UseContext(const rxt_context_s& context, VirtualMachine& vm) {
  vm.set_thread_pool(context.pool.get());
  vm.set_allocator(context.settings.allocator ? &*context.settings.allocator : nullptr);
}

}  // namespace

const Allocator* AllocatorOf(rxt_context_t* context) {
  const rxt_context_s& c = Resolve(context);
  return c.settings.allocator ? &*c.settings.allocator : nullptr;
}

void CreateVM(rxt_context_t* context, const Executable& exec, const std::string& backend, rxt_vm_s& vm) {
  rxt_context_s& c = Resolve(context);
  const bool needs_library = !exec.kernels.empty();
  if ((needs_library && exec.aot_library.empty()) || (!backend.empty() && backend != exec.backend)) {
    Throw(ErrorCode::kFailedPrecondition, "librxt_runtime runs kernels compiled ahead of time only: ",
          exec.aot_library.empty() ? "this executable names no kernel library (build it with --emit-library)"
                                   : "backend '" + backend + "' would compile them again",
          "; librxt (with the compiler) can compile them");
  }
  LoadExternPlugins(c, exec.externs);
  if (needs_library) {
    vm.provider = std::make_unique<AotKernelProvider>(AotKernelProvider::ForExecutable(exec));
  } else {
    vm.provider = std::make_unique<NoKernels>(exec.backend);
  }
  vm.vm = std::make_unique<VirtualMachine>(exec, *vm.provider, *c.externs);
  UseContext(c, *vm.vm);
}

std::unique_ptr<Trainer> LoadTrainer(rxt_context_t* context, const std::string& path) {
  rxt_context_s& c = Resolve(context);
  TrainerFile file = LoadTrainerFile(path);
  if (file.kernel_library.empty()) {
    Throw(ErrorCode::kFailedPrecondition, file.Label(),
          " carries no kernels compiled ahead of time, and librxt_runtime cannot compile them (save it with a backend "
          "that compiles ahead of time, such as cpu, or load it with librxt)");
  }
  LoadExternPlugins(c, file.program.executable.externs);
  std::unique_ptr<Trainer> trainer = OpenTrainerFile(std::move(file), nullptr, *c.externs);
  trainer->set_thread_pool(c.pool.get());
  trainer->set_allocator(c.settings.allocator ? &*c.settings.allocator : nullptr);
  return trainer;
}

void SaveTrainer(rxt_context_t* /*context*/, const Trainer& trainer, const std::string& path) {
  const auto* aot = dynamic_cast<const AotKernelProvider*>(&trainer.kernels());
  if (aot == nullptr) {
    Throw(ErrorCode::kFailedPrecondition, "rxt_trainer_save: the trainer's kernels do not run from a kernel library; "
          "librxt_runtime cannot compile one (save it with librxt)");
  }
  SaveTrainerFile(MakeTrainerFile(trainer, aot->LibraryBytes()), path);
}

std::shared_ptr<Communicator> CreateCommunicator(rxt_context_t* context, const std::string& name,
                                                 const std::string& options, void* external) {
  rxt_context_s& c = Resolve(context);
  std::optional<ExternPlugins::Collective> found = c.plugins->FindCollective(name);
  if (!found && c.settings.search_path && IsPrintableText(name) && name.find('/') == std::string::npos) {
    for (const std::string& dir : PluginSearchPath()) {
      std::filesystem::path candidate = std::filesystem::path(dir) / ("rxt_ccl_" + name + ".so");
      std::error_code ec;
      if (!std::filesystem::is_regular_file(candidate, ec)) continue;
      c.plugins->Load(candidate.string());
      break;
    }
    found = c.plugins->FindCollective(name);
  }
  if (!found) {
    std::string known;
    for (const std::string& n : c.plugins->CollectiveNames()) known += (known.empty() ? "" : ", ") + n;
    Throw(ErrorCode::kNotFound, "no collective named '", MessageText(name, 60), "' is loaded (",
          known.empty() ? "none is; plugins/ccl_mpi, rxt_ccl_mpi.so, provides \"mpi\"" : "known: " + known, ")");
  }
  std::shared_ptr<const void> keep_alive = found->vtable;
  return Communicator::Create(*found->vtable, std::move(keep_alive), options, external);
}

}  // namespace rxt::abi_impl

extern "C" {

rxt_status_t rxt_context_create(const rxt_context_options_t* options, rxt_context_t** out_context) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(out_context);
  auto handle = std::make_unique<rxt_context_s>();
  handle->settings = rxt::abi_impl::ReadContextOptions(options);
  handle->own_externs = std::make_unique<rxt::ExternRegistry>(&rxt::ExternRegistry::Global());
  handle->externs = handle->own_externs.get();
  handle->plugins = std::make_unique<rxt::ExternPlugins>(*handle->externs);
  if (handle->settings.num_threads > 0) handle->pool = std::make_unique<rxt::ThreadPool>(handle->settings.num_threads);
  for (const std::string& path : handle->settings.plugins) handle->plugins->Load(path);
  *out_context = handle.release();
  RXT_API_END();
}

rxt_context_t* rxt_context_default(void) {
  static rxt_context_s* handle = [] {
    auto* h = new rxt_context_s();  // never destroyed: valid until the process exits
    h->is_default = true;
    h->externs = &rxt::ExternRegistry::Global();
    h->plugins = std::make_unique<rxt::ExternPlugins>(*h->externs);
    return h;
  }();
  return handle;
}

rxt_context_t* rxt_context_retain(rxt_context_t* context) {
  if (context != nullptr && !context->is_default) context->references.fetch_add(1, std::memory_order_relaxed);
  return context;
}

void rxt_context_release(rxt_context_t* context) {
  if (context == nullptr || context->is_default) return;  // the default one lives on
  if (context->references.fetch_sub(1, std::memory_order_acq_rel) == 1) delete context;
}

rxt_status_t rxt_context_load_plugin(rxt_context_t* context, const char* path) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(context);
  RXT_CHECK_ARG(path);
  context->plugins->Load(path);
  RXT_API_END();
}

rxt_status_t rxt_context_num_threads(const rxt_context_t* context, int32_t* out_num_threads) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(context);
  RXT_CHECK_ARG(out_num_threads);
  *out_num_threads = context->pool != nullptr ? context->pool->num_threads() : rxt::ThreadPool::Current().num_threads();
  RXT_API_END();
}

rxt_status_t rxt_plugin_load(const char* path) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(path);
  rxt_context_default()->plugins->Load(path);
  RXT_API_END();
}

}  // extern "C"
