#include "converters.h"

namespace rxt::export_onnx {

OpContext::OpContext(GraphWriter& writer, rxt_ir_expr_t call, rxt_ir_expr_t var) : w(writer), call_(call), var_(var) {
  const char* name = writer.ir->var_name(writer.reader, var);
  hint_ = name ? name : "v";
}

std::string OpContext::op() const {
  const char* name = ir()->op_name(w.reader, call_);
  return name ? name : "";
}

int OpContext::num_args() const { return ir()->num_args(w.reader, call_); }

rxt_ir_expr_t OpContext::arg(int index) const {
  rxt_ir_expr_t e = ir()->arg(w.reader, call_, index);
  if (e == nullptr) Fail("argument " + std::to_string(index) + " is missing");
  return e;
}

std::optional<int64_t> OpContext::Int(const char* name) const {
  int64_t value = 0;
  if (ir()->attr_int(w.reader, call_, name, &value) == RXT_OK) return value;
  return std::nullopt;
}

std::optional<std::vector<int64_t>> OpContext::Ints(const char* name) const {
  const int64_t* values = nullptr;
  int count = 0;
  if (ir()->attr_ints(w.reader, call_, name, &values, &count) != RXT_OK) return std::nullopt;
  return std::vector<int64_t>(values, values + count);
}

double OpContext::Float(const char* name, double fallback) const {
  double value = 0;
  return ir()->attr_float(w.reader, call_, name, &value) == RXT_OK ? value : fallback;
}

bool OpContext::Bool(const char* name, bool fallback) const {
  int value = 0;
  return ir()->attr_bool(w.reader, call_, name, &value) == RXT_OK ? value != 0 : fallback;
}

std::string OpContext::String(const char* name, const std::string& fallback) const {
  const char* value = nullptr;
  return ir()->attr_string(w.reader, call_, name, &value) == RXT_OK && value != nullptr ? value : fallback;
}

std::string OpContext::DType(rxt_ir_expr_t e) const {
  const char* dtype = ir()->dtype(w.reader, e);
  return dtype ? dtype : "";
}

int OpContext::OnnxTypeOf(rxt_ir_expr_t e) const {
  int type = OnnxType(DType(e));
  if (type == 0) Fail("a value of dtype '" + DType(e) + "', which ONNX has no type for");
  return type;
}

int OpContext::NDim(rxt_ir_expr_t e) const {
  int ndim = ir()->ndim(w.reader, e);
  if (ndim < 0) Fail("an operand of unknown rank");
  return ndim;
}

std::string OpContext::ScalarLike(double value, rxt_ir_expr_t like) const {
  return w.Scalar(value, OnnxTypeOf(like), hint_ + "_const");
}

void OpContext::Fail(const std::string& why) const { throw ExportError(why); }

int64_t NormalizeAxis(int64_t axis, int64_t ndim) { return axis < 0 ? axis + ndim : axis; }

Converter FindConverter(const std::string& op) {
  static const ConverterTable table = [] {
    ConverterTable t;
    AddElementwiseConverters(t);
    AddNNConverters(t);
    AddShapeConverters(t);
    AddReduceConverters(t);
    AddTrainingConverters(t);
    return t;
  }();
  auto it = table.find(op);
  return it == table.end() ? nullptr : it->second;
}

}  // namespace rxt::export_onnx
