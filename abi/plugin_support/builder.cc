#include "rxt/plugin_support/builder.h"

#include "rxt/plugin_support/host.h"

namespace rxt::plugin_support {

int Builder::KnownNdim(Expr e, const char* what) {
  int ndim = Ndim(e);
  if (ndim < 0) Fail(std::string("the ndim of ") + what + " must be known; got " + StructInfoText(e));
  return ndim;
}

std::string Builder::DType(Expr e) const {
  const char* dtype = ir_->dtype(b_, e);
  return dtype != nullptr ? dtype : "";
}

bool Builder::IsFloat(Expr e) const {
  std::string dtype = DType(e);
  return dtype == "float16" || dtype == "bfloat16" || dtype == "float32" || dtype == "float64";
}

std::optional<int64_t> Builder::Dim(Expr e, int axis) const {
  int64_t value = 0;
  if (ir_->dim(b_, e, axis, &value) == 1) return value;
  return std::nullopt;
}

int64_t Builder::StaticDim(Expr e, int axis, const char* why) {
  std::optional<int64_t> dim = Dim(e, axis);
  if (!dim) {
    Fail(std::string("dim ") + std::to_string(axis) + " of " + StructInfoText(e) + " must be static (" + why + ")");
  }
  return *dim;
}

std::string Builder::DimText(Expr e, int axis) {
  const char* text = ir_->dim_text(b_, e, axis);
  if (text == nullptr) Fail("dim " + std::to_string(axis) + " of " + StructInfoText(e) + " must be known");
  return text;
}

std::string Builder::StructInfoText(Expr e) const {
  const char* text = ir_->struct_info_text(b_, e);
  return text != nullptr ? text : "";
}

std::string Builder::TensorText(Expr e, const std::vector<int>& axes, const std::string& dtype) {
  std::string dims;
  for (size_t i = 0; i < axes.size(); ++i) dims += (i ? ", " : "") + DimText(e, axes[i]);
  if (axes.size() == 1) dims += ",";
  return "Tensor((" + dims + "), " + dtype + ")";
}

std::string Builder::TensorLike(Expr e, const std::string& dtype) {
  int ndim = Ndim(e);
  if (ndim < 0) Fail("the ndim of " + StructInfoText(e) + " must be known");
  std::vector<int> axes;
  for (int i = 0; i < ndim; ++i) axes.push_back(i);
  return TensorText(e, axes, dtype);
}

std::optional<std::vector<int64_t>> Builder::StaticShape(Expr e) const {
  int ndim = Ndim(e);
  if (ndim < 0) return std::nullopt;
  std::vector<int64_t> shape;
  for (int axis = 0; axis < ndim; ++axis) {
    std::optional<int64_t> d = Dim(e, axis);
    if (!d) return std::nullopt;
    shape.push_back(*d);
  }
  return shape;
}

std::string Builder::OpName(Expr call) const {
  const char* name = ir_->op_name(b_, call);
  return name != nullptr ? name : "";
}

std::optional<int64_t> Builder::AttrInt(Expr call, const char* name) const {
  int64_t value = 0;
  if (ir_->attr_int(b_, call, name, &value) != RXT_OK) return std::nullopt;
  return value;
}

std::optional<bool> Builder::AttrBool(Expr call, const char* name) const {
  int value = 0;
  if (ir_->attr_bool(b_, call, name, &value) != RXT_OK) return std::nullopt;
  return value != 0;
}

std::optional<std::string> Builder::AttrString(Expr call, const char* name) const {
  const char* value = nullptr;
  if (ir_->attr_string(b_, call, name, &value) != RXT_OK || value == nullptr) return std::nullopt;
  return std::string(value);
}

std::optional<std::vector<int64_t>> Builder::AttrInts(Expr call, const char* name) const {
  const int64_t* values = nullptr;
  int count = 0;
  if (ir_->attr_ints(b_, call, name, &values, &count) != RXT_OK) return std::nullopt;
  return std::vector<int64_t>(values, values + count);
}

std::optional<double> Builder::ConstantValue(Expr e) const {
  double value = 0;
  if (!RXT_IR_API_HAS(ir_, constant_value) || ir_->constant_value(b_, e, &value) != 1) return std::nullopt;
  return value;
}

Expr Builder::CallExtern(const std::string& name, const std::vector<Expr>& args, const std::vector<Expr>& outs_like) {
  if (!RXT_IR_API_HAS(ir_, call_extern)) Fail("call_extern needs a newer host (rxt_ir_api_t.call_extern)");
  return ir_->call_extern(b_, name.c_str(), args.data(), static_cast<int>(args.size()), outs_like.data(),
                          static_cast<int>(outs_like.size()));
}

Expr Builder::Op(const char* name, std::initializer_list<Expr> args, const std::string& attrs) {
  return Op(name, std::vector<Expr>(args), attrs);
}

Expr Builder::Op(const char* name, const std::vector<Expr>& args, const std::string& attrs) {
  return ir_->op(b_, name, args.data(), static_cast<int>(args.size()), attrs.c_str());
}

Expr Builder::Constant(const std::vector<double>& values, const std::vector<int64_t>& shape,
                       const std::string& dtype) {
  return ir_->constant(b_, values.data(), shape.data(), static_cast<int>(shape.size()), dtype.c_str());
}

Expr Builder::Cast(Expr x, const std::string& dtype) {
  if (x != nullptr && DType(x) == dtype) return x;
  return Op("astype", {x}, "dtype=" + dtype);
}

rxt_status_t FailGenerator(const rxt_ir_api_t* ir, rxt_ir_builder_t* b, rxt_code_t code, const std::string& message) {
  if (ir->error(b) == nullptr) ir->fail(b, message.empty() ? "failed (no message)" : message.c_str());
  const char* error = ir->error(b);
  return MakeStatus(code, error != nullptr ? error : message);
}

void Builder::Fail(const std::string& message) {
  if (!message.empty()) ir_->fail(b_, message.c_str());
  throw BuilderStopped{};
}

}  // namespace rxt::plugin_support
