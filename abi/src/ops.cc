// Listing the registered ops.
#include "api.h"
#include "rxt/ir/op.h"

namespace rxt::abi_impl {

std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

}  // namespace rxt::abi_impl

extern "C" {

rxt_status_t rxt_ops_list(rxt_name_visitor_t visit, void* user_data) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(visit);
  for (const rxt::OpDef* op : rxt::OpRegistry::Global().List()) {
    std::string summary = rxt::abi_impl::FirstLine(op->doc());
    if (visit(user_data, op->name().c_str(), summary.c_str()) != 0) break;
  }
  RXT_API_END();
}

}  // extern "C"
