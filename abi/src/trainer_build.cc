// Creating a Trainer across the C ABI: from a backbone or trainer module, built by a session of
// the options' context (the compiler's half; the rest of the Trainer is runtime/trainer.cc).
#include <cstddef>
#include <memory>

#include "api.h"
#include "context_handle.h"
#include "rxt/exec/build_trainer.h"
#include "rxt/exec/session.h"
#include "runtime/struct_options.h"

namespace {

using rxt::ErrorCode;
using rxt::Throw;

std::string OrEmpty(const char* text) { return text != nullptr ? text : ""; }

/// The caller's options (NULL: the defaults), fields its struct_size does not cover defaulted.
rxt_trainer_options_t ReadOptions(const rxt_trainer_options_t* options) {
  using Options = rxt_trainer_options_t;
  using rxt::abi_impl::FieldOr;
  Options defaults;
  rxt_trainer_options_init(&defaults);
  if (options == nullptr) return defaults;
  rxt::abi_impl::CheckStructSize(*options, "rxt_trainer_create", "rxt_trainer_options_t");
  // A field appended to rxt_trainer_options_t must be read here too (or it is silently ignored).
  static_assert(sizeof(Options) - (offsetof(Options, accumulation) + sizeof(Options::accumulation)) < alignof(Options),
                "a field after accumulation is not read");
  Options o = defaults;
  o.backend = FieldOr(*options, &Options::backend, defaults.backend);
  o.loss = FieldOr(*options, &Options::loss, defaults.loss);
  o.loss_options = FieldOr(*options, &Options::loss_options, defaults.loss_options);
  o.optimizer = FieldOr(*options, &Options::optimizer, defaults.optimizer);
  o.optimizer_options = FieldOr(*options, &Options::optimizer_options, defaults.optimizer_options);
  o.opt_level = FieldOr(*options, &Options::opt_level, defaults.opt_level);
  o.libraries = FieldOr(*options, &Options::libraries, defaults.libraries);
  o.context = FieldOr(*options, &Options::context, defaults.context);
  o.data_parallel = FieldOr(*options, &Options::data_parallel, defaults.data_parallel);
  o.bucket_bytes = FieldOr(*options, &Options::bucket_bytes, defaults.bucket_bytes);
  o.accumulation = FieldOr(*options, &Options::accumulation, defaults.accumulation);
  if (o.bucket_bytes < 0) {
    Throw(ErrorCode::kInvalidArgument, "rxt_trainer_create: options->bucket_bytes is ", o.bucket_bytes,
          " (0: 25 MiB, or a positive size)");
  }
  return o;
}

}  // namespace

extern "C" {

void rxt_trainer_options_init(rxt_trainer_options_t* options) {
  if (options == nullptr) return;
  *options = rxt_trainer_options_t{};
  options->struct_size = sizeof(rxt_trainer_options_t);
  options->opt_level = 2;
}

rxt_status_t rxt_trainer_create(const rxt_module_t* module, const rxt_trainer_options_t* options,
                                rxt_trainer_t** out_trainer) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(module);
  RXT_CHECK_ARG(out_trainer);
  rxt_trainer_options_t o = ReadOptions(options);
  rxt::TrainRequest request{.build = {.opt_level = o.opt_level},
                            .loss = {OrEmpty(o.loss), OrEmpty(o.loss_options)},
                            .optimizer = {OrEmpty(o.optimizer), OrEmpty(o.optimizer_options)},
                            .data_parallel = o.data_parallel != 0,
                            .accumulation = o.accumulation != 0};
  if (o.bucket_bytes > 0) request.bucket_bytes = o.bucket_bytes;
  if (o.backend != nullptr) request.build.backend = o.backend;
  if (o.libraries != nullptr) request.build.libraries = rxt::ParseLibraryList(o.libraries, "rxt_trainer_create: options->libraries");
  const rxt::IRModule& ir = rxt::abi_impl::Unwrap(module);
  if (rxt::IsTrainerModule(ir)) {
    request.loss = {};  // compiled in: rxt.h says a trainer module ignores them
    request.optimizer = {};
  } else if (request.loss.name.empty() || request.optimizer.name.empty()) {
    Throw(ErrorCode::kInvalidArgument, __func__,
          ": a backbone module needs options->loss and options->optimizer (e.g. \"cross_entropy\" and \"sgd\")");
  }
  auto handle = std::make_unique<rxt_trainer_s>();
  handle->context = std::make_unique<rxt::abi_impl::ContextReference>(o.context);
  rxt::Session session(rxt::abi_impl::ContextOf(handle->context->get()));
  rxt::Allocator::Scope allocating(rxt::abi_impl::AllocatorOf(handle->context->get()));
  handle->trainer = session.CreateTrainer(ir, request);
  *out_trainer = handle.release();
  RXT_API_END();
}

rxt_status_t rxt_trainer_save_for_target(const rxt_trainer_t* trainer, const char* path, const char* target,
                                         const char* cpu, const char* features) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(trainer);
  RXT_CHECK_ARG(path);
  rxt::Session session(rxt::abi_impl::ContextOf(trainer->context->get()));
  session.SaveTrainer(*trainer->trainer, path, {OrEmpty(target), OrEmpty(cpu), OrEmpty(features)});
  RXT_API_END();
}

}  // extern "C"
