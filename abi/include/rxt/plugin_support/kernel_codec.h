// kernel_codec.h (plugin SDK): kernels in the portable kernel format to and from bytes.
// DecodeKernel reads and checks (kernel_validator.h) every byte and every invariant, so malformed
// input gives an error string, never a crash or an out-of-bounds read; SerializeKernel writes.
//
//   namespace kf = rxt::plugin_support::kernel_format;
//   kf::DecodeResult r = kf::DecodeKernel(bytes, size);
//   if (!r.ok()) return Fail(r.error);   // "invalid kernel 'linear0': statement 3 (for) reads ..."
#ifndef RXT_PLUGIN_SUPPORT_KERNEL_CODEC_H_
#define RXT_PLUGIN_SUPPORT_KERNEL_CODEC_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "rxt/plugin_support/kernel_bytes.h"
#include "rxt/plugin_support/kernel_format.h"
#include "rxt/plugin_support/kernel_validator.h"

namespace rxt::plugin_support::kernel_format {
namespace detail {

// ---- Writing.

inline void WriteAttrValue(ByteWriter& w, const AttrValue& v) {
  w.U8(static_cast<uint8_t>(v.kind));
  switch (v.kind) {
    case AttrKind::kNone: break;
    case AttrKind::kBool: w.U8(v.bool_value ? 1 : 0); break;
    case AttrKind::kInt: w.VarInt(v.int_value); break;
    case AttrKind::kFloat: w.F64(v.float_value); break;
    case AttrKind::kString: w.String(v.string_value); break;
    case AttrKind::kDType: w.U8(static_cast<uint8_t>(v.dtype_value)); break;
    case AttrKind::kTensor:
      w.U8(static_cast<uint8_t>(v.tensor_value.dtype));
      w.VarUint(v.tensor_value.shape.size());
      for (int64_t d : v.tensor_value.shape) w.VarInt(d);
      w.VarUint(v.tensor_value.bytes.size());
      for (uint8_t b : v.tensor_value.bytes) w.U8(b);
      break;
    case AttrKind::kArray:
      w.VarUint(v.array_value.size());
      for (const AttrValue& e : v.array_value) WriteAttrValue(w, e);
      break;
  }
}

inline void WriteExpr(ByteWriter& w, const Expr& e) {
  w.U8(static_cast<uint8_t>(e.kind));
  w.U8(static_cast<uint8_t>(e.dtype));
  switch (e.kind) {
    case ExprKind::kIntImm: w.VarInt(e.int_value); break;
    case ExprKind::kFloatImm: w.F64(e.float_value); break;
    case ExprKind::kVar: w.Index(e.var); break;
    case ExprKind::kBinary:
      w.U8(static_cast<uint8_t>(e.binary_op));
      w.Index(e.operands.size() > 0 ? e.operands[0] : kNone);
      w.Index(e.operands.size() > 1 ? e.operands[1] : kNone);
      break;
    case ExprKind::kNot:
    case ExprKind::kCast: w.Index(e.operands.empty() ? kNone : e.operands[0]); break;
    case ExprKind::kSelect:
      for (size_t i = 0; i < 3; ++i) w.Index(i < e.operands.size() ? e.operands[i] : kNone);
      break;
    case ExprKind::kIntrinsic:
      w.U8(static_cast<uint8_t>(e.intrinsic));
      w.Indices(e.operands);
      break;
    case ExprKind::kLoad:
      w.Index(e.buffer);
      w.Indices(e.operands);
      break;
  }
}

inline void WriteStmt(ByteWriter& w, const Stmt& s) {
  w.U8(static_cast<uint8_t>(s.kind));
  switch (s.kind) {
    case StmtKind::kSeq: w.Indices(s.stmts); break;
    case StmtKind::kFor:
      w.Index(s.var);
      w.Index(s.extent);
      w.U8(static_cast<uint8_t>(s.loop_kind));
      w.Index(s.body);
      break;
    case StmtKind::kStore:
      w.Index(s.buffer);
      w.Indices(s.indices);
      w.Index(s.value);
      break;
    case StmtKind::kIf:
      w.Index(s.cond);
      w.Index(s.then_case);
      w.OptionalIndex(s.else_case);
      break;
    case StmtKind::kAllocate:
      w.Index(s.buffer);
      w.Index(s.body);
      break;
    case StmtKind::kBlock:
      w.String(s.name);
      w.VarUint(s.iter_vars.size());
      for (const IterVar& iv : s.iter_vars) {
        w.Index(iv.var);
        w.Index(iv.value);
        w.U8(static_cast<uint8_t>(iv.kind));
      }
      w.OptionalIndex(s.init);
      w.Index(s.body);
      break;
  }
}

// ---- Reading (syntax only: kinds and dtypes in range, counts within the data).

inline bool ReadDType(ByteReader& r, DType* t, bool allow_unknown) {
  uint8_t b = 0;
  if (!r.U8(&b)) return false;
  if (b >= kNumDTypes || (!allow_unknown && b == 0)) return r.Fail("invalid dtype " + std::to_string(b));
  *t = static_cast<DType>(b);
  return true;
}

inline bool ReadAttrValue(ByteReader& r, AttrValue* v, int depth) {
  if (depth > kMaxAttrDepth) return r.Fail("attribute arrays nest too deeply");
  if (!r.Enum8(&v->kind, kNumAttrKinds, "attribute kind")) return false;
  switch (v->kind) {
    case AttrKind::kNone: return true;
    case AttrKind::kBool: {
      uint8_t b = 0;
      if (!r.U8(&b)) return false;
      if (b > 1) return r.Fail("invalid bool " + std::to_string(b));
      v->bool_value = b == 1;
      return true;
    }
    case AttrKind::kInt: return r.VarInt(&v->int_value);
    case AttrKind::kFloat: return r.F64(&v->float_value);
    case AttrKind::kString: return r.String(&v->string_value);
    case AttrKind::kDType: return ReadDType(r, &v->dtype_value, /*allow_unknown=*/true);
    case AttrKind::kTensor: {
      TensorValue& t = v->tensor_value;
      size_t ndim = 0;
      if (!ReadDType(r, &t.dtype, false) || !r.Count(&ndim, "tensor dims")) return false;
      if (ndim > static_cast<size_t>(kMaxNdim)) {
        return r.Fail("tensor has more than " + std::to_string(kMaxNdim) + " dims");
      }
      // The element count saturates: a tensor whose count exceeds 2^56 cannot match its bytes.
      const uint64_t kLimit = uint64_t{1} << 56;
      uint64_t numel = 1;
      bool zero = false, huge = false;
      t.shape.resize(ndim);
      for (size_t i = 0; i < ndim; ++i) {
        if (!r.VarInt(&t.shape[i])) return false;
        if (t.shape[i] < 0) return r.Fail("tensor dim " + std::to_string(t.shape[i]) + " is negative");
        uint64_t d = static_cast<uint64_t>(t.shape[i]);
        if (d == 0) {
          zero = true;
        } else if (numel > kLimit / d) {
          huge = true;
        } else {
          numel *= d;
        }
      }
      if (zero) {
        numel = 0;
        huge = false;
      }
      size_t nbytes = 0;
      const uint8_t* bytes = nullptr;
      if (!r.Count(&nbytes, "tensor bytes")) return false;
      if (huge || numel * static_cast<uint64_t>(DTypeBits(t.dtype) / 8) != nbytes) {
        return r.Fail("tensor data has " + std::to_string(nbytes) + " bytes, which does not match its shape");
      }
      if (!r.Bytes(nbytes, &bytes)) return false;
      t.bytes.assign(bytes, bytes + nbytes);
      return true;
    }
    case AttrKind::kArray: {
      size_t n = 0;
      if (!r.Count(&n, "array elements")) return false;
      v->array_value.resize(n);
      for (size_t i = 0; i < n; ++i) {
        if (!ReadAttrValue(r, &v->array_value[i], depth + 1)) return false;
      }
      return true;
    }
  }
  return r.Fail("invalid attribute kind");
}

inline bool ReadExpr(ByteReader& r, Expr* e) {
  if (!r.Enum8(&e->kind, kNumExprKinds, "expression kind") || !ReadDType(r, &e->dtype, false)) return false;
  switch (e->kind) {
    case ExprKind::kIntImm: return r.VarInt(&e->int_value);
    case ExprKind::kFloatImm: return r.F64(&e->float_value);
    case ExprKind::kVar: return r.Index(&e->var);
    case ExprKind::kBinary:
      e->operands.resize(2);
      return r.Enum8(&e->binary_op, kNumBinaryOps, "binary operator") && r.Index(&e->operands[0]) &&
             r.Index(&e->operands[1]);
    case ExprKind::kNot:
    case ExprKind::kCast:
      e->operands.resize(1);
      return r.Index(&e->operands[0]);
    case ExprKind::kSelect:
      e->operands.resize(3);
      return r.Index(&e->operands[0]) && r.Index(&e->operands[1]) && r.Index(&e->operands[2]);
    case ExprKind::kIntrinsic:
      return r.Enum8(&e->intrinsic, kNumIntrinsics, "intrinsic") && r.Indices(&e->operands, "intrinsic arguments");
    case ExprKind::kLoad: return r.Index(&e->buffer) && r.Indices(&e->operands, "load indices");
  }
  return r.Fail("invalid expression kind");
}

inline bool ReadStmt(ByteReader& r, Stmt* s) {
  if (!r.Enum8(&s->kind, kNumStmtKinds, "statement kind")) return false;
  switch (s->kind) {
    case StmtKind::kSeq: return r.Indices(&s->stmts, "statements");
    case StmtKind::kFor:
      return r.Index(&s->var) && r.Index(&s->extent) && r.Enum8(&s->loop_kind, kNumLoopKinds, "loop kind") &&
             r.Index(&s->body);
    case StmtKind::kStore: return r.Index(&s->buffer) && r.Indices(&s->indices, "store indices") && r.Index(&s->value);
    case StmtKind::kIf: return r.Index(&s->cond) && r.Index(&s->then_case) && r.OptionalIndex(&s->else_case);
    case StmtKind::kAllocate: return r.Index(&s->buffer) && r.Index(&s->body);
    case StmtKind::kBlock: {
      size_t n = 0;
      if (!r.String(&s->name) || !r.Count(&n, "block iterators")) return false;
      s->iter_vars.resize(n);
      for (IterVar& iv : s->iter_vars) {
        if (!r.Index(&iv.var) || !r.Index(&iv.value) || !r.Enum8(&iv.kind, 2, "iterator kind")) return false;
      }
      return r.OptionalIndex(&s->init) && r.Index(&s->body);
    }
  }
  return r.Fail("invalid statement kind");
}

inline bool ReadKernel(ByteReader& r, Kernel* k) {
  const uint8_t* magic = nullptr;
  r.SetContext("header");
  if (!r.Bytes(4, &magic)) return false;
  if (std::memcmp(magic, kMagic, 4) != 0) return r.Fail("not a kernel: the magic number is not \"RXTK\"");
  uint32_t version = 0;
  if (!r.U32(&version)) return false;
  if (version != kFormatVersion) {
    return r.Fail("unsupported kernel format version " + std::to_string(version) + " (this reader reads version " +
                  std::to_string(kFormatVersion) + ")");
  }
  size_t n = 0;
  if (!r.String(&k->name)) return false;

  r.SetContext("variables");
  if (!r.Count(&n, "variables")) return false;
  k->vars.resize(n);
  for (size_t i = 0; i < n; ++i) {
    r.SetContext("variable " + std::to_string(i));
    if (!r.String(&k->vars[i].name) || !ReadDType(r, &k->vars[i].dtype, false)) return false;
  }

  r.SetContext("buffers");
  if (!r.Count(&n, "buffers")) return false;
  k->buffers.resize(n);
  for (size_t i = 0; i < n; ++i) {
    r.SetContext("buffer " + std::to_string(i));
    Buffer& b = k->buffers[i];
    uint8_t has_strides = 0;
    if (!r.String(&b.name) || !ReadDType(r, &b.dtype, false) || !r.Indices(&b.shape, "dims") || !r.U8(&has_strides)) {
      return false;
    }
    if (b.shape.size() > static_cast<size_t>(kMaxNdim)) {
      return r.Fail("more than " + std::to_string(kMaxNdim) + " dims");
    }
    if (has_strides > 1) return r.Fail("invalid strides flag " + std::to_string(has_strides));
    if (has_strides == 1) {
      b.strides.resize(b.shape.size());
      for (int32_t& s : b.strides) {
        if (!r.Index(&s)) return false;
      }
    }
  }

  r.SetContext("expressions");
  if (!r.Count(&n, "expressions")) return false;
  k->exprs.resize(n);
  for (size_t i = 0; i < n; ++i) {
    r.SetContext("expression " + std::to_string(i));
    if (!ReadExpr(r, &k->exprs[i])) return false;
  }

  r.SetContext("statements");
  if (!r.Count(&n, "statements")) return false;
  k->stmts.resize(n);
  for (size_t i = 0; i < n; ++i) {
    r.SetContext("statement " + std::to_string(i));
    if (!ReadStmt(r, &k->stmts[i])) return false;
  }

  r.SetContext("parameters");
  if (!r.Count(&n, "parameters")) return false;
  k->params.resize(n);
  for (size_t i = 0; i < n; ++i) {
    r.SetContext("parameter " + std::to_string(i));
    if (!r.Enum8(&k->params[i].kind, 2, "parameter kind") || !r.Index(&k->params[i].index)) return false;
  }

  r.SetContext("attributes");
  if (!r.Count(&n, "attributes")) return false;
  k->attrs.resize(n);
  for (size_t i = 0; i < n; ++i) {
    r.SetContext("attribute " + std::to_string(i));
    if (!r.String(&k->attrs[i].name) || !ReadAttrValue(r, &k->attrs[i].value, 0)) return false;
  }
  r.SetContext("end");
  if (r.remaining() != 0) return r.Fail(std::to_string(r.remaining()) + " unexpected bytes after the kernel");
  return true;
}

}  // namespace detail

/// Reads and validates one kernel. Never throws for malformed input (only std::bad_alloc).
inline DecodeResult DecodeKernel(const uint8_t* data, size_t size) {
  DecodeResult result;
  detail::ByteReader reader(data, size);
  if (!detail::ReadKernel(reader, &result.kernel)) {
    result.error = "malformed kernel: " + reader.error();
    result.kernel = Kernel();
    return result;
  }
  std::string invalid = ValidateKernel(result.kernel);
  if (!invalid.empty()) {
    std::string name = result.kernel.name.empty() ? "" : " '" + result.kernel.name + "'";
    result.error = "invalid kernel" + name + ": " + invalid;
    result.kernel = Kernel();
  }
  return result;
}

/// Writes |k| as bytes, as it is: validate first (ValidateKernel) unless testing a reader with
/// deliberately bad input.
inline std::vector<uint8_t> SerializeKernel(const Kernel& k) {
  detail::ByteWriter w;
  for (char c : kMagic) w.U8(static_cast<uint8_t>(c));
  w.U32(kFormatVersion);
  w.String(k.name);
  w.VarUint(k.vars.size());
  for (const Var& v : k.vars) {
    w.String(v.name);
    w.U8(static_cast<uint8_t>(v.dtype));
  }
  w.VarUint(k.buffers.size());
  for (const Buffer& b : k.buffers) {
    w.String(b.name);
    w.U8(static_cast<uint8_t>(b.dtype));
    w.Indices(b.shape);
    w.U8(b.strides.empty() ? 0 : 1);
    if (!b.strides.empty()) {
      // One stride per dim (a miscounted list, in a deliberately bad kernel, pads with kNone).
      for (size_t d = 0; d < b.shape.size(); ++d) w.Index(d < b.strides.size() ? b.strides[d] : kNone);
    }
  }
  w.VarUint(k.exprs.size());
  for (const Expr& e : k.exprs) detail::WriteExpr(w, e);
  w.VarUint(k.stmts.size());
  for (const Stmt& s : k.stmts) detail::WriteStmt(w, s);
  w.VarUint(k.params.size());
  for (const Param& p : k.params) {
    w.U8(static_cast<uint8_t>(p.kind));
    w.Index(p.index);
  }
  w.VarUint(k.attrs.size());
  for (const Attr& a : k.attrs) {
    w.String(a.name);
    detail::WriteAttrValue(w, a.value);
  }
  return w.Take();
}

}  // namespace rxt::plugin_support::kernel_format

#endif  // RXT_PLUGIN_SUPPORT_KERNEL_CODEC_H_
