#include "ir_generator.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>

namespace rxt::plugin_support {
namespace {

/// Thrown by Generator::Fail after the error is recorded; caught by RunGenerator.
struct GeneratorStopped {};

/// The value of an option read with code |code|: true if present, false if absent; stops the
/// generator when the host recorded an error (wrong kind, unparsable options).
bool Present(Generator& g, rxt_code_t code) {
  if (code == RXT_NOT_FOUND) return false;
  if (code != RXT_OK) g.Fail("");  // the host's message is already recorded
  return true;
}

}  // namespace

void Generator::CheckOptions(const std::vector<const char*>& known) {
  if (ir_->check_options(b_, options_.c_str(), known.data(), static_cast<int>(known.size())) != RXT_OK) Stop();
}

double Generator::Float(const char* name, double fallback) { return OptionalFloat(name).value_or(fallback); }

std::optional<double> Generator::OptionalFloat(const char* name) {
  double value = 0;
  if (!Present(*this, ir_->option_float(b_, options_.c_str(), name, &value))) return std::nullopt;
  if (!std::isfinite(value)) Fail(std::string("option '") + name + "' must be finite");
  return value;
}

int64_t Generator::Int(const char* name, int64_t fallback) {
  int64_t value = 0;
  return Present(*this, ir_->option_int(b_, options_.c_str(), name, &value)) ? value : fallback;
}

bool Generator::Bool(const char* name, bool fallback) {
  int value = 0;
  return Present(*this, ir_->option_bool(b_, options_.c_str(), name, &value)) ? value != 0 : fallback;
}

std::string Generator::String(const char* name, const std::string& fallback) {
  const char* value = nullptr;
  return Present(*this, ir_->option_string(b_, options_.c_str(), name, &value)) ? std::string(value) : fallback;
}

std::optional<std::vector<double>> Generator::Floats(const char* name) {
  const double* values = nullptr;
  int count = 0;
  if (!Present(*this, ir_->option_floats(b_, options_.c_str(), name, &values, &count))) return std::nullopt;
  std::vector<double> out(values, values + count);
  for (double v : out) {
    if (!std::isfinite(v)) Fail(std::string("option '") + name + "' must hold finite numbers");
  }
  return out;
}

void Generator::Require(bool ok, const char* name, const char* rule, double value) {
  if (!ok) Fail(std::string("option '") + name + "' must be " + rule + ", got " + FloatText(value));
}

bool Generator::IsFloat(Expr e) {
  std::string dtype = DType(e);
  return dtype == "float16" || dtype == "bfloat16" || dtype == "float32" || dtype == "float64";
}

std::optional<int64_t> Generator::Dim(Expr e, int axis) {
  int64_t value = 0;
  if (ir_->dim(b_, e, axis, &value) == 1) return value;
  return std::nullopt;
}

std::string Generator::DimText(Expr e, int axis) {
  const char* text = ir_->dim_text(b_, e, axis);
  if (text == nullptr) {
    Fail("dim " + std::to_string(axis) + " of " + StructInfoText(e) + " must be known");
  }
  return text;
}

std::string Generator::TensorText(Expr e, const std::vector<int>& axes, const std::string& dtype) {
  std::string dims;
  for (size_t i = 0; i < axes.size(); ++i) dims += (i ? ", " : "") + DimText(e, axes[i]);
  if (axes.size() == 1) dims += ",";
  return "Tensor((" + dims + "), " + dtype + ")";
}

std::string Generator::TensorLike(Expr e, const std::string& dtype) {
  int ndim = Ndim(e);
  if (ndim < 0) Fail("the ndim of " + StructInfoText(e) + " must be known");
  std::vector<int> axes;
  for (int i = 0; i < ndim; ++i) axes.push_back(i);
  return TensorText(e, axes, dtype);
}

Expr Generator::Op(const char* name, std::initializer_list<Expr> args, const std::string& attrs) {
  std::vector<Expr> operands(args);
  return ir_->op(b_, name, operands.data(), static_cast<int>(operands.size()), attrs.c_str());
}

Expr Generator::Constant(const std::vector<double>& values, const std::vector<int64_t>& shape,
                         const std::string& dtype) {
  return ir_->constant(b_, values.data(), shape.data(), static_cast<int>(shape.size()), dtype.c_str());
}

Expr Generator::Cast(Expr x, const std::string& dtype) {
  if (x != nullptr && DType(x) == dtype) return x;
  return Op("astype", {x}, "dtype=" + dtype);
}

Expr Generator::Param(const std::string& name, const std::string& struct_info) {
  Expr p = ir_->param(b_, name.c_str(), struct_info.c_str());
  if (p == nullptr) Stop();
  return p;
}

Expr Generator::State(const std::string& name, const std::string& struct_info, double init) {
  Expr s = ir_->state(b_, name.c_str(), struct_info.c_str(), init);
  if (s == nullptr) Stop();
  return s;
}

void Generator::SetState(Expr state, Expr next) {
  if (ir_->set_state(b_, state, next) != RXT_OK) Stop();
}

void Generator::Fail(const std::string& message) {
  if (!message.empty()) ir_->fail(b_, message.c_str());
  Stop();
}

void Generator::Stop() { throw GeneratorStopped{}; }

rxt_code_t RunGenerator(const rxt_ir_api_t* ir, rxt_ir_builder_t* b, const char* options,
                        const std::function<void(Generator&)>& body) {
  if (!RXT_IR_API_HAS(ir, check_options)) {
    ir->fail(b, "this plugin needs a host whose IR table reads options (rxt_ir_api_t.check_options)");
    return RXT_FAILED_PRECONDITION;
  }
  try {
    Generator g(ir, b, options);
    body(g);
  } catch (const GeneratorStopped&) {
    if (ir->error(b) == nullptr) ir->fail(b, "failed (no message)");
    return RXT_INVALID_ARGUMENT;
  } catch (const std::exception& e) {
    ir->fail(b, (std::string("internal error: ") + e.what()).c_str());
    return RXT_INTERNAL;
  } catch (...) {
    ir->fail(b, "internal error");
    return RXT_INTERNAL;
  }
  // A building call that failed recorded its error and returned NULL (as did every later
  // call given that NULL): report it.
  return ir->error(b) != nullptr ? RXT_INVALID_ARGUMENT : RXT_OK;
}

std::string FloatText(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  // The shortest form that reads back as the same double ("0.1", not "0.10000000000000001").
  char buffer[32];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof(buffer), "%.*g", precision, value);
    if (std::strtod(buffer, nullptr) == value) break;
  }
  std::string text = buffer;
  if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
  return text;
}

}  // namespace rxt::plugin_support
