// Building executables across the ABI (legalize + compile, the compiler's half; loading and
// saving them is runtime/executable.cc).
#include <cstddef>

#include "context_handle.h"
#include "rxt/exec/session.h"
#include "runtime/struct_options.h"

namespace {

/// rxt_build_options_t -> what the build session builds (exec/session.h decides the defaults),
/// and the context it builds in (NULL: the default).
rxt::BuildRequest ToBuildRequest(const rxt_build_options_t* options, rxt_context_t** context) {
  using Options = rxt_build_options_t;
  using rxt::abi_impl::FieldOr;
  constexpr const char* kFunction = "rxt_executable_build_with_options";
  Options defaults;
  rxt_build_options_init(&defaults);
  if (options == nullptr) options = &defaults;
  rxt::abi_impl::CheckStructSize(*options, kFunction, "rxt_build_options_t");
  // A field appended to rxt_build_options_t must be read here too (or it is silently ignored).
  static_assert(offsetof(Options, context) + sizeof(Options::context) == sizeof(Options));
  const char* backend = FieldOr(*options, &Options::backend, defaults.backend);
  int32_t opt_level = FieldOr(*options, &Options::opt_level, defaults.opt_level);
  const char* libraries = FieldOr(*options, &Options::libraries, defaults.libraries);
  const char* emit_library = FieldOr(*options, &Options::emit_library, defaults.emit_library);
  *context = FieldOr(*options, &Options::context, defaults.context);
  if (opt_level < 0 || opt_level > 3) {
    rxt::Throw(rxt::ErrorCode::kInvalidArgument, kFunction, ": options.opt_level is ", opt_level, "; expected 0 to 3");
  }
  rxt::BuildRequest request;
  if (backend != nullptr) request.backend = backend;
  request.opt_level = opt_level;
  if (libraries != nullptr) request.libraries = rxt::ParseLibraryList(libraries, rxt::StrCat(kFunction, ": options.libraries"));
  if (emit_library != nullptr) request.emit_library = emit_library;
  return request;
}

}  // namespace

extern "C" {

void rxt_build_options_init(rxt_build_options_t* options) {
  if (options == nullptr) return;
  std::memset(options, 0, sizeof(*options));
  options->struct_size = sizeof(*options);
  options->opt_level = 2;
}

rxt_status_t rxt_executable_build_with_options(const rxt_module_t* module, const rxt_build_options_t* options,
                                               rxt_executable_t** out_executable) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(module);
  RXT_CHECK_ARG(out_executable);
  rxt_context_t* context = nullptr;
  rxt::BuildRequest request = ToBuildRequest(options, &context);
  rxt::Session session(rxt::abi_impl::ContextOf(context));
  rxt::Executable exec = session.Build(rxt::abi_impl::Unwrap(module), request);
  *out_executable = rxt::abi_impl::WrapExecutable(std::move(exec));
  RXT_API_END();
}

rxt_status_t rxt_executable_build(const rxt_module_t* module, const char* backend, rxt_executable_t** out_executable) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(module);
  RXT_CHECK_ARG(out_executable);
  rxt::Session session(rxt::Context::Default());
  // Generated kernels only, as rxt.h promises: no library.
  rxt::Executable exec = session.Build(rxt::abi_impl::Unwrap(module), {.backend = backend != nullptr ? backend : "",
                                                                        .libraries = std::vector<std::string>{}});
  *out_executable = rxt::abi_impl::WrapExecutable(std::move(exec));
  RXT_API_END();
}

}  // extern "C"
