#include "rxt/plugin_support/generator.h"

#include <cmath>
#include <exception>

namespace rxt::plugin_support {

bool Generator::Present(rxt_code_t code) {
  if (code == RXT_NOT_FOUND) return false;
  if (code != RXT_OK) Fail("");  // the host's message is already recorded
  return true;
}

void Generator::CheckOptions(const std::vector<const char*>& known) {
  if (ir_->check_options(b_, options_.c_str(), known.data(), static_cast<int>(known.size())) != RXT_OK) Fail("");
}

double Generator::Float(const char* name, double fallback) { return OptionalFloat(name).value_or(fallback); }

std::optional<double> Generator::OptionalFloat(const char* name) {
  double value = 0;
  if (!Present(ir_->option_float(b_, options_.c_str(), name, &value))) return std::nullopt;
  if (!std::isfinite(value)) Fail(std::string("option '") + name + "' must be finite");
  return value;
}

int64_t Generator::Int(const char* name, int64_t fallback) {
  int64_t value = 0;
  return Present(ir_->option_int(b_, options_.c_str(), name, &value)) ? value : fallback;
}

bool Generator::Bool(const char* name, bool fallback) {
  int value = 0;
  return Present(ir_->option_bool(b_, options_.c_str(), name, &value)) ? value != 0 : fallback;
}

std::string Generator::String(const char* name, const std::string& fallback) {
  const char* value = nullptr;
  return Present(ir_->option_string(b_, options_.c_str(), name, &value)) ? std::string(value) : fallback;
}

std::optional<std::vector<double>> Generator::Floats(const char* name) {
  const double* values = nullptr;
  int count = 0;
  if (!Present(ir_->option_floats(b_, options_.c_str(), name, &values, &count))) return std::nullopt;
  std::vector<double> out(values, values + count);
  for (double v : out) {
    if (!std::isfinite(v)) Fail(std::string("option '") + name + "' must hold finite numbers");
  }
  return out;
}

void Generator::Require(bool ok, const char* name, const char* rule, double value) {
  if (!ok) Fail(std::string("option '") + name + "' must be " + rule + ", got " + FloatText(value));
}

Expr Generator::Param(const std::string& name, const std::string& struct_info) {
  Expr p = ir_->param(b_, name.c_str(), struct_info.c_str());
  if (p == nullptr) Fail("");
  return p;
}

Expr Generator::State(const std::string& name, const std::string& struct_info, double init) {
  Expr s = ir_->state(b_, name.c_str(), struct_info.c_str(), init);
  if (s == nullptr) Fail("");
  return s;
}

void Generator::SetState(Expr state, Expr next) {
  if (ir_->set_state(b_, state, next) != RXT_OK) Fail("");
}

rxt_status_t RunGenerator(const rxt_ir_api_t* ir, rxt_ir_builder_t* b, const char* options,
                          const std::function<void(Generator&)>& body) {
  if (!RXT_IR_API_HAS(ir, check_options)) {
    return FailGenerator(ir, b, RXT_FAILED_PRECONDITION,
                         "this plugin needs a host whose IR table reads options (rxt_ir_api_t.check_options)");
  }
  try {
    Generator g(ir, b, options);
    body(g);
  } catch (const BuilderStopped&) {
    return FailGenerator(ir, b, RXT_INVALID_ARGUMENT, "");
  } catch (const std::exception& e) {
    return FailGenerator(ir, b, RXT_INTERNAL, std::string("internal error: ") + e.what());
  } catch (...) {
    return FailGenerator(ir, b, RXT_INTERNAL, "internal error");
  }
  // A building call that failed recorded its error and returned NULL (as did every later
  // call given that NULL): report it.
  return ir->error(b) != nullptr ? FailGenerator(ir, b, RXT_INVALID_ARGUMENT, "") : nullptr;
}

}  // namespace rxt::plugin_support
