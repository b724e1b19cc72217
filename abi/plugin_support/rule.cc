#include "rxt/plugin_support/rule.h"

#include <exception>

namespace rxt::plugin_support {

int64_t Rule::Int(const char* name) {
  int64_t value = 0;
  rxt_code_t code = ir_->attr_int(b_, call_, name, &value);
  if (code != RXT_OK) FailAttr(name, "an int", code);
  return value;
}

std::optional<int64_t> Rule::OptionalInt(const char* name) {
  int64_t value = 0;
  rxt_code_t code = ir_->attr_int(b_, call_, name, &value);
  if (code == RXT_NOT_FOUND) return std::nullopt;
  if (code != RXT_OK) FailAttr(name, "an int", code);
  return value;
}

double Rule::Float(const char* name) {
  double value = 0;
  rxt_code_t code = ir_->attr_float(b_, call_, name, &value);
  if (code != RXT_OK) FailAttr(name, "a float", code);
  return value;
}

bool Rule::Bool(const char* name) {
  int value = 0;
  rxt_code_t code = ir_->attr_bool(b_, call_, name, &value);
  if (code != RXT_OK) FailAttr(name, "a bool", code);
  return value != 0;
}

std::string Rule::String(const char* name) {
  const char* value = nullptr;
  rxt_code_t code = ir_->attr_string(b_, call_, name, &value);
  if (code != RXT_OK) FailAttr(name, "a string", code);
  return value;
}

std::vector<int64_t> Rule::Ints(const char* name) {
  std::optional<std::vector<int64_t>> values = OptionalInts(name);
  if (!values) FailAttr(name, "a list of ints", RXT_NOT_FOUND);
  return *values;
}

std::optional<std::vector<int64_t>> Rule::OptionalInts(const char* name) {
  const int64_t* values = nullptr;
  int count = 0;
  rxt_code_t code = ir_->attr_ints(b_, call_, name, &values, &count);
  if (code == RXT_NOT_FOUND) return std::nullopt;
  if (code != RXT_OK) FailAttr(name, "a list of ints", code);
  return std::vector<int64_t>(values, values + count);
}

void Rule::FailAttr(const char* name, const char* kind, rxt_code_t code) {
  Fail(std::string("attribute ") + name + (code == RXT_NOT_FOUND ? " is missing" : " is not ") +
       (code == RXT_NOT_FOUND ? "" : kind));
}

rxt_status_t RunRule(RuleBody body, const rxt_ir_api_t* ir, rxt_ir_builder_t* b, Expr call, Expr output,
                     Expr output_grad, Expr* input_grads) {
  try {
    Rule rule(ir, b, call, output, output_grad, input_grads);
    body(rule);
  } catch (const BuilderStopped&) {
    return FailGenerator(ir, b, RXT_INVALID_ARGUMENT, "");
  } catch (const std::exception& e) {
    return FailGenerator(ir, b, RXT_INTERNAL, std::string("internal error in the gradient rule: ") + e.what());
  } catch (...) {
    return FailGenerator(ir, b, RXT_INTERNAL, "internal error in the gradient rule");
  }
  // A building call that failed recorded its error and returned NULL (and so did every later
  // call with that NULL): report it.
  return ir->error(b) != nullptr ? FailGenerator(ir, b, RXT_INVALID_ARGUMENT, "") : nullptr;
}

}  // namespace rxt::plugin_support
