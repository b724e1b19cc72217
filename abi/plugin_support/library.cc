#include "rxt/plugin_support/library.h"

#include <exception>
#include <string>

namespace rxt::plugin_support {

void Pattern::Replace(int num_calls, int sibling, Expr value) {
  if (num_calls < 1 || num_calls > this->num_calls()) {
    Fail("Replace: " + std::to_string(num_calls) + " calls, but the match has " + std::to_string(this->num_calls()));
  }
  if (sibling < -1 || sibling >= num_siblings()) {
    Fail("Replace: sibling " + std::to_string(sibling) + ", but the match has " + std::to_string(num_siblings()));
  }
  if (value == nullptr) Fail("");  // the building call that failed recorded why
  out_->value = value;
  out_->num_calls = num_calls;
  out_->sibling = sibling;
}

rxt_status_t RunPattern(PatternBody body, const rxt_ir_api_t* ir, rxt_ir_builder_t* b,
                        const rxt_library_match_t* match, rxt_library_rewrite_t* out) {
  try {
    Pattern pattern(ir, b, match, out);
    body(pattern);
  } catch (const BuilderStopped&) {
    out->value = nullptr;
    return FailGenerator(ir, b, RXT_INVALID_ARGUMENT, "");
  } catch (const std::exception& e) {
    out->value = nullptr;
    return FailGenerator(ir, b, RXT_INTERNAL, std::string("internal error in the pattern: ") + e.what());
  } catch (...) {
    out->value = nullptr;
    return FailGenerator(ir, b, RXT_INTERNAL, "internal error in the pattern");
  }
  // A building call that failed recorded its error and returned NULL: report it.
  if (ir->error(b) != nullptr) {
    out->value = nullptr;
    return FailGenerator(ir, b, RXT_INVALID_ARGUMENT, "");
  }
  return nullptr;
}

}  // namespace rxt::plugin_support
