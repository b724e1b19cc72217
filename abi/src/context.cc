// librxt's contexts across the ABI: create from rxt_context_options_t, the default one,
// reference counting, plugins of a context; and what the runtime's half of the ABI asks of a
// context (runtime/handles.h), done by a build session of the compiler.
#include "context_handle.h"
#include "runtime/context_options.h"
#include "rxt/exec/session.h"

namespace rxt::abi_impl {

Context& ContextOf(rxt_context_t* context) { return context != nullptr ? *context->context : Context::Default(); }

const Allocator* AllocatorOf(rxt_context_t* context) { return ContextOf(context).allocator(); }

void CreateVM(rxt_context_t* context, const Executable& exec, const std::string& backend, rxt_vm_s& vm) {
  Session session(ContextOf(context));
  RunnableExecutable run = session.CreateVM(exec, backend);
  vm.provider = std::move(run.kernels);
  vm.vm = std::move(run.vm);
}

std::unique_ptr<Trainer> LoadTrainer(rxt_context_t* context, const std::string& path) {
  return Session(ContextOf(context)).LoadTrainer(path);
}

void SaveTrainer(rxt_context_t* context, const Trainer& trainer, const std::string& path) {
  Session(ContextOf(context)).SaveTrainer(trainer, path);
}

std::shared_ptr<Communicator> CreateCommunicator(rxt_context_t* context, const std::string& name,
                                                 const std::string& options, void* external) {
  return Session(ContextOf(context)).CreateCommunicator(name, options, external);
}

}  // namespace rxt::abi_impl

namespace {

/// The compiler's context options from the C ones.
rxt::ContextOptions ToContextOptions(const rxt_context_options_t* options) {
  rxt::abi_impl::ContextSettings settings = rxt::abi_impl::ReadContextOptions(options);
  rxt::ContextOptions context;
  context.num_threads = settings.num_threads;
  context.plugins = std::move(settings.plugins);
  context.search_path = settings.search_path;
  context.log = std::move(settings.log);
  context.allocator = settings.allocator;
  return context;
}

}  // namespace

extern "C" {

rxt_status_t rxt_context_create(const rxt_context_options_t* options, rxt_context_t** out_context) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(out_context);
  auto handle = std::make_unique<rxt_context_s>();
  handle->own = std::make_unique<rxt::Context>(ToContextOptions(options));
  handle->context = handle->own.get();
  *out_context = handle.release();
  RXT_API_END();
}

rxt_context_t* rxt_context_default(void) {
  static rxt_context_s* handle = [] {
    auto* h = new rxt_context_s();  // never destroyed: valid until the process exits
    h->context = &rxt::Context::Default();
    return h;
  }();
  return handle;
}

rxt_context_t* rxt_context_retain(rxt_context_t* context) {
  if (context != nullptr && context->own != nullptr) context->references.fetch_add(1, std::memory_order_relaxed);
  return context;
}

void rxt_context_release(rxt_context_t* context) {
  if (context == nullptr || context->own == nullptr) return;  // the default one lives on
  if (context->references.fetch_sub(1, std::memory_order_acq_rel) == 1) delete context;
}

rxt_status_t rxt_context_load_plugin(rxt_context_t* context, const char* path) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(context);
  RXT_CHECK_ARG(path);
  context->context->plugins().Load(path);
  RXT_API_END();
}

rxt_status_t rxt_context_num_threads(const rxt_context_t* context, int32_t* out_num_threads) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(context);
  RXT_CHECK_ARG(out_num_threads);
  *out_num_threads = context->context->num_threads();
  RXT_API_END();
}

}  // extern "C"
