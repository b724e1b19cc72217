/// The tensor-expression kernel builder: stages become loop nests around blocks; Build
/// assembles the kernel and gives it its own symbolic variables (tensor_expr_bind.cc).
#include "rxt/transform/legalize/tensor_expr.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "rxt/transform/analysis/op_pattern.h"
#include "tensor_expr_bind.h"

namespace rxt {

const PrimExpr& TensorRef::dim(int axis) const {
  int ndim = this->ndim();
  if (axis < 0) axis += ndim;
  RXT_CHECK(axis >= 0 && axis < ndim, "axis out of range for ", buffer_->name);
  return buffer_->shape[axis];
}

PrimExpr TensorRef::operator()(const Index& index) const {
  RXT_CHECK(static_cast<int>(index.size()) == ndim(), "load of ", buffer_->name, " with ", index.size(),
            " indices for ", ndim(), " dims");
  return MakeLoad(buffer_, index);
}

TensorRef KernelBuilder::Input(const std::string& name, const StructInfo& tensor_sinfo) {
  const auto* t = tensor_sinfo ? tensor_sinfo->As<TensorSINode>() : nullptr;
  if (t == nullptr || t->ndim < 0 || t->dtype == DType::kUnknown) {
    Throw(ErrorCode::kUnimplemented, "input ", name, " must be a tensor of known ndim and dtype, got ",
          tensor_sinfo ? ToString(tensor_sinfo) : std::string("nothing"));
  }
  std::vector<PrimExpr> shape;
  if (t->shape) {
    shape = *t->shape;
  } else {
    // Unknown dims: the kernel reads them from the argument at run time.
    for (int i = 0; i < t->ndim; ++i) shape.push_back(MakePrimVar(StrCat(name, "_d", i)));
  }
  return Input(name, t->dtype, std::move(shape));
}

TensorRef KernelBuilder::Input(const std::string& name, DType dtype, std::vector<PrimExpr> shape) {
  Buffer buffer = MakeBuffer(name, dtype, std::move(shape));
  inputs_.push_back({buffer, nullptr});
  return TensorRef(buffer);
}

PrimExpr KernelBuilder::ScalarInput(const std::string& name, DType dtype) {
  PrimVar var = MakePrimVar(name, dtype);
  local_vars_.insert(var.get());
  inputs_.push_back({nullptr, var});
  return var;
}

std::vector<PrimVar> KernelBuilder::NewVars(const std::string& prefix, size_t count) {
  std::vector<PrimVar> vars;
  for (size_t i = 0; i < count; ++i) {
    vars.push_back(MakePrimVar(StrCat(prefix, i)));
    local_vars_.insert(vars.back().get());
  }
  return vars;
}

namespace {

std::vector<IterVar> BindIters(const std::vector<PrimVar>& iters, const std::vector<PrimVar>& loops, IterKind kind) {
  std::vector<IterVar> out;
  for (size_t i = 0; i < iters.size(); ++i) out.push_back({iters[i], loops[i], kind});
  return out;
}

Stmt WrapInLoops(Stmt body, const std::vector<PrimVar>& loops, const std::vector<PrimExpr>& extents) {
  for (size_t i = loops.size(); i-- > 0;) body = MakeFor(loops[i], extents[i], std::move(body));
  return body;
}

void CheckDims(const std::string& stage, const std::vector<PrimExpr>& dims) {
  for (const PrimExpr& d : dims) RXT_CHECK(d && d->dtype == DType::kInt64, "stage ", stage, ": dims must be int64");
}

PrimExpr Combine(ReduceKind kind, PrimExpr acc, PrimExpr value) {
  switch (kind) {
    case ReduceKind::kSum: return acc + value;
    case ReduceKind::kMax: return te::Max(acc, value);
    case ReduceKind::kMin: return te::Min(acc, value);
    case ReduceKind::kProd: return acc * value;
  }
  return value;
}

PrimExpr Identity(ReduceKind kind, DType dtype) {
  switch (kind) {
    case ReduceKind::kSum: return te::Zero(dtype);
    case ReduceKind::kMax: return te::LowestValue(dtype);
    case ReduceKind::kMin: return te::HighestValue(dtype);
    case ReduceKind::kProd: return te::One(dtype);
  }
  return te::Zero(dtype);
}

}  // namespace

TensorRef KernelBuilder::Compute(const std::string& name, std::vector<PrimExpr> shape, const ComputeFn& fn) {
  CheckDims(name, shape);
  std::vector<PrimVar> loops = NewVars("i", shape.size()), iters = NewVars("v", shape.size());
  Index index(iters.begin(), iters.end());
  PrimExpr value = fn(index);
  Buffer buffer = MakeBuffer(name, value->dtype, shape);
  Stmt block = MakeBlock(name, BindIters(iters, loops, IterKind::kSpatial), nullptr, MakeStore(buffer, index, value));
  stages_.push_back({buffer, WrapInLoops(block, loops, shape)});
  return TensorRef(buffer);
}

TensorRef KernelBuilder::Reduce(const std::string& name, std::vector<PrimExpr> shape,
                                std::vector<PrimExpr> reduce_extents, ReduceKind kind, const ReduceFn& fn,
                                PrimExpr init) {
  CheckDims(name, shape);
  CheckDims(name, reduce_extents);
  if (reduce_extents.empty()) {  // nothing to reduce: the value (combined with init, if any)
    return Compute(name, shape, [&](const Index& i) {
      PrimExpr value = fn(i, {});
      return init ? Combine(kind, te::Cast(value->dtype, init), value) : value;
    });
  }
  bool empty = std::any_of(reduce_extents.begin(), reduce_extents.end(), [](const PrimExpr& e) {
    int64_t size = 0;
    return GetConstInt(e, &size) && size == 0;
  });
  if (empty) {  // a block's init runs on the first iteration: with none, the result is just init
    return Compute(name, shape, [&](const Index& i) {
      DType dtype = fn(i, Index(reduce_extents.size(), te::Int(0)))->dtype;  // only its dtype is used
      return init ? te::Cast(dtype, init) : Identity(kind, dtype);
    });
  }
  std::vector<PrimVar> loops = NewVars("i", shape.size()), iters = NewVars("v", shape.size());
  std::vector<PrimVar> reduce_loops = NewVars("k", reduce_extents.size());
  std::vector<PrimVar> reduce_iters = NewVars("vk", reduce_extents.size());
  Index index(iters.begin(), iters.end()), reduce_index(reduce_iters.begin(), reduce_iters.end());
  PrimExpr value = fn(index, reduce_index);
  DType dtype = value->dtype;
  if (dtype == DType::kBool) Throw(ErrorCode::kUnimplemented, "reduction ", name, " over bool values");
  Buffer buffer = MakeBuffer(name, dtype, shape);
  Stmt init_store = MakeStore(buffer, index, init ? te::Cast(dtype, init) : Identity(kind, dtype));
  Stmt update = MakeStore(buffer, index, Combine(kind, MakeLoad(buffer, index), value));
  std::vector<IterVar> iter_vars = BindIters(iters, loops, IterKind::kSpatial);
  for (IterVar& iv : BindIters(reduce_iters, reduce_loops, IterKind::kReduce)) iter_vars.push_back(std::move(iv));
  Stmt stmt = MakeBlock(name, std::move(iter_vars), init_store, update);
  stmt = WrapInLoops(WrapInLoops(stmt, reduce_loops, reduce_extents), loops, shape);
  stages_.push_back({buffer, stmt});
  return TensorRef(buffer);
}

KernelFunction KernelBuilder::Build(const std::vector<TensorRef>& outputs) const {
  std::vector<KernelParam> params = inputs_;
  std::unordered_set<const BufferNode*> output_buffers;
  for (const TensorRef& out : outputs) {
    bool is_stage = std::any_of(stages_.begin(), stages_.end(),
                                [&](const Stage& s) { return s.buffer == out.buffer(); });
    RXT_CHECK(is_stage, "kernel outputs must be stages of the builder");
    RXT_CHECK(output_buffers.insert(out.buffer().get()).second, "output ", out.buffer()->name, " given twice");
    params.push_back({out.buffer(), nullptr});
  }
  RXT_CHECK(!stages_.empty(), "a kernel needs at least one stage");
  std::vector<Stmt> stmts;
  for (const Stage& stage : stages_) stmts.push_back(stage.stmt);
  Stmt body = stmts.size() == 1 ? stmts[0] : MakeSeq(std::move(stmts));
  for (size_t i = stages_.size(); i-- > 0;) {
    if (!output_buffers.count(stages_[i].buffer.get())) body = MakeAllocate(stages_[i].buffer, std::move(body));
  }
  // The pattern kind tells the fusion passes how the kernel may be fused (op_pattern.h).
  return WithOpPattern(BindSymbolicDims(MakeKernelFunction(std::move(params), std::move(body)), local_vars_));
}

namespace te {

namespace {
template <typename T>
PrimExpr IntLimit(DType dtype, bool lowest) {
  return IntImm(lowest ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max(), dtype);
}

PrimExpr Limit(DType dtype, bool lowest) {
  double inf = std::numeric_limits<double>::infinity();
  switch (dtype) {
    case DType::kInt8: return IntLimit<int8_t>(dtype, lowest);
    case DType::kInt16: return IntLimit<int16_t>(dtype, lowest);
    case DType::kInt32: return IntLimit<int32_t>(dtype, lowest);
    case DType::kInt64: return IntLimit<int64_t>(dtype, lowest);
    case DType::kUInt8: return IntLimit<uint8_t>(dtype, lowest);
    case DType::kBool: return BoolImm(!lowest);
    default: return FloatImm(lowest ? -inf : inf, dtype);
  }
}
}  // namespace

PrimExpr Const(double value, DType dtype) {
  RXT_CHECK(dtype != DType::kUnknown, "a constant needs a dtype");
  if (IsFloat(dtype)) return FloatImm(value, dtype);
  if (dtype == DType::kBool) return BoolImm(value != 0);
  // Truncated toward zero and saturated to the dtype (NaN is 0), as a float-to-int cast.
  int64_t lo = 0, hi = 0;
  GetConstInt(Limit(dtype, true), &lo);
  GetConstInt(Limit(dtype, false), &hi);
  if (std::isnan(value)) return IntImm(0, dtype);
  if (value <= static_cast<double>(lo)) return IntImm(lo, dtype);
  if (value >= static_cast<double>(hi)) return IntImm(hi, dtype);  // 2^63 for int64: still saturates
  return IntImm(static_cast<int64_t>(std::trunc(value)), dtype);
}

PrimExpr Cast(DType dtype, PrimExpr x) {
  if (x->dtype == dtype) return x;
  if (const auto* i = x->As<IntImmNode>()) {
    if (dtype == DType::kInt64) return IntImm(i->value);  // exact, whatever the magnitude
    int64_t lo = 0, hi = 0;
    bool fits = !IsInt(dtype) || (GetConstInt(LowestValue(dtype), &lo) && GetConstInt(HighestValue(dtype), &hi) &&
                                  i->value >= lo && i->value <= hi);
    if (fits) return Const(static_cast<double>(i->value), dtype);  // else it wraps: leave the cast
  } else if (const auto* f = x->As<FloatImmNode>()) {
    return Const(f->value, dtype);
  }
  return MakeCast(dtype, std::move(x));
}

PrimExpr LowestValue(DType dtype) { return Limit(dtype, true); }
PrimExpr HighestValue(DType dtype) { return Limit(dtype, false); }

PrimExpr InRange(const PrimExpr& x, const PrimExpr& lo, const PrimExpr& hi) { return And(Ge(x, lo), Lt(x, hi)); }

PrimExpr ClampIndex(const PrimExpr& x, const PrimExpr& extent) { return Min(Max(x, Int(0)), extent - Int(1)); }

PrimExpr LoadOr(const TensorRef& t, const Index& index, const PrimExpr& fill) {
  std::vector<int> dims;
  for (int k = 0; k < t.ndim(); ++k) dims.push_back(k);
  return LoadOr(t, index, fill, dims);
}

PrimExpr LoadOr(const TensorRef& t, const Index& index, const PrimExpr& fill, const std::vector<int>& dims) {
  PrimExpr in_bounds;
  Index clamped = index;
  for (int k : dims) {
    PrimExpr ok = InRange(index[k], Int(0), t.dim(k));
    in_bounds = in_bounds ? And(in_bounds, ok) : ok;
    clamped[k] = ClampIndex(index[k], t.dim(k));
  }
  if (!in_bounds) return t(index);
  return Select(in_bounds, t(clamped), fill);
}

Index BroadcastIndex(const Index& out_index, const std::vector<PrimExpr>& out_shape,
                     const std::vector<PrimExpr>& in_shape) {
  RXT_CHECK(in_shape.size() <= out_shape.size() && out_index.size() == out_shape.size());
  size_t offset = out_shape.size() - in_shape.size();
  Index in_index;
  for (size_t k = 0; k < in_shape.size(); ++k) {
    int64_t size = 0, out_size = 0;
    bool is_one = GetConstInt(in_shape[k], &size) && size == 1;
    // Where the output dim is 1 too, its index (always 0) keeps the element identity visible:
    // a fused kernel that reads back what it wrote stays recognisably elementwise.
    bool out_is_one = GetConstInt(out_shape[offset + k], &out_size) && out_size == 1;
    in_index.push_back(is_one && !out_is_one ? Int(0) : out_index[offset + k]);
  }
  return in_index;
}

PrimExpr FlatIndex(const Index& index, const std::vector<PrimExpr>& shape) {
  RXT_CHECK(index.size() == shape.size());
  PrimExpr flat = Int(0);
  for (size_t k = 0; k < shape.size(); ++k) flat = flat * shape[k] + index[k];
  return flat;
}

Index UnravelIndex(const PrimExpr& flat, const std::vector<PrimExpr>& shape) {
  Index out(shape.size());
  PrimExpr rest = flat;
  for (size_t k = shape.size(); k-- > 1;) {
    int64_t size = 0;
    if (GetConstInt(shape[k], &size) && size == 1) {
      out[k] = Int(0);
      continue;
    }
    out[k] = FloorMod(rest, shape[k]);
    rest = FloorDiv(rest, shape[k]);
  }
  if (!shape.empty()) out[0] = rest;
  return out;
}

PrimExpr ProductOf(const std::vector<PrimExpr>& dims) {
  PrimExpr product = Int(1);
  for (const PrimExpr& d : dims) product = product * d;
  return product;
}

}  // namespace te
}  // namespace rxt
