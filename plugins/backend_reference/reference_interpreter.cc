#include "reference_interpreter.h"

#include <new>
#include <sstream>
#include <type_traits>

namespace rxt::backend_reference {

using kf::ExprKind;
using kf::StmtKind;

namespace {

// Allocations start filled with this byte: NaN for every float type, -1 for signed integers,
// so that a kernel reading scratch memory before writing it shows in its results.
constexpr uint8_t kPoisonByte = 0xff;
// The largest local allocation, in bytes: larger is surely a bug in the kernel.
constexpr uint64_t kMaxAllocationBytes = uint64_t{1} << 40;

}  // namespace

ReferenceInterpreter::ReferenceInterpreter(kf::Kernel kernel)
    : kernel_(ValidKernel(std::move(kernel))), binder_(kernel_) {
  Prepare();
}

kf::Kernel ReferenceInterpreter::ValidKernel(kf::Kernel kernel) {
  std::string invalid = kf::ValidateKernel(kernel);
  if (!invalid.empty()) throw KernelError("invalid kernel '" + kernel.name + "': " + invalid);
  return kernel;
}

void ReferenceInterpreter::Prepare() {
  exprs_.resize(kernel_.exprs.size());
  for (size_t i = 0; i < kernel_.exprs.size(); ++i) {
    const kf::Expr& e = kernel_.exprs[i];
    PreparedExpr& p = exprs_[i];
    p.dtype = e.dtype;
    p.operand_dtype = e.operands.empty() ? e.dtype : kernel_.exprs[e.operands[0]].dtype;
    p.eval = ChooseEval(e, p.operand_dtype);
    p.binary_op = e.binary_op;
    p.intrinsic = e.intrinsic;
    if (e.kind == ExprKind::kIntImm) p.constant = MakeInt(e.dtype, e.int_value);
    if (e.kind == ExprKind::kFloatImm) p.constant = MakeFloat(e.dtype, e.float_value);
    if (e.kind == ExprKind::kVar) p.slot = e.var;
    if (e.kind == ExprKind::kLoad) {
      p.slot = e.buffer;
      p.indices = PrepareIndices(e.operands);
    } else {
      for (size_t k = 0; k < e.operands.size() && k < 3; ++k) p.operands[k] = e.operands[k];
    }
  }
  stmt_indices_.resize(kernel_.stmts.size());
  for (size_t s = 0; s < kernel_.stmts.size(); ++s) {
    const kf::Stmt& stmt = kernel_.stmts[s];
    if (stmt.kind == StmtKind::kStore) stmt_indices_[s] = PrepareIndices(stmt.indices);
    if (stmt.kind == StmtKind::kBlock) {
      std::vector<int32_t> values;
      for (const kf::IterVar& iter : stmt.iter_vars) values.push_back(iter.value);
      stmt_indices_[s] = PrepareIndices(values);
    }
  }
  for (const kf::Buffer& b : kernel_.buffers) element_bytes_.push_back(ElementBytes(b.dtype));
}

ReferenceInterpreter::IndexRange ReferenceInterpreter::PrepareIndices(const std::vector<int32_t>& exprs) {
  IndexRange range{static_cast<int32_t>(indices_.size()), static_cast<int32_t>(exprs.size()), true};
  for (int32_t e : exprs) {
    const kf::Expr& index = kernel_.exprs[e];
    indices_.push_back(index.kind == ExprKind::kVar ? PreparedIndex{index.var, -1} : PreparedIndex{-1, e});
    range.all_vars = range.all_vars && index.kind == ExprKind::kVar;
  }
  return range;
}

ReferenceInterpreter ReferenceInterpreter::FromBytes(const uint8_t* data, size_t size) {
  kf::DecodeResult decoded = kf::DecodeKernel(data, size);
  if (!decoded.ok()) throw KernelError(decoded.error);
  return ReferenceInterpreter(std::move(decoded.kernel));
}

void ReferenceInterpreter::Run(const std::vector<KernelArg>& args) const {
  try {
    Frame frame;
    frame.vars.assign(kernel_.vars.size(), IntValue(0));
    frame.buffers.resize(kernel_.buffers.size());
    BindArguments(args, frame);
    Exec(kernel_.body(), frame);
  } catch (const KernelError& e) {
    throw KernelError("kernel '" + kernel_.name + "': " + e.what());
  }
}

// ---- Statements.

void ReferenceInterpreter::Exec(int32_t stmt, Frame& frame) const {
  const kf::Stmt& s = kernel_.stmts[stmt];
  switch (s.kind) {
    case StmtKind::kSeq:
      for (int32_t child : s.stmts) Exec(child, frame);
      return;
    case StmtKind::kFor: {
      // Every loop kind runs serially: parallel, vectorized and unrolled only say it is allowed
      // to run otherwise. The variable takes 0 .. extent-1, which fits its dtype.
      int64_t extent = Eval(s.extent, frame).i;
      for (int64_t i = 0; i < extent; ++i) {
        frame.vars[s.var].i = i;
        Exec(s.body, frame);
      }
      return;
    }
    case StmtKind::kStore: {
      uint8_t* address = Address(s.buffer, stmt_indices_[stmt], frame, "store to");
      StoreScalar(kernel_.buffers[s.buffer].dtype, address, Eval(s.value, frame));
      return;
    }
    case StmtKind::kIf:
      if (Eval(s.cond, frame).i != 0) {
        Exec(s.then_case, frame);
      } else if (s.else_case != kf::kNone) {
        Exec(s.else_case, frame);
      }
      return;
    case StmtKind::kAllocate: return ExecAllocate(s, frame);
    case StmtKind::kBlock: {
      // The init runs on the first iteration of the reduction: when every reduce iterator is 0.
      bool first_reduce_iteration = true;
      const PreparedIndex* values = indices_.data() + stmt_indices_[stmt].first;
      for (size_t k = 0; k < s.iter_vars.size(); ++k) {
        int64_t v = EvalIndex(values[k], frame);
        frame.vars[s.iter_vars[k].var].i = v;
        if (s.iter_vars[k].kind == kf::IterKind::kReduce && v != 0) first_reduce_iteration = false;
      }
      if (s.init != kf::kNone && first_reduce_iteration) Exec(s.init, frame);
      Exec(s.body, frame);
      return;
    }
  }
}

void ReferenceInterpreter::ExecAllocate(const kf::Stmt& alloc, Frame& frame) const {
  const kf::Buffer& buffer = kernel_.buffers[alloc.buffer];
  BufferView view;
  size_t ndim = buffer.shape.size();
  view.shape.resize(ndim);
  view.strides.resize(ndim);
  for (size_t d = 0; d < ndim; ++d) {
    view.shape[d] = Eval(buffer.shape[d], frame).i;
    if (view.shape[d] < 0) {
      throw KernelError("alloc " + buffer.name + ": dim " + std::to_string(d) + " is " + std::to_string(view.shape[d]));
    }
  }
  for (size_t d = ndim; d-- > 0;) {
    if (!buffer.strides.empty()) {
      view.strides[d] = Eval(buffer.strides[d], frame).i;
      if (view.strides[d] < 0) {
        throw KernelError("alloc " + buffer.name + ": stride " + std::to_string(d) + " is " +
                          std::to_string(view.strides[d]));
      }
    } else {
      view.strides[d] = d + 1 == ndim ? 1 : view.strides[d + 1] * view.shape[d + 1];
    }
  }
  // Elements spanned: 1 + sum of (dim - 1) * stride, or none if a dim is 0.
  uint64_t elements = 1;
  for (size_t d = 0; d < ndim; ++d) {
    if (view.shape[d] == 0) elements = 0;
  }
  for (size_t d = 0; d < ndim && elements > 0; ++d) {
    uint64_t span = 0;
    if (__builtin_mul_overflow(static_cast<uint64_t>(view.shape[d] - 1), static_cast<uint64_t>(view.strides[d]),
                               &span) ||
        __builtin_add_overflow(elements, span, &elements)) {
      elements = kMaxAllocationBytes;
    }
  }
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(elements, static_cast<uint64_t>(ElementBytes(buffer.dtype)), &bytes) ||
      bytes > kMaxAllocationBytes) {
    throw KernelError("alloc " + buffer.name + ": too large (" + std::to_string(elements) + " elements)");
  }
  std::vector<uint8_t> storage;
  try {
    storage.assign(bytes, kPoisonByte);
  } catch (const std::bad_alloc&) {
    throw KernelError("alloc " + buffer.name + ": out of memory for " + std::to_string(bytes) + " bytes");
  }
  view.data = storage.data();
  frame.buffers[alloc.buffer] = std::move(view);
  Exec(alloc.body, frame);
  frame.buffers[alloc.buffer] = BufferView();
}

// ---- Expressions.

namespace {

// Calls |make| with the dtype |t| as a compile-time constant.
template <typename Make>
auto ForDType(kf::DType t, Make make) {
  using kf::DType;
  switch (t) {
    case DType::kFloat16: return make(std::integral_constant<DType, DType::kFloat16>());
    case DType::kBFloat16: return make(std::integral_constant<DType, DType::kBFloat16>());
    case DType::kFloat32: return make(std::integral_constant<DType, DType::kFloat32>());
    case DType::kFloat64: return make(std::integral_constant<DType, DType::kFloat64>());
    case DType::kInt8: return make(std::integral_constant<DType, DType::kInt8>());
    case DType::kInt16: return make(std::integral_constant<DType, DType::kInt16>());
    case DType::kInt32: return make(std::integral_constant<DType, DType::kInt32>());
    case DType::kUInt8: return make(std::integral_constant<DType, DType::kUInt8>());
    case DType::kBool: return make(std::integral_constant<DType, DType::kBool>());
    default: return make(std::integral_constant<DType, DType::kInt64>());
  }
}

}  // namespace

// Defined before ChooseEval takes their addresses: clang 14 (the fuzz build) does not
// instantiate them otherwise.
template <kf::DType T>
Value ReferenceInterpreter::EvalArithmetic(const ReferenceInterpreter& self, const PreparedExpr& e,
                                           const Frame& frame) {
  Value a = self.Eval(e.operands[0], frame);
  Value b = self.Eval(e.operands[1], frame);
  return ApplyBinary(e.binary_op, T, a, b);
}

template <kf::DType T>
Value ReferenceInterpreter::EvalLoad(const ReferenceInterpreter& self, const PreparedExpr& e, const Frame& frame) {
  return LoadScalar(T, self.Address(e.slot, e.indices, frame, "load from"));
}

ReferenceInterpreter::EvalFn ReferenceInterpreter::ChooseEval(const kf::Expr& e, kf::DType operand_dtype) {
  switch (e.kind) {
    case ExprKind::kIntImm:
    case ExprKind::kFloatImm: return &EvalImmediate;
    case ExprKind::kVar: return &EvalVar;
    case ExprKind::kBinary:
      if (e.binary_op == kf::BinaryOp::kAnd) return &EvalAnd;
      if (e.binary_op == kf::BinaryOp::kOr) return &EvalOr;
      return ForDType(operand_dtype, [](auto t) -> EvalFn { return &EvalArithmetic<decltype(t)::value>; });
    case ExprKind::kNot: return &EvalNot;
    case ExprKind::kSelect: return &EvalSelect;
    case ExprKind::kCast: return &EvalCast;
    case ExprKind::kIntrinsic: return &EvalIntrinsic;
    case ExprKind::kLoad: return ForDType(e.dtype, [](auto t) -> EvalFn { return &EvalLoad<decltype(t)::value>; });
  }
  return &EvalImmediate;
}

Value ReferenceInterpreter::EvalImmediate(const ReferenceInterpreter&, const PreparedExpr& e, const Frame&) {
  return e.constant;
}

Value ReferenceInterpreter::EvalVar(const ReferenceInterpreter&, const PreparedExpr& e, const Frame& frame) {
  return frame.vars[e.slot];
}

// && and || evaluate their right side only when needed, so `i < n && A[i] > 0` is safe.
Value ReferenceInterpreter::EvalAnd(const ReferenceInterpreter& self, const PreparedExpr& e, const Frame& frame) {
  return BoolValue(self.Eval(e.operands[0], frame).i != 0 && self.Eval(e.operands[1], frame).i != 0);
}

Value ReferenceInterpreter::EvalOr(const ReferenceInterpreter& self, const PreparedExpr& e, const Frame& frame) {
  return BoolValue(self.Eval(e.operands[0], frame).i != 0 || self.Eval(e.operands[1], frame).i != 0);
}

Value ReferenceInterpreter::EvalNot(const ReferenceInterpreter& self, const PreparedExpr& e, const Frame& frame) {
  return BoolValue(self.Eval(e.operands[0], frame).i == 0);
}

// Only the chosen side is evaluated.
Value ReferenceInterpreter::EvalSelect(const ReferenceInterpreter& self, const PreparedExpr& e, const Frame& frame) {
  return self.Eval(e.operands[0], frame).i != 0 ? self.Eval(e.operands[1], frame) : self.Eval(e.operands[2], frame);
}

Value ReferenceInterpreter::EvalCast(const ReferenceInterpreter& self, const PreparedExpr& e, const Frame& frame) {
  return ApplyCast(e.dtype, e.operand_dtype, self.Eval(e.operands[0], frame));
}

Value ReferenceInterpreter::EvalIntrinsic(const ReferenceInterpreter& self, const PreparedExpr& e, const Frame& frame) {
  Value args[2] = {self.Eval(e.operands[0], frame), IntValue(0)};
  if (e.operands[1] >= 0) args[1] = self.Eval(e.operands[1], frame);
  return ApplyIntrinsic(e.intrinsic, e.operand_dtype, args);
}

// The usual case, kept free of calls: every index is a variable.
uint8_t* ReferenceInterpreter::AddressAtVars(int32_t buffer, IndexRange indices, const Frame& frame,
                                             const char* access) const {
  const BufferView& view = frame.buffers[buffer];
  const PreparedIndex* index = indices_.data() + indices.first;
  int64_t offset = 0;
  for (int32_t d = 0; d < indices.count; ++d) {
    int64_t i = frame.vars[index[d].var].i;
    if (i < 0 || i >= view.shape[d]) ThrowOutOfBounds(buffer, indices, frame, access);
    offset += i * view.strides[d];
  }
  return view.data + offset * element_bytes_[buffer];
}

uint8_t* ReferenceInterpreter::AddressAt(int32_t buffer, IndexRange indices, const Frame& frame,
                                         const char* access) const {
  const BufferView& view = frame.buffers[buffer];
  const PreparedIndex* index = indices_.data() + indices.first;
  int64_t offset = 0;
  for (int32_t d = 0; d < indices.count; ++d) {
    int64_t i = EvalIndex(index[d], frame);
    if (i < 0 || i >= view.shape[d]) ThrowOutOfBounds(buffer, indices, frame, access);
    offset += i * view.strides[d];
  }
  return view.data + offset * element_bytes_[buffer];
}

void ReferenceInterpreter::ThrowOutOfBounds(int32_t buffer, IndexRange indices, const Frame& frame,
                                            const char* access) const {
  const BufferView& view = frame.buffers[buffer];
  const PreparedIndex* index = indices_.data() + indices.first;
  std::ostringstream os;
  os << access << " " << kernel_.buffers[buffer].name << "[";
  for (int32_t d = 0; d < indices.count; ++d) os << (d ? ", " : "") << EvalIndex(index[d], frame);
  os << "] is out of bounds: the shape is (";
  for (size_t d = 0; d < view.shape.size(); ++d) os << (d ? ", " : "") << view.shape[d];
  os << (view.shape.size() == 1 ? ",)" : ")") << "; the index is [";
  for (int32_t d = 0; d < indices.count; ++d) {
    os << (d ? ", " : "") << (index[d].var >= 0 ? kernel_.vars[index[d].var].name : ExprText(index[d].expr));
  }
  os << "]";
  throw KernelError(os.str());
}

std::string ReferenceInterpreter::ExprText(int32_t expr, int depth) const {
  const kf::Expr& e = kernel_.exprs[expr];
  if (depth > 8) return "...";
  auto operand = [&](size_t i) { return ExprText(e.operands[i], depth + 1); };
  switch (e.kind) {
    case ExprKind::kIntImm: return std::to_string(e.int_value);
    case ExprKind::kFloatImm: {
      std::ostringstream os;
      os << e.float_value;
      return os.str();
    }
    case ExprKind::kVar: return kernel_.vars[e.var].name;
    case ExprKind::kBinary: {
      std::string op = kf::BinaryOpName(e.binary_op);
      if (op.size() > 2) return op + "(" + operand(0) + ", " + operand(1) + ")";  // floordiv(a, b), min(a, b)
      return "(" + operand(0) + " " + op + " " + operand(1) + ")";
    }
    case ExprKind::kNot: return "!" + operand(0);
    case ExprKind::kSelect: return "select(" + operand(0) + ", " + operand(1) + ", " + operand(2) + ")";
    case ExprKind::kCast: return std::string(kf::DTypeName(e.dtype)) + "(" + operand(0) + ")";
    case ExprKind::kIntrinsic: {
      std::string text = std::string(kf::IntrinsicName(e.intrinsic)) + "(" + operand(0);
      if (e.operands.size() > 1) text += ", " + operand(1);
      return text + ")";
    }
    case ExprKind::kLoad: {
      std::string text = kernel_.buffers[e.buffer].name + "[";
      for (size_t i = 0; i < e.operands.size(); ++i) text += (i ? ", " : "") + operand(i);
      return text + "]";
    }
  }
  return "?";
}

}  // namespace rxt::backend_reference
