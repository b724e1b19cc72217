// Contexts across the ABI: create from rxt_context_options_t, the default one, reference
// counting, plugins of a context.
#include <cstddef>
#include <cstring>

#include "runtime_handles.h"
#include "struct_options.h"

namespace rxt::abi_impl {

Context& ContextOf(rxt_context_t* context) { return context != nullptr ? *context->context : Context::Default(); }

ContextReference::ContextReference(rxt_context_t* context) : handle_(rxt_context_retain(context)) {}
ContextReference::~ContextReference() { rxt_context_release(handle_); }

}  // namespace rxt::abi_impl

namespace {

/// rxt_context_options_t -> rxt::ContextOptions, fields past the caller's struct_size defaulted.
rxt::ContextOptions ToContextOptions(const rxt_context_options_t* options) {
  using Options = rxt_context_options_t;
  using rxt::abi_impl::FieldOr;
  constexpr const char* kFunction = "rxt_context_create";
  Options defaults;
  rxt_context_options_init(&defaults);
  if (options == nullptr) options = &defaults;
  rxt::abi_impl::CheckStructSize(*options, kFunction, "rxt_context_options_t");
  // A field appended to rxt_context_options_t must be read here too (or it is silently ignored).
  static_assert(offsetof(Options, allocator_user_data) + sizeof(Options::allocator_user_data) == sizeof(Options));
  rxt::ContextOptions context;
  context.num_threads = FieldOr(*options, &Options::num_threads, defaults.num_threads);
  if (context.num_threads < 0) {
    rxt::Throw(rxt::ErrorCode::kInvalidArgument, kFunction, ": options.num_threads is ", context.num_threads,
               "; expected 0 (the process pool) or more");
  }
  context.search_path = FieldOr(*options, &Options::search_path, defaults.search_path) != 0;
  const char* const* plugins = FieldOr(*options, &Options::plugins, defaults.plugins);
  size_t num_plugins = FieldOr(*options, &Options::num_plugins, defaults.num_plugins);
  if (num_plugins > 0 && plugins == nullptr) {
    rxt::Throw(rxt::ErrorCode::kInvalidArgument, kFunction, ": options.plugins is NULL but options.num_plugins is ",
               num_plugins);
  }
  for (size_t i = 0; i < num_plugins; ++i) {
    if (plugins[i] == nullptr) rxt::Throw(rxt::ErrorCode::kInvalidArgument, kFunction, ": options.plugins[", i, "] is NULL");
    context.plugins.emplace_back(plugins[i]);
  }
  if (rxt_log_fn_t log = FieldOr(*options, &Options::log, defaults.log)) {
    void* user_data = FieldOr(*options, &Options::log_user_data, defaults.log_user_data);
    context.log = [log, user_data](rxt_log_level_t level, const std::string& source, const std::string& message) {
      log(user_data, level, source.c_str(), message.c_str());
    };
  }
  rxt_allocate_fn_t allocate = FieldOr(*options, &Options::allocate, defaults.allocate);
  rxt_deallocate_fn_t deallocate = FieldOr(*options, &Options::deallocate, defaults.deallocate);
  if ((allocate == nullptr) != (deallocate == nullptr)) {
    rxt::Throw(rxt::ErrorCode::kInvalidArgument, kFunction, ": options.", allocate == nullptr ? "allocate" : "deallocate",
               " is NULL: give both allocator hooks or neither");
  }
  if (allocate != nullptr) {
    context.allocator = rxt::Allocator{.allocate = allocate,
                                       .deallocate = deallocate,
                                       .user_data = FieldOr(*options, &Options::allocator_user_data,
                                                            defaults.allocator_user_data)};
  }
  return context;
}

}  // namespace

extern "C" {

void rxt_context_options_init(rxt_context_options_t* options) {
  if (options == nullptr) return;
  std::memset(options, 0, sizeof(*options));
  options->struct_size = sizeof(*options);
  options->search_path = 1;
}

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
