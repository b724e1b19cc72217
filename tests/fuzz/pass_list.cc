// Fuzz target pass_list: the pass lists of `rxt show --passes` and rxt_module_run_passes
// (core/src/pass/pass_list.cc). Any text gives invocations or an rxt::Error; valid invocations
// name registered passes and known options (or AddPassOptions says which is not), and parsing the
// same text twice gives the same result. The same text as one option value (rxt_pass_options_t's
// config_values) gives one value or an rxt::Error.
#include <string>
#include <string_view>

#include "fuzz_util.h"
#include "rxt/ir/printer.h"
#include "rxt/pass/pass_list.h"
#include "rxt/support/error.h"

namespace {

std::string Describe(const std::vector<rxt::PassInvocation>& passes) {
  std::string text;
  for (const rxt::PassInvocation& pass : passes) {
    text += pass.name + "(";
    for (const auto& [key, value] : pass.options.entries()) text += key + "=" + rxt::PrintAttrValue(value) + ",";
    text += ")";
  }
  return text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    rxt::PassInvocation option = rxt::PassOptionFromKey("Gradient.require_grads", text);
    FUZZ_CHECK(option.options.entries().size() == 1, "an option value gave several options");
  } catch (const rxt::Error&) {
  }
  std::vector<rxt::PassInvocation> passes;
  try {
    passes = rxt::ParsePassList(text, "fuzz");
  } catch (const rxt::Error&) {
    return 0;  // the expected outcome for most inputs
  }
  FUZZ_CHECK(!passes.empty(), "a pass list parsed to no pass");
  FUZZ_CHECK(Describe(rxt::ParsePassList(text, "fuzz")) == Describe(passes), "parsing is not deterministic");
  rxt::PassContext context;
  try {
    rxt::AddPassOptions(passes, context);
  } catch (const rxt::Error&) {
    return 0;  // an unknown pass or option, said by name
  }
  return 0;
}
