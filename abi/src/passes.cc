// Pass pipelines across the ABI: options read up to the caller's struct_size.
#include <cstddef>
#include <cstring>

#include "api.h"
#include "rxt/pass/pass.h"
#include "rxt/pass/pass_list.h"
#include "rxt/transform/passes.h"
#include "runtime/struct_options.h"

namespace {

using rxt::abi_impl::CheckStructSize;
using rxt::abi_impl::Holds;

rxt::PassContext ToPassContext(const rxt_pass_options_t* options) {
  rxt_pass_options_t defaults;
  rxt_pass_options_init(&defaults);
  if (options == nullptr) options = &defaults;
  CheckStructSize(*options, "rxt_module_run_passes", "rxt_pass_options_t");
  // A field appended to rxt_pass_options_t must be read here too (or it is silently ignored).
  static_assert(offsetof(rxt_pass_options_t, num_config) + sizeof(rxt_pass_options_t::num_config) ==
                sizeof(rxt_pass_options_t));
  rxt::PassContext context;
  context.opt_level = Holds(*options, options->opt_level) ? options->opt_level : defaults.opt_level;
  context.verify_well_formed_after_each = Holds(*options, options->verify_each) ? options->verify_each != 0 : false;
  if (Holds(*options, options->num_disabled) && options->num_disabled > 0) {
    if (options->disabled == nullptr) {
      rxt::Throw(rxt::ErrorCode::kInvalidArgument, "rxt_module_run_passes: options.disabled is NULL but num_disabled is ",
                 options->num_disabled);
    }
    for (size_t i = 0; i < options->num_disabled; ++i) {
      rxt::abi_impl::CheckArg(options->disabled[i], "rxt_module_run_passes", "options.disabled[i]");
      context.disabled_passes.insert(options->disabled[i]);
    }
  }
  if (Holds(*options, options->num_config) && options->num_config > 0) {
    if (options->config_keys == nullptr || options->config_values == nullptr) {
      rxt::Throw(rxt::ErrorCode::kInvalidArgument, "rxt_module_run_passes: options.config_keys or config_values is "
                 "NULL but num_config is ", options->num_config);
    }
    std::vector<rxt::PassInvocation> config;
    for (size_t i = 0; i < options->num_config; ++i) {
      rxt::abi_impl::CheckArg(options->config_keys[i], "rxt_module_run_passes", "options.config_keys[i]");
      rxt::abi_impl::CheckArg(options->config_values[i], "rxt_module_run_passes", "options.config_values[i]");
      config.push_back(rxt::PassOptionFromKey(options->config_keys[i], options->config_values[i]));
    }
    rxt::AddPassOptions(config, context);
  }
  return context;
}

}  // namespace

extern "C" {

void rxt_pass_options_init(rxt_pass_options_t* options) {
  if (options == nullptr) return;
  std::memset(options, 0, sizeof(*options));
  options->struct_size = sizeof(*options);
  options->opt_level = 2;
}

rxt_status_t rxt_module_run_passes(const rxt_module_t* module, const char* const* names, size_t count,
                                   const rxt_pass_options_t* options, rxt_module_t** out_module) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(module);
  RXT_CHECK_ARG(out_module);
  if (count > 0) RXT_CHECK_ARG(names);
  std::vector<std::string> pass_names;
  for (size_t i = 0; i < count; ++i) {
    rxt::abi_impl::CheckArg(names[i], __func__, "names[i]");
    pass_names.emplace_back(names[i]);
  }
  rxt::PassContext context = ToPassContext(options);
  *out_module = rxt::abi_impl::Wrap(rxt::RunPasses(rxt::abi_impl::Unwrap(module), pass_names, context));
  RXT_API_END();
}

rxt_status_t rxt_passes_list(rxt_name_visitor_t visit, void* user_data) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(visit);
  for (const rxt::PassInfo& pass : rxt::ListPasses()) {
    std::string summary = rxt::abi_impl::FirstLine(pass.summary);
    if (visit(user_data, pass.name.c_str(), summary.c_str()) != 0) break;
  }
  RXT_API_END();
}

}  // extern "C"
