// Binding a call's arguments to the kernel's parameters, like TVM's match_buffer: scalar
// parameters take their values, buffer parameters take their tensors, and every bare variable
// in a buffer's dims (or declared strides) is bound from the first tensor that has it and
// checked against every other. Dims written as expressions (n * 2) are checked last.
#include <sstream>

#include "reference_interpreter.h"

namespace rxt::backend_reference {
namespace {

using kf::DType;
using kf::ExprKind;

// DLPack 0.6 has no bool code: bool tensors come as uint8 (torch, numpy), or as code 6
// (kDLBool of later DLPack versions).
constexpr uint8_t kDLBoolCode = 6;

bool DataTypeMatches(DType t, DLDataType d) {
  if (d.lanes != 1) return false;
  switch (t) {
    case DType::kFloat16: return d.code == kDLFloat && d.bits == 16;
    case DType::kBFloat16: return d.code == kDLBfloat && d.bits == 16;
    case DType::kFloat32: return d.code == kDLFloat && d.bits == 32;
    case DType::kFloat64: return d.code == kDLFloat && d.bits == 64;
    case DType::kInt8: return d.code == kDLInt && d.bits == 8;
    case DType::kInt16: return d.code == kDLInt && d.bits == 16;
    case DType::kInt32: return d.code == kDLInt && d.bits == 32;
    case DType::kInt64: return d.code == kDLInt && d.bits == 64;
    case DType::kUInt8: return d.code == kDLUInt && d.bits == 8;
    case DType::kBool: return (d.code == kDLUInt || d.code == kDLBoolCode) && d.bits == 8;
    case DType::kUnknown: return false;
  }
  return false;
}

std::string DataTypeName(DLDataType d) {
  std::string name;
  switch (d.code) {
    case kDLInt: name = "int"; break;
    case kDLUInt: name = "uint"; break;
    case kDLFloat: name = "float"; break;
    case kDLBfloat: name = "bfloat"; break;
    case kDLBoolCode: name = "bool"; break;
    default: name = "type code " + std::to_string(d.code) + " with bits "; break;
  }
  name += std::to_string(d.bits);
  if (d.lanes != 1) name += "x" + std::to_string(d.lanes);
  return name;
}

std::string Tuple(const int64_t* values, int n) {
  std::ostringstream os;
  os << "(";
  for (int i = 0; i < n; ++i) os << (i ? ", " : "") << values[i];
  os << (n == 1 ? ",)" : ")");
  return os.str();
}

bool FitsInt(DType t, int64_t v) { return WrapInt(t, static_cast<uint64_t>(v)) == v; }

}  // namespace

void ReferenceInterpreter::BindArguments(const std::vector<KernelArg>& args, Frame& frame) const {
  const std::vector<kf::Param>& params = kernel_.params;
  if (args.size() != params.size()) {
    throw KernelError("expects " + std::to_string(params.size()) + " arguments but got " + std::to_string(args.size()));
  }
  // Where each variable got its value, for messages about disagreements.
  std::vector<std::string> bound_by(kernel_.vars.size());
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i].kind == kf::ParamKind::kScalar) {
      BindScalar(i, args[i], frame);
      bound_by[params[i].index] = "the scalar parameter " + kernel_.vars[params[i].index].name;
    }
  }
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i].kind == kf::ParamKind::kBuffer) BindBuffer(i, args[i], frame, bound_by);
  }
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i].kind == kf::ParamKind::kBuffer) CheckDerivedDims(i, frame);
  }
}

void ReferenceInterpreter::BindScalar(size_t param, const KernelArg& arg, Frame& frame) const {
  const kf::Var& var = kernel_.vars[kernel_.params[param].index];
  std::string what = "parameter " + std::to_string(param) + " (" + var.name + ": " + kf::DTypeName(var.dtype) + ")";
  Value& value = frame.vars[kernel_.params[param].index];
  switch (arg.kind) {
    case KernelArg::Kind::kInt:
      if (kf::IsInt(var.dtype) && !FitsInt(var.dtype, arg.int_value)) {
        throw KernelError(what + ": " + std::to_string(arg.int_value) + " does not fit");
      }
      value = MakeInt(var.dtype, arg.int_value);
      return;
    case KernelArg::Kind::kFloat:
      if (!kf::IsFloat(var.dtype)) throw KernelError(what + ": expected an integer but got a float");
      value = MakeFloat(var.dtype, arg.float_value);
      return;
    case KernelArg::Kind::kTensor: throw KernelError(what + ": expected a scalar but got a tensor");
  }
}

void ReferenceInterpreter::BindBuffer(size_t param, const KernelArg& arg, Frame& frame,
                                      std::vector<std::string>& bound_by) const {
  int32_t index = kernel_.params[param].index;
  const kf::Buffer& buffer = kernel_.buffers[index];
  std::string what = "buffer " + buffer.name + " (parameter " + std::to_string(param) + ")";
  const DLTensor* t = arg.tensor;
  if (arg.kind != KernelArg::Kind::kTensor || t == nullptr) throw KernelError(what + ": expected a tensor");
  if (t->device.device_type != kDLCPU) {
    throw KernelError(what + ": expected a CPU tensor but got device type " + std::to_string(t->device.device_type));
  }
  if (!DataTypeMatches(buffer.dtype, t->dtype)) {
    throw KernelError(what + ": expected " + kf::DTypeName(buffer.dtype) + " but got a tensor of " +
                      DataTypeName(t->dtype));
  }
  int ndim = static_cast<int>(buffer.shape.size());
  if (t->ndim != ndim || (ndim > 0 && t->shape == nullptr)) {
    throw KernelError(what + ": expected " + std::to_string(ndim) + " dims but got a tensor with " +
                      std::to_string(t->ndim) + (t->ndim > 0 && t->shape ? " " + Tuple(t->shape, t->ndim) : ""));
  }
  BufferView view;
  view.shape.assign(t->shape, t->shape + ndim);
  view.strides.resize(ndim);
  int64_t elements = 1;
  for (int d = ndim; d-- > 0;) {
    if (view.shape[d] < 0) throw KernelError(what + ": the tensor's shape " + Tuple(t->shape, ndim) + " is negative");
    view.strides[d] = t->strides ? t->strides[d] : (d + 1 == ndim ? 1 : view.strides[d + 1] * view.shape[d + 1]);
    elements *= view.shape[d];
  }
  for (int d = 0; d < ndim; ++d) {
    BindSymbol(buffer.shape[d], view.shape[d], what + " dim " + std::to_string(d), frame, bound_by);
  }
  if (!buffer.strides.empty()) {
    for (int d = 0; d < ndim; ++d) {
      BindSymbol(buffer.strides[d], view.strides[d], what + " stride " + std::to_string(d), frame, bound_by);
    }
  } else if (t->strides) {
    // No strides declared: the kernel assumes compact row-major memory (dims of 1 may have
    // any stride, as torch gives them).
    int64_t expected = 1;
    for (int d = ndim; d-- > 0;) {
      if (view.shape[d] != 1 && view.strides[d] != expected) {
        throw KernelError(what +
                          ": declares no strides, so the tensor must be compact row-major, but its strides are " +
                          Tuple(t->strides, ndim) + " for shape " + Tuple(t->shape, ndim));
      }
      expected *= view.shape[d];
    }
  }
  if (t->data == nullptr && elements > 0) throw KernelError(what + ": the tensor has no data");
  view.data = static_cast<uint8_t*>(t->data) + t->byte_offset;
  frame.buffers[index] = std::move(view);
}

void ReferenceInterpreter::BindSymbol(int32_t expr, int64_t actual, const std::string& where, Frame& frame,
                                      std::vector<std::string>& bound_by) const {
  const kf::Expr& e = kernel_.exprs[expr];
  if (e.kind != ExprKind::kVar) return;  // an expression: checked by CheckDerivedDims
  const kf::Var& var = kernel_.vars[e.var];
  if (bound_by[e.var].empty()) {
    if (!FitsInt(var.dtype, actual)) {
      throw KernelError(where + " is " + std::to_string(actual) + ", which does not fit " + var.name + " (" +
                        kf::DTypeName(var.dtype) + ")");
    }
    frame.vars[e.var] = IntValue(actual);
    bound_by[e.var] = where;
    return;
  }
  int64_t bound = frame.vars[e.var].i;
  if (bound != actual) {
    throw KernelError(where + " is " + std::to_string(actual) + ", but " + var.name + " = " + std::to_string(bound) +
                      " from " + bound_by[e.var]);
  }
}

void ReferenceInterpreter::CheckDerivedDims(size_t param, const Frame& frame) const {
  int32_t index = kernel_.params[param].index;
  const kf::Buffer& buffer = kernel_.buffers[index];
  const BufferView& view = frame.buffers[index];
  for (bool strides : {false, true}) {
    const std::vector<int32_t>& exprs = strides ? buffer.strides : buffer.shape;
    const std::vector<int64_t>& actual = strides ? view.strides : view.shape;
    for (size_t d = 0; d < exprs.size(); ++d) {
      const kf::Expr& e = kernel_.exprs[exprs[d]];
      if (e.kind == ExprKind::kVar) continue;  // bound (and checked) by BindSymbol
      int64_t expected = Eval(exprs[d], frame).i;
      if (expected == actual[d]) continue;
      throw KernelError("buffer " + buffer.name + " (parameter " + std::to_string(param) + ")" +
                        (strides ? " stride " : " dim ") + std::to_string(d) + " is " + std::to_string(actual[d]) +
                        ", but the kernel expects " + (e.kind == ExprKind::kIntImm ? "" : ExprText(exprs[d]) + " = ") +
                        std::to_string(expected));
    }
  }
}

}  // namespace rxt::backend_reference
