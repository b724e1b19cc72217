// Kernel IR <-> the portable kernel format's plain structs (and bytes).
#include "rxt/ir/kernel_encoding.h"

#include <unordered_map>

namespace rxt {

namespace kf = plugin_support::kernel_format;

kf::DType ToPortableDType(DType dtype) {
  switch (dtype) {
    case DType::kUnknown: return kf::DType::kUnknown;
    case DType::kFloat16: return kf::DType::kFloat16;
    case DType::kBFloat16: return kf::DType::kBFloat16;
    case DType::kFloat32: return kf::DType::kFloat32;
    case DType::kFloat64: return kf::DType::kFloat64;
    case DType::kInt8: return kf::DType::kInt8;
    case DType::kInt16: return kf::DType::kInt16;
    case DType::kInt32: return kf::DType::kInt32;
    case DType::kInt64: return kf::DType::kInt64;
    case DType::kUInt8: return kf::DType::kUInt8;
    case DType::kBool: return kf::DType::kBool;
  }
  Throw(ErrorCode::kInvalidArgument, "invalid dtype ", static_cast<int>(dtype));
}

DType FromPortableDType(kf::DType dtype) {
  switch (dtype) {
    case kf::DType::kUnknown: return DType::kUnknown;
    case kf::DType::kFloat16: return DType::kFloat16;
    case kf::DType::kBFloat16: return DType::kBFloat16;
    case kf::DType::kFloat32: return DType::kFloat32;
    case kf::DType::kFloat64: return DType::kFloat64;
    case kf::DType::kInt8: return DType::kInt8;
    case kf::DType::kInt16: return DType::kInt16;
    case kf::DType::kInt32: return DType::kInt32;
    case kf::DType::kInt64: return DType::kInt64;
    case kf::DType::kUInt8: return DType::kUInt8;
    case kf::DType::kBool: return DType::kBool;
  }
  Throw(ErrorCode::kInvalidArgument, "invalid kernel format dtype ", static_cast<int>(dtype));
}

namespace {

// The enums of the IR and of the format list the same items in the same order; these casts
// are checked here once.
static_assert(static_cast<int>(PrimKind::kLoad) == static_cast<int>(kf::ExprKind::kLoad));
static_assert(static_cast<int>(BinaryOp::kOr) == static_cast<int>(kf::BinaryOp::kOr));
static_assert(static_cast<int>(StmtKind::kBlock) == static_cast<int>(kf::StmtKind::kBlock));
static_assert(static_cast<int>(LoopKind::kUnrolled) == static_cast<int>(kf::LoopKind::kUnrolled));
static_assert(static_cast<int>(IterKind::kReduce) == static_cast<int>(kf::IterKind::kReduce));

// ---- IR -> format. Tables are filled in the order things are first met; the IR's sharing
// (one node used in several places) becomes one index used in several places.
class PortableWriter {
 public:
  explicit PortableWriter(std::string name) { out_.name = std::move(name); }

  kf::Kernel Write(const KernelFunctionNode& kernel) {
    for (const KernelParam& param : kernel.params) {
      if (param.buffer) {
        out_.params.push_back({kf::ParamKind::kBuffer, BufferIndex(param.buffer)});
      } else if (param.scalar) {
        out_.params.push_back({kf::ParamKind::kScalar, VarIndex(param.scalar)});
      } else {
        Fail("a parameter is neither a buffer nor a scalar");
      }
    }
    if (!kernel.body) Fail("the kernel has no body");
    StmtIndex(kernel.body);  // the body ends up last
    for (const Attrs::Entry& entry : kernel.attrs.entries()) {
      out_.attrs.push_back({entry.first, Attr(entry.first, entry.second)});
    }
    return std::move(out_);
  }

 private:
  template <typename... Args>
  [[noreturn]] void Fail(const Args&... args) {
    Throw(ErrorCode::kInvalidArgument, "kernel '", out_.name, "' cannot be encoded: ", args...);
  }

  int32_t NextIndex(size_t size) {
    if (size >= 0x7fffffff) Fail("too many nodes");
    return static_cast<int32_t>(size);
  }

  int32_t VarIndex(const PrimVar& var) {
    auto [it, added] = vars_.try_emplace(var.get(), 0);
    if (added) {
      it->second = NextIndex(out_.vars.size());
      out_.vars.push_back({var->name, DataDType(var->dtype, "variable " + var->name)});
    }
    return it->second;
  }

  int32_t BufferIndex(const Buffer& buffer) {
    if (!buffer) Fail("a load, store or allocation has no buffer");
    auto [it, added] = buffers_.try_emplace(buffer.get(), 0);
    if (!added) return it->second;
    int32_t index = it->second = NextIndex(out_.buffers.size());
    out_.buffers.push_back({buffer->name, DataDType(buffer->dtype, "buffer " + buffer->name), {}, {}});
    // Expressions are added while out_.buffers may grow: collect first, store after.
    std::vector<int32_t> shape = ExprIndices(buffer->shape), strides = ExprIndices(buffer->strides);
    out_.buffers[index].shape = std::move(shape);
    out_.buffers[index].strides = std::move(strides);
    return index;
  }

  std::vector<int32_t> ExprIndices(const std::vector<PrimExpr>& exprs) {
    std::vector<int32_t> indices;
    indices.reserve(exprs.size());
    for (const PrimExpr& e : exprs) indices.push_back(ExprIndex(e));
    return indices;
  }

  // Operands first, so that they precede their user.
  int32_t ExprIndex(const PrimExpr& e) {
    if (!e) Fail("an expression is missing");
    if (auto it = exprs_.find(e.get()); it != exprs_.end()) return it->second;
    kf::Expr node;
    node.kind = static_cast<kf::ExprKind>(e->kind);
    node.dtype = DataDType(e->dtype, "an expression");
    switch (e->kind) {
      case PrimKind::kIntImm: node.int_value = e->As<IntImmNode>()->value; break;
      case PrimKind::kFloatImm: node.float_value = e->As<FloatImmNode>()->value; break;
      case PrimKind::kVar: node.var = VarIndex(std::static_pointer_cast<const PrimVarNode>(e)); break;
      case PrimKind::kBinary: {
        const auto* b = e->As<BinaryNode>();
        node.binary_op = static_cast<kf::BinaryOp>(b->op);
        node.operands = {ExprIndex(b->a), ExprIndex(b->b)};
        break;
      }
      case PrimKind::kNot: node.operands = {ExprIndex(e->As<NotNode>()->value)}; break;
      case PrimKind::kSelect: {
        const auto* s = e->As<SelectNode>();
        node.operands = {ExprIndex(s->cond), ExprIndex(s->if_true), ExprIndex(s->if_false)};
        break;
      }
      case PrimKind::kCast: node.operands = {ExprIndex(e->As<CastNode>()->value)}; break;
      case PrimKind::kIntrinsic: {
        const auto* call = e->As<IntrinsicNode>();
        if (!kf::FindIntrinsic(call->name, &node.intrinsic)) Fail("unknown intrinsic '", call->name, "'");
        node.operands = ExprIndices(call->args);
        break;
      }
      case PrimKind::kLoad: {
        const auto* load = e->As<LoadNode>();
        node.buffer = BufferIndex(load->buffer);
        node.operands = ExprIndices(load->indices);
        break;
      }
    }
    int32_t index = NextIndex(out_.exprs.size());
    out_.exprs.push_back(std::move(node));
    exprs_.emplace(e.get(), index);
    return index;
  }

  int32_t OptionalStmtIndex(const Stmt& s) { return s ? StmtIndex(s) : kf::kNone; }

  // Children first, so that they precede their parent. Statements are not shared: the format's
  // statements form a tree.
  int32_t StmtIndex(const Stmt& s) {
    if (!s) Fail("a statement is missing");
    kf::Stmt node;
    node.kind = static_cast<kf::StmtKind>(s->kind);
    switch (s->kind) {
      case StmtKind::kSeq:
        for (const Stmt& child : s->As<SeqStmtNode>()->stmts) node.stmts.push_back(StmtIndex(child));
        break;
      case StmtKind::kFor: {
        const auto* loop = s->As<ForNode>();
        node.var = VarIndex(loop->var);
        node.extent = ExprIndex(loop->extent);
        node.loop_kind = static_cast<kf::LoopKind>(loop->loop_kind);
        node.body = StmtIndex(loop->body);
        break;
      }
      case StmtKind::kStore: {
        const auto* store = s->As<StoreNode>();
        node.buffer = BufferIndex(store->buffer);
        node.indices = ExprIndices(store->indices);
        node.value = ExprIndex(store->value);
        break;
      }
      case StmtKind::kIf: {
        const auto* branch = s->As<IfStmtNode>();
        node.cond = ExprIndex(branch->cond);
        node.then_case = StmtIndex(branch->then_case);
        node.else_case = OptionalStmtIndex(branch->else_case);
        break;
      }
      case StmtKind::kAllocate: {
        const auto* alloc = s->As<AllocateNode>();
        node.buffer = BufferIndex(alloc->buffer);
        node.body = StmtIndex(alloc->body);
        break;
      }
      case StmtKind::kBlock: {
        const auto* block = s->As<BlockNode>();
        node.name = block->name;
        for (const IterVar& iter : block->iter_vars) {
          if (!iter.var) Fail("block ", block->name, " has an iterator without a variable");
          int32_t value = ExprIndex(iter.value);
          node.iter_vars.push_back({VarIndex(iter.var), value, static_cast<kf::IterKind>(iter.kind)});
        }
        node.init = OptionalStmtIndex(block->init);
        node.body = StmtIndex(block->body);
        break;
      }
    }
    int32_t index = NextIndex(out_.stmts.size());
    out_.stmts.push_back(std::move(node));
    return index;
  }

  kf::AttrValue Attr(const std::string& name, const AttrValue& value) {
    kf::AttrValue out;
    if (value.is<bool>()) {
      out.kind = kf::AttrKind::kBool;
      out.bool_value = value.get<bool>();
    } else if (value.is<int64_t>()) {
      out.kind = kf::AttrKind::kInt;
      out.int_value = value.get<int64_t>();
    } else if (value.is<double>()) {
      out.kind = kf::AttrKind::kFloat;
      out.float_value = value.get<double>();
    } else if (value.is<std::string>()) {
      out.kind = kf::AttrKind::kString;
      out.string_value = value.get<std::string>();
    } else if (value.is<DType>()) {
      out.kind = kf::AttrKind::kDType;
      out.dtype_value = ToPortableDType(value.get<DType>());
    } else if (value.is<Tensor>()) {
      const Tensor& t = value.get<Tensor>();
      if (!t.defined()) Fail("attribute ", name, " holds an undefined tensor");
      out.kind = kf::AttrKind::kTensor;
      out.tensor_value.dtype = DataDType(t.dtype(), "attribute " + name);
      out.tensor_value.shape = t.shape();
      const auto* bytes = static_cast<const uint8_t*>(t.data());
      out.tensor_value.bytes.assign(bytes, bytes + t.nbytes());
    } else if (value.is<AttrArray>()) {
      out.kind = kf::AttrKind::kArray;
      for (const AttrValue& element : value.get<AttrArray>()) out.array_value.push_back(Attr(name, element));
    }
    return out;  // kNone for monostate
  }

  kf::DType DataDType(DType dtype, const std::string& what) {
    if (dtype == DType::kUnknown) Fail(what, " has an unknown dtype");
    return ToPortableDType(dtype);
  }

  kf::Kernel out_;
  std::unordered_map<const PrimVarNode*, int32_t> vars_;
  std::unordered_map<const BufferNode*, int32_t> buffers_;
  std::unordered_map<const PrimExprNode*, int32_t> exprs_;
};

// ---- Format -> IR. Nodes are built directly (not with the folding Make* helpers) so that the
// result has exactly the encoded structure. Each table entry is built once, on first use.
class IRReader {
 public:
  explicit IRReader(const kf::Kernel& k)
      : k_(k), vars_(k.vars.size()), buffers_(k.buffers.size()), exprs_(k.exprs.size()) {}

  KernelFunction Read() {
    std::vector<KernelParam> params;
    for (const kf::Param& p : k_.params) {
      if (p.kind == kf::ParamKind::kBuffer) {
        params.push_back({BufferAt(p.index), nullptr});
      } else {
        params.push_back({nullptr, VarAt(p.index)});
      }
    }
    Stmt body = StmtAt(k_.body());
    Attrs attrs;
    for (const kf::Attr& a : k_.attrs) attrs.Set(a.name, Attr(a.value));
    return MakeKernelFunction(std::move(params), std::move(body), std::move(attrs));
  }

 private:
  PrimVar VarAt(int32_t i) {
    if (!vars_[i]) vars_[i] = MakePrimVar(k_.vars[i].name, FromPortableDType(k_.vars[i].dtype));
    return vars_[i];
  }

  Buffer BufferAt(int32_t i) {
    if (!buffers_[i]) {
      const kf::Buffer& b = k_.buffers[i];
      buffers_[i] =
          std::make_shared<BufferNode>(b.name, FromPortableDType(b.dtype), ExprsAt(b.shape), ExprsAt(b.strides));
    }
    return buffers_[i];
  }

  std::vector<PrimExpr> ExprsAt(const std::vector<int32_t>& indices) {
    std::vector<PrimExpr> exprs;
    exprs.reserve(indices.size());
    for (int32_t i : indices) exprs.push_back(ExprAt(i));
    return exprs;
  }

  PrimExpr ExprAt(int32_t i) {
    if (exprs_[i]) return exprs_[i];
    const kf::Expr& e = k_.exprs[i];
    DType t = FromPortableDType(e.dtype);
    PrimExpr out;
    switch (e.kind) {
      case kf::ExprKind::kIntImm: out = std::make_shared<IntImmNode>(t, e.int_value); break;
      case kf::ExprKind::kFloatImm: out = std::make_shared<FloatImmNode>(t, e.float_value); break;
      case kf::ExprKind::kVar: out = VarAt(e.var); break;
      case kf::ExprKind::kBinary:
        // As every IR builder (the parser too): constant integer arithmetic and identities fold.
        out = MakeBinary(static_cast<BinaryOp>(e.binary_op), ExprAt(e.operands[0]), ExprAt(e.operands[1]));
        break;
      case kf::ExprKind::kNot: out = std::make_shared<NotNode>(ExprAt(e.operands[0])); break;
      case kf::ExprKind::kSelect:
        out = std::make_shared<SelectNode>(ExprAt(e.operands[0]), ExprAt(e.operands[1]), ExprAt(e.operands[2]));
        break;
      case kf::ExprKind::kCast: out = std::make_shared<CastNode>(t, ExprAt(e.operands[0])); break;
      case kf::ExprKind::kIntrinsic:
        out = std::make_shared<IntrinsicNode>(t, kf::IntrinsicName(e.intrinsic), ExprsAt(e.operands));
        break;
      case kf::ExprKind::kLoad: out = std::make_shared<LoadNode>(t, BufferAt(e.buffer), ExprsAt(e.operands)); break;
    }
    exprs_[i] = out;
    return out;
  }

  Stmt StmtAt(int32_t i) {
    if (i == kf::kNone) return nullptr;
    const kf::Stmt& s = k_.stmts[i];
    switch (s.kind) {
      case kf::StmtKind::kSeq: {
        std::vector<Stmt> stmts;
        for (int32_t child : s.stmts) stmts.push_back(StmtAt(child));
        return std::make_shared<SeqStmtNode>(std::move(stmts));
      }
      case kf::StmtKind::kFor: {
        PrimExpr extent = ExprAt(s.extent);
        return std::make_shared<ForNode>(VarAt(s.var), extent, static_cast<LoopKind>(s.loop_kind), StmtAt(s.body));
      }
      case kf::StmtKind::kStore: {
        Buffer buffer = BufferAt(s.buffer);
        std::vector<PrimExpr> indices = ExprsAt(s.indices);
        return std::make_shared<StoreNode>(buffer, std::move(indices), ExprAt(s.value));
      }
      case kf::StmtKind::kIf: {
        PrimExpr cond = ExprAt(s.cond);
        Stmt then_case = StmtAt(s.then_case);
        return std::make_shared<IfStmtNode>(cond, then_case, StmtAt(s.else_case));
      }
      case kf::StmtKind::kAllocate: {
        Buffer buffer = BufferAt(s.buffer);
        return std::make_shared<AllocateNode>(buffer, StmtAt(s.body));
      }
      case kf::StmtKind::kBlock: {
        std::vector<IterVar> iter_vars;
        for (const kf::IterVar& iv : s.iter_vars) {
          PrimExpr value = ExprAt(iv.value);
          iter_vars.push_back({VarAt(iv.var), value, static_cast<IterKind>(iv.kind)});
        }
        Stmt init = StmtAt(s.init);
        return std::make_shared<BlockNode>(s.name, std::move(iter_vars), init, StmtAt(s.body));
      }
    }
    Throw(ErrorCode::kInternal, "invalid statement kind in a validated kernel");
  }

  AttrValue Attr(const kf::AttrValue& v) {
    switch (v.kind) {
      case kf::AttrKind::kNone: return AttrValue();
      case kf::AttrKind::kBool: return AttrValue(v.bool_value);
      case kf::AttrKind::kInt: return AttrValue(v.int_value);
      case kf::AttrKind::kFloat: return AttrValue(v.float_value);
      case kf::AttrKind::kString: return AttrValue(v.string_value);
      case kf::AttrKind::kDType: return AttrValue(FromPortableDType(v.dtype_value));
      case kf::AttrKind::kTensor: {
        const kf::TensorValue& t = v.tensor_value;
        return AttrValue(Tensor::FromBytes(t.shape, FromPortableDType(t.dtype), t.bytes.data(), t.bytes.size()));
      }
      case kf::AttrKind::kArray: {
        AttrArray array;
        for (const kf::AttrValue& element : v.array_value) array.push_back(Attr(element));
        return AttrValue(std::move(array));
      }
    }
    return AttrValue();
  }

  const kf::Kernel& k_;
  std::vector<PrimVar> vars_;
  std::vector<Buffer> buffers_;
  std::vector<PrimExpr> exprs_;
};

}  // namespace

kf::Kernel ToPortableKernel(const KernelFunction& kernel, const std::string& name) {
  if (!kernel) Throw(ErrorCode::kInvalidArgument, "kernel '", name, "' cannot be encoded: it is null");
  kf::Kernel out = PortableWriter(name).Write(*kernel);
  std::string invalid = kf::ValidateKernel(out);
  if (!invalid.empty()) Throw(ErrorCode::kInvalidArgument, "kernel '", name, "' cannot be encoded: ", invalid);
  return out;
}

std::vector<uint8_t> EncodeKernel(const KernelFunction& kernel, const std::string& name) {
  return kf::SerializeKernel(ToPortableKernel(kernel, name));
}

KernelFunction FromPortableKernel(const kf::Kernel& kernel) {
  std::string invalid = kf::ValidateKernel(kernel);
  if (!invalid.empty()) Throw(ErrorCode::kInvalidArgument, "invalid kernel '", kernel.name, "': ", invalid);
  return IRReader(kernel).Read();
}

KernelFunction DecodeKernelToIR(const uint8_t* data, size_t size, std::string* name) {
  kf::DecodeResult decoded = kf::DecodeKernel(data, size);
  if (!decoded.ok()) Throw(ErrorCode::kDataLoss, decoded.error);
  if (name) *name = decoded.kernel.name;
  return IRReader(decoded.kernel).Read();
}

KernelFunction DecodeKernelToIR(const std::vector<uint8_t>& bytes, std::string* name) {
  return DecodeKernelToIR(bytes.data(), bytes.size(), name);
}

}  // namespace rxt
