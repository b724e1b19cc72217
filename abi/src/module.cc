// Modules across the ABI: parse, print, verify, and reference counting.
#include "api.h"
#include "rxt/ir/parser.h"
#include "rxt/ir/printer.h"
#include "rxt/ir/struct_info.h"
#include "rxt/ir/well_formed.h"

namespace rxt::abi_impl {

rxt_module_t* Wrap(IRModule module) {
  auto* handle = new rxt_module_s();
  handle->module = std::move(module);
  return handle;
}

}  // namespace rxt::abi_impl

extern "C" {

rxt_status_t rxt_module_parse(const char* text, size_t len, const char* file_name, rxt_module_t** out_module) {
  RXT_API_BEGIN();
  if (len > 0) RXT_CHECK_ARG(text);
  RXT_CHECK_ARG(out_module);
  std::string_view source = len > 0 ? std::string_view(text, len) : std::string_view();
  rxt::IRModule module = rxt::ParseModule(source, file_name != nullptr ? file_name : "<input>");
  *out_module = rxt::abi_impl::Wrap(std::move(module));
  RXT_API_END();
}

rxt_status_t rxt_module_print(const rxt_module_t* module, char** out_text) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(module);
  RXT_CHECK_ARG(out_text);
  *out_text = rxt::abi_impl::CopyString(rxt::PrintModule(rxt::abi_impl::Unwrap(module)));
  RXT_API_END();
}

rxt_status_t rxt_module_verify(const rxt_module_t* module) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(module);
  rxt::VerifyWellFormed(rxt::abi_impl::Unwrap(module));
  RXT_API_END();
}

rxt_module_t* rxt_module_retain(rxt_module_t* module) {
  if (module != nullptr) module->references.fetch_add(1, std::memory_order_relaxed);
  return module;
}

namespace {

rxt::Function FunctionOf(const rxt_module_t* module, const char* function, const char* caller) {
  rxt::Function f = rxt::abi_impl::Unwrap(module).FindFunction(function);
  if (f == nullptr) rxt::Throw(rxt::ErrorCode::kNotFound, caller, ": the module has no function @", function);
  return f;
}

}  // namespace

rxt_status_t rxt_module_function_params(const rxt_module_t* module, const char* function,
                                        int (*visit)(void* user_data, const char* name, const char* struct_info),
                                        void* user_data) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(module);
  RXT_CHECK_ARG(function);
  RXT_CHECK_ARG(visit);
  rxt::Function f = FunctionOf(module, function, __func__);
  for (const rxt::Var& param : f->params) {
    if (visit(user_data, param->name.c_str(), rxt::ToString(param->struct_info).c_str()) != 0) break;
  }
  RXT_API_END();
}

rxt_status_t rxt_module_function_num_results(const rxt_module_t* module, const char* function, size_t* out_count) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(module);
  RXT_CHECK_ARG(function);
  RXT_CHECK_ARG(out_count);
  rxt::Function f = FunctionOf(module, function, __func__);
  const auto* tuple = f->ret_sinfo != nullptr ? f->ret_sinfo->As<rxt::TupleSINode>() : nullptr;
  *out_count = tuple != nullptr ? tuple->fields.size() : 1;
  RXT_API_END();
}

void rxt_module_release(rxt_module_t* module) {
  if (module != nullptr && module->references.fetch_sub(1, std::memory_order_acq_rel) == 1) delete module;
}

}  // extern "C"
