#include "rule.h"

#include <cmath>
#include <cstdio>
#include <exception>

namespace rxt::grad_std {

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

int Rule::KnownNdim(Expr e, const char* what) {
  int ndim = Ndim(e);
  if (ndim < 0) Fail(std::string("the ndim of ") + what + " must be known; got " + StructInfoText(e));
  return ndim;
}

bool Rule::IsFloat(Expr e) {
  std::string dtype = DType(e);
  return dtype == "float16" || dtype == "bfloat16" || dtype == "float32" || dtype == "float64";
}

std::optional<int64_t> Rule::Dim(Expr e, int axis) {
  int64_t value = 0;
  if (ir_->dim(b_, e, axis, &value) == 1) return value;
  return std::nullopt;
}

int64_t Rule::StaticDim(Expr e, int axis, const char* why) {
  std::optional<int64_t> dim = Dim(e, axis);
  if (!dim) {
    Fail(std::string("dim ") + std::to_string(axis) + " of " + StructInfoText(e) + " must be static (" + why + ")");
  }
  return *dim;
}

Expr Rule::Op(const char* name, std::initializer_list<Expr> args, const std::string& attrs) {
  return Op(name, std::vector<Expr>(args), attrs);
}

Expr Rule::Op(const char* name, const std::vector<Expr>& args, const std::string& attrs) {
  return ir_->op(b_, name, args.data(), static_cast<int>(args.size()), attrs.c_str());
}

Expr Rule::Constant(const std::vector<double>& values, const std::vector<int64_t>& shape, const std::string& dtype) {
  return ir_->constant(b_, values.data(), shape.data(), static_cast<int>(shape.size()), dtype.c_str());
}

void Rule::Fail(const std::string& message) {
  ir_->fail(b_, message.c_str());
  throw RuleStopped{};
}

rxt_code_t RunRule(RuleBody body, const rxt_ir_api_t* ir, rxt_ir_builder_t* b, Expr call, Expr output, Expr output_grad,
                   Expr* input_grads) {
  try {
    Rule rule(ir, b, call, output, output_grad, input_grads);
    body(rule);
  } catch (const RuleStopped&) {
    return RXT_INVALID_ARGUMENT;
  } catch (const std::exception& e) {
    ir->fail(b, (std::string("internal error in the gradient rule: ") + e.what()).c_str());
    return RXT_INTERNAL;
  } catch (...) {
    ir->fail(b, "internal error in the gradient rule");
    return RXT_INTERNAL;
  }
  // A building call that failed recorded its error and returned NULL (and so did every later
  // call with that NULL): report it.
  return ir->error(b) != nullptr ? RXT_INVALID_ARGUMENT : RXT_OK;
}

std::string IntsText(const std::vector<int64_t>& values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}

std::string FloatText(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.17g", value);
  std::string text = buffer;
  // The text format reads "1" as an int: keep floats recognizably floating.
  if (text.find_first_of(".eE") == std::string::npos) text += ".0";
  return text;
}

std::string Quoted(const std::string& text) { return "\"" + text + "\""; }

}  // namespace rxt::grad_std
