// kernel_binding.h (plugin SDK): binds a call's DLPack tensors to a kernel's parameters (C++17,
// header-only; depends only on the SDK's kernel-format headers and dlpack).
//
// Compiled kernels (rxt/compiled_kernel.h) check nothing: whoever calls one binds the call's
// arguments first, with the rules and messages of the reference backend (docs/kernel_format.md,
// "Calls"): dtype, ndim, device and layout of every tensor; a bare variable among a buffer's
// dims (or declared strides) is bound from the first tensor that has it and checked against
// every other place it appears; dims written as expressions are checked last; a scalar
// parameter comes as a 0-d int64 or float64 tensor. What binding produces is exactly what a
// compiled kernel takes: a data pointer per buffer, an int64 per variable, a double per
// variable.
//
// The checks are worked out once per kernel (KernelBinder), so that a call costs a few tens of
// nanoseconds and allocates nothing; a BoundCall holds the arrays and is reused call after call:
//
//   rxt::plugin_support::kernel_binding::KernelBinder binder(std::move(decoded.kernel));
//   rxt::plugin_support::kernel_binding::BoundCall call = binder.NewCall();       // once per kernel handle
//   std::string error;
//   if (!binder.Bind(args, num_args, call, error)) return Fail(error);
//   fn(call.buffers.data(), call.int_vars.data(), call.float_vars.data(), runtime);
#ifndef RXT_PLUGIN_SUPPORT_KERNEL_BINDING_H_
#define RXT_PLUGIN_SUPPORT_KERNEL_BINDING_H_

#include <dlpack/dlpack.h>

#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "rxt/plugin_support/kernel_codec.h"

namespace rxt::plugin_support::kernel_binding {

namespace kf = ::rxt::plugin_support::kernel_format;

// DLPack 0.6 has no bool code: bool tensors come as uint8 (torch, numpy), or as code 6
// (kDLBool of later DLPack versions).
inline constexpr uint8_t kDLBoolCode = 6;

inline bool DataTypeMatches(kf::DType t, DLDataType d) {
  using kf::DType;
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

/// "float32", "uint8", "bfloat16", "int32x4".
inline std::string DataTypeName(DLDataType d) {
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

/// The low bits of |bits| as an integer of dtype |t| (two's complement); bool: non-zero.
inline int64_t WrapInt(kf::DType t, uint64_t bits) {
  switch (t) {
    case kf::DType::kInt8: return static_cast<int8_t>(bits);
    case kf::DType::kInt16: return static_cast<int16_t>(bits);
    case kf::DType::kInt32: return static_cast<int32_t>(bits);
    case kf::DType::kUInt8: return static_cast<uint8_t>(bits);
    case kf::DType::kBool: return bits != 0 ? 1 : 0;
    default: return static_cast<int64_t>(bits);
  }
}

inline bool FitsInt(kf::DType t, int64_t v) { return WrapInt(t, static_cast<uint64_t>(v)) == v; }

/// "(2, 3)", "(5,)", "()".
inline std::string TupleText(const int64_t* values, int n) {
  std::string s = "(";
  for (int i = 0; i < n; ++i) s += (i ? ", " : "") + std::to_string(values[i]);
  return s + (n == 1 ? ",)" : ")");
}

/// Where a variable got its value in this call, for messages about disagreements.
struct Origin {
  enum class Kind : uint8_t { kUnbound, kScalar, kDim, kStride };
  Kind kind = Kind::kUnbound;
  int32_t param = -1;
  int32_t dim = -1;
};

/// The arrays of one call, sized for one kernel (KernelBinder::NewCall) and reused from call
/// to call. Bind fills buffers (parameters only), int_vars and float_vars (dims, strides and
/// scalar parameters); the rest is scratch.
struct BoundCall {
  std::vector<void*> buffers;      // per buffer of the kernel: data + byte_offset
  std::vector<int64_t> int_vars;   // per variable: integer (and bool) values
  std::vector<double> float_vars;  // per variable: float scalar parameters
  std::vector<Origin> origins;     // per variable
  std::vector<const DLTensor*> tensors;  // per parameter (buffers only)
};

class KernelBinder {
 public:
  /// Prepares the binding of a decoded (valid) kernel. A dim or stride written as an
  /// expression is evaluated with integer arithmetic; one that uses floats makes the kernel
  /// unsupported: check error() after constructing.
  explicit KernelBinder(kf::Kernel kernel) : kernel_(std::move(kernel)) { Prepare(); }

  const kf::Kernel& kernel() const { return kernel_; }
  /// Empty, or why this kernel cannot be bound (then Bind always fails with it).
  const std::string& error() const { return error_; }

  BoundCall NewCall() const {
    BoundCall call;
    call.buffers.assign(kernel_.buffers.size(), nullptr);
    call.int_vars.assign(kernel_.vars.size(), 0);
    call.float_vars.assign(kernel_.vars.size(), 0.0);
    call.origins.assign(kernel_.vars.size(), Origin());
    call.tensors.assign(kernel_.params.size(), nullptr);
    return call;
  }

  /// Binds |num_args| arguments (DLTensor*, one per parameter, outputs last; a scalar
  /// parameter as a 0-d int64 or float64 tensor). Returns false after setting |error| to the
  /// reference backend's message ("buffer W (parameter 1) dim 1 is 5, but m = 4 from buffer X
  /// (parameter 0) dim 1"); allocates nothing when the arguments fit.
  bool Bind(const DLTensor* const* args, int num_args, BoundCall& call, std::string& error) const {
    if (!error_.empty()) return Fail(error, error_);
    const int num_params = static_cast<int>(kernel_.params.size());
    if (num_args != num_params) {
      return Fail(error, "expected " + std::to_string(num_params) + " arguments, got " + std::to_string(num_args));
    }
    if (num_args > 0 && args == nullptr) return Fail(error, "null arguments");
    for (int i = 0; i < num_args; ++i) {
      if (args[i] == nullptr) return Fail(error, "argument " + std::to_string(i) + " is null");
      if (kernel_.params[i].kind == kf::ParamKind::kScalar && !IsScalarTensor(*args[i])) {
        return Fail(error, "scalar argument " + std::to_string(i) + " is not a 0-d int64 or float64 tensor");
      }
    }
    for (int32_t v : bound_vars_) call.origins[v] = Origin();
    for (const ParamPlan& p : params_) {
      if (p.is_scalar && !BindScalar(p, *args[p.param], call, error)) return false;
    }
    for (const ParamPlan& p : params_) {
      if (!p.is_scalar && !BindBuffer(p, *args[p.param], call, error)) return false;
    }
    for (const DerivedCheck& c : derived_) {
      if (!CheckDerived(c, call, error)) return false;
    }
    return true;
  }

  /// Whether the kernel stores to any of its parameter buffers that another argument of the
  /// call overlaps. Compiled code assumes that memory it writes is reached through one buffer
  /// only; the reference interpreter does not, so this is the check that keeps them equal.
  /// Returns false with a message naming both buffers.
  bool CheckWrittenBuffersDistinct(const BoundCall& call, std::string& error) const {
    for (int32_t w : written_params_) {
      Span a = SpanOf(call.tensors[w]);
      if (a.empty()) continue;
      for (const ParamPlan& p : params_) {
        if (p.is_scalar || p.param == w) continue;
        Span b = SpanOf(call.tensors[p.param]);
        if (b.empty() || a.end <= b.begin || b.end <= a.begin) continue;
        // An output written over its input, as the kernel's "in_place" attribute allows.
        if (a.begin == b.begin && a.end == b.end && InPlacePair(p.param, w)) continue;
        return Fail(error, BufferWhat(w) + " shares memory with " + BufferWhat(p.param) +
                               ": a buffer the kernel writes must not overlap another argument");
      }
    }
    return true;
  }

  /// Whether the kernel's "in_place" attribute lets output |out| be written over input |in|
  /// (the same memory; docs/vm.md, "Donated inputs").
  bool InPlacePair(int32_t in, int32_t out) const {
    for (const kf::Attr& attr : kernel_.attrs) {
      if (attr.name != "in_place") continue;
      const std::vector<kf::AttrValue>& flat = attr.value.array_value;
      for (size_t k = 0; k + 1 < flat.size(); k += 2) {
        if (flat[k].int_value == in && flat[k + 1].int_value == out) return true;
      }
    }
    return false;
  }

  /// "buffer W (parameter 1)": how messages name buffer parameter |param|.
  std::string BufferWhat(int32_t param) const {
    return "buffer " + kernel_.buffers[kernel_.params[param].index].name + " (parameter " + std::to_string(param) +
           ")";
  }

  /// Parameters whose buffers the kernel stores to.
  const std::vector<int32_t>& written_params() const { return written_params_; }

 private:
  struct ParamPlan {
    int32_t param = 0;
    bool is_scalar = false;
    int32_t var_or_buffer = 0;  // the scalar's variable or the buffer
    // Buffers: per dim, the bare variable it binds (-1: a constant or expression, checked by
    // derived_).
    std::vector<int32_t> dim_vars;
    std::vector<int32_t> stride_vars;  // empty: no declared strides
  };
  struct DerivedCheck {
    int32_t param = 0;
    int32_t buffer = 0;
    int32_t dim = 0;
    bool stride = false;
    int32_t expr = 0;
  };
  struct Span {
    uintptr_t begin = 0, end = 0;
    bool empty() const { return begin == end; }
  };

  static bool Fail(std::string& error, std::string message) {
    error = std::move(message);
    return false;
  }

  static bool IsScalarTensor(const DLTensor& t) {
    bool is_int64 = t.dtype.code == kDLInt && t.dtype.bits == 64 && t.dtype.lanes == 1;
    bool is_float64 = t.dtype.code == kDLFloat && t.dtype.bits == 64 && t.dtype.lanes == 1;
    return t.ndim == 0 && (is_int64 || is_float64) && t.data != nullptr;
  }

  void Prepare() {
    std::vector<bool> is_bound(kernel_.vars.size(), false);
    for (size_t i = 0; i < kernel_.params.size(); ++i) {
      const kf::Param& param = kernel_.params[i];
      ParamPlan p;
      p.param = static_cast<int32_t>(i);
      p.is_scalar = param.kind == kf::ParamKind::kScalar;
      p.var_or_buffer = param.index;
      if (p.is_scalar) {
        is_bound[param.index] = true;
        params_.push_back(std::move(p));
        continue;
      }
      const kf::Buffer& buffer = kernel_.buffers[param.index];
      for (bool strides : {false, true}) {
        const std::vector<int32_t>& exprs = strides ? buffer.strides : buffer.shape;
        std::vector<int32_t>& vars = strides ? p.stride_vars : p.dim_vars;
        for (size_t d = 0; d < exprs.size(); ++d) {
          const kf::Expr& e = kernel_.exprs[exprs[d]];
          vars.push_back(e.kind == kf::ExprKind::kVar ? e.var : -1);
          if (e.kind == kf::ExprKind::kVar) {
            is_bound[e.var] = true;
          } else {
            derived_.push_back({p.param, param.index, static_cast<int32_t>(d), strides, exprs[d]});
            if (error_.empty() && !IsIntegerOnly(exprs[d])) {
              error_ = "buffer " + buffer.name + " (parameter " + std::to_string(i) + ") " +
                       (strides ? "stride " : "dim ") + std::to_string(d) +
                       " is an expression with floats, which argument binding does not evaluate";
            }
          }
        }
      }
      params_.push_back(std::move(p));
    }
    for (size_t v = 0; v < is_bound.size(); ++v) {
      if (is_bound[v]) bound_vars_.push_back(static_cast<int32_t>(v));
    }
    std::vector<bool> written(kernel_.buffers.size(), false);
    for (const kf::Stmt& s : kernel_.stmts) {
      if (s.kind == kf::StmtKind::kStore) written[s.buffer] = true;
    }
    for (const ParamPlan& p : params_) {
      if (!p.is_scalar && written[p.var_or_buffer]) written_params_.push_back(p.param);
    }
  }

  bool IsIntegerOnly(int32_t expr) const {
    const kf::Expr& e = kernel_.exprs[expr];
    if (kf::IsFloat(e.dtype) || e.kind == kf::ExprKind::kFloatImm || e.kind == kf::ExprKind::kLoad) return false;
    for (int32_t o : e.operands) {
      if (!IsIntegerOnly(o)) return false;
    }
    return true;
  }

  bool BindScalar(const ParamPlan& p, const DLTensor& t, BoundCall& call, std::string& error) const {
    const kf::Var& var = kernel_.vars[p.var_or_buffer];
    const auto* data = static_cast<const uint8_t*>(t.data) + t.byte_offset;
    auto what = [&] {
      return "parameter " + std::to_string(p.param) + " (" + var.name + ": " + kf::DTypeName(var.dtype) + ")";
    };
    if (t.dtype.code == kDLFloat) {
      double value;
      std::memcpy(&value, data, sizeof value);
      if (!kf::IsFloat(var.dtype)) return Fail(error, what() + ": expected an integer but got a float");
      call.float_vars[p.var_or_buffer] = value;  // the kernel rounds it to its dtype
    } else {
      int64_t value;
      std::memcpy(&value, data, sizeof value);
      if (kf::IsInt(var.dtype) && !FitsInt(var.dtype, value)) {
        return Fail(error, what() + ": " + std::to_string(value) + " does not fit");
      }
      if (kf::IsFloat(var.dtype)) {
        // An integer for a float parameter: rounded once to float (float64: to double), as
        // the reference converts integers to floats.
        call.float_vars[p.var_or_buffer] =
            var.dtype == kf::DType::kFloat64 ? static_cast<double>(value) : static_cast<double>(static_cast<float>(value));
      } else {
        call.int_vars[p.var_or_buffer] = WrapInt(var.dtype, static_cast<uint64_t>(value));
      }
    }
    call.origins[p.var_or_buffer] = {Origin::Kind::kScalar, p.param, -1};
    return true;
  }

  bool BindBuffer(const ParamPlan& p, const DLTensor& t, BoundCall& call, std::string& error) const {
    const kf::Buffer& buffer = kernel_.buffers[p.var_or_buffer];
    auto what = [&] { return BufferWhat(p.param); };
    if (t.device.device_type != kDLCPU) {
      return Fail(error, what() + ": expected a CPU tensor but got device type " + std::to_string(t.device.device_type));
    }
    if (!DataTypeMatches(buffer.dtype, t.dtype)) {
      return Fail(error, what() + ": expected " + kf::DTypeName(buffer.dtype) + " but got a tensor of " +
                             DataTypeName(t.dtype));
    }
    const int ndim = static_cast<int>(p.dim_vars.size());
    if (t.ndim != ndim || (ndim > 0 && t.shape == nullptr)) {
      return Fail(error, what() + ": expected " + std::to_string(ndim) + " dims but got a tensor with " +
                             std::to_string(t.ndim) +
                             (t.ndim > 0 && t.shape ? " " + TupleText(t.shape, t.ndim) : std::string()));
    }
    bool empty = false;
    for (int d = 0; d < ndim; ++d) {
      if (t.shape[d] < 0) return Fail(error, what() + ": the tensor's shape " + TupleText(t.shape, ndim) + " is negative");
      empty = empty || t.shape[d] == 0;
    }
    for (int d = 0; d < ndim; ++d) {
      if (!BindVar(p.dim_vars[d], t.shape[d], {Origin::Kind::kDim, p.param, d}, call, error)) return false;
    }
    if (!p.stride_vars.empty()) {
      for (int d = 0; d < ndim; ++d) {
        if (!BindVar(p.stride_vars[d], StrideOf(t, d), {Origin::Kind::kStride, p.param, d}, call, error)) return false;
      }
    } else if (t.strides) {
      // No strides declared: the kernel assumes compact row-major memory (dims of 1 may have
      // any stride, as torch gives them).
      int64_t expected = 1;
      for (int d = ndim; d-- > 0;) {
        if (t.shape[d] != 1 && t.strides[d] != expected) {
          return Fail(error, what() + ": declares no strides, so the tensor must be compact row-major, but its strides are " +
                                 TupleText(t.strides, ndim) + " for shape " + TupleText(t.shape, ndim));
        }
        expected *= t.shape[d];
      }
    }
    if (t.data == nullptr && !empty) return Fail(error, what() + ": the tensor has no data");
    call.buffers[p.var_or_buffer] = static_cast<uint8_t*>(t.data) + t.byte_offset;
    call.tensors[p.param] = &t;
    return true;
  }

  // A bare variable among the dims (or strides): bound here if first seen, else checked.
  bool BindVar(int32_t var, int64_t actual, Origin origin, BoundCall& call, std::string& error) const {
    if (var < 0) return true;  // a constant or an expression: checked by CheckDerived
    const kf::Var& v = kernel_.vars[var];
    if (call.origins[var].kind == Origin::Kind::kUnbound) {
      if (!FitsInt(v.dtype, actual)) {
        return Fail(error, OriginText(origin) + " is " + std::to_string(actual) + ", which does not fit " + v.name +
                               " (" + kf::DTypeName(v.dtype) + ")");
      }
      call.int_vars[var] = actual;
      call.origins[var] = origin;
      return true;
    }
    int64_t bound = call.int_vars[var];
    if (bound == actual) return true;
    return Fail(error, OriginText(origin) + " is " + std::to_string(actual) + ", but " + v.name + " = " +
                           std::to_string(bound) + " from " + OriginText(call.origins[var]));
  }

  std::string OriginText(const Origin& o) const {
    switch (o.kind) {
      case Origin::Kind::kScalar: return "the scalar parameter " + kernel_.vars[kernel_.params[o.param].index].name;
      case Origin::Kind::kDim: return BufferWhat(o.param) + " dim " + std::to_string(o.dim);
      case Origin::Kind::kStride: return BufferWhat(o.param) + " stride " + std::to_string(o.dim);
      case Origin::Kind::kUnbound: break;
    }
    return "?";
  }

  bool CheckDerived(const DerivedCheck& c, const BoundCall& call, std::string& error) const {
    const DLTensor& t = *call.tensors[c.param];
    int64_t actual = c.stride ? StrideOf(t, c.dim) : t.shape[c.dim];
    int64_t expected = 0;
    std::string eval_error;
    if (!EvalInt(c.expr, call, expected, eval_error)) return Fail(error, eval_error);
    if (expected == actual) return true;
    const bool constant = kernel_.exprs[c.expr].kind == kf::ExprKind::kIntImm;
    return Fail(error, BufferWhat(c.param) + (c.stride ? " stride " : " dim ") + std::to_string(c.dim) + " is " +
                           std::to_string(actual) + ", but the kernel expects " +
                           (constant ? std::string() : ExprText(c.expr) + " = ") + std::to_string(expected));
  }

  static int64_t StrideOf(const DLTensor& t, int dim) {
    if (t.strides) return t.strides[dim];
    int64_t stride = 1;
    for (int d = t.ndim - 1; d > dim; --d) stride *= t.shape[d];
    return stride;
  }

  static Span SpanOf(const DLTensor* t) {
    Span span;
    if (t == nullptr || t->data == nullptr) return span;
    int64_t lo = 0, hi = 0;  // element offsets reached
    for (int d = 0; d < t->ndim; ++d) {
      if (t->shape[d] == 0) return span;
      int64_t reach = (t->shape[d] - 1) * StrideOf(*t, d);
      (reach < 0 ? lo : hi) += reach;
    }
    const int64_t bytes = (t->dtype.bits * t->dtype.lanes + 7) / 8;
    uintptr_t base = reinterpret_cast<uintptr_t>(t->data) + t->byte_offset;
    span.begin = base + static_cast<uintptr_t>(lo * bytes);
    span.end = base + static_cast<uintptr_t>((hi + 1) * bytes);
    return span;
  }

  // Integer evaluation of a dim expression, with the kernel format's semantics (wrapping,
  // floordiv/floormod, division by zero is an error).
  bool EvalInt(int32_t expr, const BoundCall& call, int64_t& out, std::string& error) const {
    const kf::Expr& e = kernel_.exprs[expr];
    int64_t a = 0, b = 0, c = 0;
    switch (e.kind) {
      case kf::ExprKind::kIntImm: out = WrapInt(e.dtype, static_cast<uint64_t>(e.int_value)); return true;
      case kf::ExprKind::kVar: out = call.int_vars[e.var]; return true;
      case kf::ExprKind::kNot:
        if (!EvalInt(e.operands[0], call, a, error)) return false;
        out = a == 0;
        return true;
      case kf::ExprKind::kCast:
        if (!EvalInt(e.operands[0], call, a, error)) return false;
        out = WrapInt(e.dtype, static_cast<uint64_t>(a));
        return true;
      case kf::ExprKind::kSelect:
        if (!EvalInt(e.operands[0], call, c, error)) return false;
        return EvalInt(e.operands[c != 0 ? 1 : 2], call, out, error);
      case kf::ExprKind::kIntrinsic:
        if (!EvalInt(e.operands[0], call, a, error)) return false;
        if (e.intrinsic == kf::Intrinsic::kNeg || (e.intrinsic == kf::Intrinsic::kAbs && a < 0)) {
          out = WrapInt(e.dtype, uint64_t{0} - static_cast<uint64_t>(a));
        } else {
          out = e.intrinsic == kf::Intrinsic::kIsNan ? 0 : a;
        }
        return true;
      case kf::ExprKind::kBinary: {
        if (!EvalInt(e.operands[0], call, a, error)) return false;
        if (e.binary_op == kf::BinaryOp::kAnd && a == 0) return out = 0, true;
        if (e.binary_op == kf::BinaryOp::kOr && a != 0) return out = 1, true;
        if (!EvalInt(e.operands[1], call, b, error)) return false;
        const kf::DType t = kernel_.exprs[e.operands[0]].dtype;
        return ApplyBinary(e.binary_op, t, a, b, out, error);
      }
      case kf::ExprKind::kFloatImm:
      case kf::ExprKind::kLoad: break;  // excluded by Prepare
    }
    return Fail(error, "cannot evaluate " + ExprText(expr));
  }

  static bool ApplyBinary(kf::BinaryOp op, kf::DType t, int64_t x, int64_t y, int64_t& out, std::string& error) {
    using kf::BinaryOp;
    const uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
    switch (op) {
      case BinaryOp::kAdd: out = WrapInt(t, ux + uy); return true;
      case BinaryOp::kSub: out = WrapInt(t, ux - uy); return true;
      case BinaryOp::kMul: out = WrapInt(t, ux * uy); return true;
      case BinaryOp::kDiv:
      case BinaryOp::kFloorDiv:
      case BinaryOp::kFloorMod: {
        if (y == 0) return Fail(error, std::string("integer division by zero (") + kf::BinaryOpName(op) + ")");
        if (y == -1) {
          out = op == BinaryOp::kFloorMod ? 0 : WrapInt(t, uint64_t{0} - ux);
          return true;
        }
        int64_t q = x / y, r = x % y;
        if (op == BinaryOp::kDiv) out = WrapInt(t, static_cast<uint64_t>(q));
        if (op == BinaryOp::kFloorDiv) out = WrapInt(t, static_cast<uint64_t>(r != 0 && ((x < 0) != (y < 0)) ? q - 1 : q));
        if (op == BinaryOp::kFloorMod) out = r != 0 && ((r < 0) != (y < 0)) ? r + y : r;
        return true;
      }
      case BinaryOp::kMin: out = x < y ? x : y; return true;
      case BinaryOp::kMax: out = x > y ? x : y; return true;
      case BinaryOp::kEq: out = x == y; return true;
      case BinaryOp::kNe: out = x != y; return true;
      case BinaryOp::kLt: out = x < y; return true;
      case BinaryOp::kLe: out = x <= y; return true;
      case BinaryOp::kGt: out = x > y; return true;
      case BinaryOp::kGe: out = x >= y; return true;
      case BinaryOp::kAnd: out = x != 0 && y != 0; return true;
      case BinaryOp::kOr: out = x != 0 || y != 0; return true;
    }
    return Fail(error, "unknown operator");
  }

  /// Readable text of an expression (as the reference interpreter writes it).
  std::string ExprText(int32_t expr, int depth = 0) const {
    const kf::Expr& e = kernel_.exprs[expr];
    if (depth > 8) return "...";
    auto operand = [&](size_t i) { return ExprText(e.operands[i], depth + 1); };
    switch (e.kind) {
      case kf::ExprKind::kIntImm: return std::to_string(e.int_value);
      case kf::ExprKind::kFloatImm: {
        std::ostringstream os;
        os << e.float_value;
        return os.str();
      }
      case kf::ExprKind::kVar: return kernel_.vars[e.var].name;
      case kf::ExprKind::kBinary: {
        std::string op = kf::BinaryOpName(e.binary_op);
        if (op.size() > 2) return op + "(" + operand(0) + ", " + operand(1) + ")";
        return "(" + operand(0) + " " + op + " " + operand(1) + ")";
      }
      case kf::ExprKind::kNot: return "!" + operand(0);
      case kf::ExprKind::kSelect: return "select(" + operand(0) + ", " + operand(1) + ", " + operand(2) + ")";
      case kf::ExprKind::kCast: return std::string(kf::DTypeName(e.dtype)) + "(" + operand(0) + ")";
      case kf::ExprKind::kIntrinsic: {
        std::string text = std::string(kf::IntrinsicName(e.intrinsic)) + "(" + operand(0);
        if (e.operands.size() > 1) text += ", " + operand(1);
        return text + ")";
      }
      case kf::ExprKind::kLoad: {
        std::string text = kernel_.buffers[e.buffer].name + "[";
        for (size_t i = 0; i < e.operands.size(); ++i) text += (i ? ", " : "") + operand(i);
        return text + "]";
      }
    }
    return "?";
  }

  kf::Kernel kernel_;
  std::string error_;
  std::vector<ParamPlan> params_;
  std::vector<int32_t> bound_vars_;  // variables bound by parameters, reset at every call
  std::vector<DerivedCheck> derived_;  // per parameter, shape before strides, as the reference checks
  std::vector<int32_t> written_params_;
};

}  // namespace rxt::plugin_support::kernel_binding

#endif  // RXT_PLUGIN_SUPPORT_KERNEL_BINDING_H_
