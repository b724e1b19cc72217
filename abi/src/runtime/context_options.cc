#include "context_options.h"

#include <cstddef>
#include <cstring>

#include "rxt/support/error.h"
#include "struct_options.h"

namespace rxt::abi_impl {

ContextSettings ReadContextOptions(const rxt_context_options_t* options) {
  using Options = rxt_context_options_t;
  constexpr const char* kFunction = "rxt_context_create";
  Options defaults;
  rxt_context_options_init(&defaults);
  if (options == nullptr) options = &defaults;
  CheckStructSize(*options, kFunction, "rxt_context_options_t");
  // A field appended to rxt_context_options_t must be read here too (or it is silently ignored).
  static_assert(offsetof(Options, allocator_user_data) + sizeof(Options::allocator_user_data) == sizeof(Options));
  ContextSettings context;
  context.num_threads = FieldOr(*options, &Options::num_threads, defaults.num_threads);
  if (context.num_threads < 0) {
    Throw(ErrorCode::kInvalidArgument, kFunction, ": options.num_threads is ", context.num_threads,
               "; expected 0 (the process pool) or more");
  }
  context.search_path = FieldOr(*options, &Options::search_path, defaults.search_path) != 0;
  const char* const* plugins = FieldOr(*options, &Options::plugins, defaults.plugins);
  size_t num_plugins = FieldOr(*options, &Options::num_plugins, defaults.num_plugins);
  if (num_plugins > 0 && plugins == nullptr) {
    Throw(ErrorCode::kInvalidArgument, kFunction, ": options.plugins is NULL but options.num_plugins is ",
               num_plugins);
  }
  for (size_t i = 0; i < num_plugins; ++i) {
    if (plugins[i] == nullptr) Throw(ErrorCode::kInvalidArgument, kFunction, ": options.plugins[", i, "] is NULL");
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
    Throw(ErrorCode::kInvalidArgument, kFunction, ": options.", allocate == nullptr ? "allocate" : "deallocate",
               " is NULL: give both allocator hooks or neither");
  }
  if (allocate != nullptr) {
    context.allocator = Allocator{.allocate = allocate,
                                       .deallocate = deallocate,
                                       .user_data = FieldOr(*options, &Options::allocator_user_data,
                                                            defaults.allocator_user_data)};
  }
  return context;
}

}  // namespace rxt::abi_impl

extern "C" {

void rxt_context_options_init(rxt_context_options_t* options) {
  if (options == nullptr) return;
  std::memset(options, 0, sizeof(*options));
  options->struct_size = sizeof(*options);
  options->search_path = 1;
}

}  // extern "C"
