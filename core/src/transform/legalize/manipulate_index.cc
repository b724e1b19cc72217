/// Legalization of the indexing manipulations: concat, split, strided_slice, take, pad and
/// one_hot. Loads that a select may discard use clamped indices, so no kernel reads out of
/// bounds whatever a backend evaluates first.
#include <algorithm>

#include "legalize_util.h"

namespace rxt::legalize {
namespace {

using namespace te;

// out[..., j, ...] = tensors[t][..., j - offset_t, ...] for the t whose range holds j.
Expr LegalizeConcat(LegalizeContext& context, const CallNode& call) {
  OutputTensor out = OutputOf(call);
  KernelCall k(call);
  const TupleSINode& tuple = infer::TupleArg(call, 0);
  std::vector<TensorRef> inputs;
  for (size_t f = 0; f < tuple.fields.size(); ++f) inputs.push_back(k.TensorField(0, static_cast<int>(f)));
  int axis = infer::NormalizeAxis(call, 0, infer::IntAttr(call, "axis"), static_cast<int>(out.shape.size()));
  std::vector<PrimExpr> offsets = {Int(0)};  // where each input starts along axis
  for (const TensorRef& t : inputs) offsets.push_back(offsets.back() + t.dim(axis));

  TensorRef result = k.builder().Compute("concat", out.shape, [&](const Index& i) {
    auto part = [&](size_t t) {
      Index in = i;
      in[axis] = ClampIndex(i[axis] - offsets[t], inputs[t].dim(axis));
      return inputs[t](in);
    };
    PrimExpr value = part(inputs.size() - 1);
    for (size_t t = inputs.size() - 1; t-- > 0;) value = Select(Lt(i[axis], offsets[t + 1]), part(t), value);
    return value;
  });
  return k.Finish(context, {result});
}

// Each part is a copy of x from its offset along axis.
Expr LegalizeSplit(LegalizeContext& context, const CallNode& call) {
  const auto* tuple = call.struct_info->As<TupleSINode>();
  RXT_CHECK(tuple != nullptr);
  KernelCall k(call);
  TensorRef x = k.Tensor(0);
  int axis = infer::NormalizeAxis(call, 0, infer::IntAttr(call, "axis"), x.ndim());
  int64_t sections = infer::IntAttr(call, "sections");
  std::vector<int64_t> indices = infer::IntListAttr(call, "indices");
  std::optional<int64_t> size = infer::StaticDim(x.dim(axis));

  std::vector<TensorRef> parts;
  for (size_t p = 0; p < tuple->fields.size(); ++p) {
    OutputTensor out = OutputField(call, static_cast<int>(p));
    PrimExpr offset;
    if (sections > 0) {
      offset = Int(static_cast<int64_t>(p)) * out.shape[axis];
    } else {
      int64_t start = p == 0 ? 0 : indices[p - 1];
      offset = Int(size ? std::min(start, *size) : start);
    }
    parts.push_back(k.builder().Compute(StrCat("split", p), out.shape, [&](const Index& i) {
      Index in = i;
      in[axis] = i[axis] + offset;
      return x(in);
    }));
  }
  return k.Finish(context, parts);
}

// Python slicing: element j of a sliced axis is x[start + j * stride], where start is begin
// made non-negative and clamped as Python does. (With a symbolic dim the op's inference only
// knows the result's shape for begin >= 0, stride > 0, to the end.)
Expr LegalizeStridedSlice(LegalizeContext& context, const CallNode& call) {
  OutputTensor out = OutputOf(call);
  KernelCall k(call);
  TensorRef x = k.Tensor(0);
  std::vector<int64_t> axes = infer::IntListAttr(call, "axes"), begin = infer::IntListAttr(call, "begin"),
                       strides = infer::IntListAttr(call, "strides");
  if (strides.empty()) strides.assign(axes.size(), 1);
  std::vector<int> norm_axes = infer::NormalizeAxes(call, 0, axes, x.ndim());
  std::vector<PrimExpr> start(x.ndim(), Int(0));
  std::vector<int64_t> step(x.ndim(), 1);
  for (size_t a = 0; a < norm_axes.size(); ++a) {
    int d = norm_axes[a];
    int64_t b = begin[a], s = strides[a];
    step[d] = s;
    if (std::optional<int64_t> n = infer::StaticDim(x.dim(d))) {
      int64_t from = b < 0 ? b + *n : b;
      start[d] = Int(s > 0 ? std::clamp<int64_t>(from, 0, *n) : std::clamp<int64_t>(from, -1, *n - 1));
    } else {
      start[d] = b >= 0 ? Int(b) : x.dim(d) + Int(b);
    }
  }
  TensorRef result = k.builder().Compute("strided_slice", out.shape, [&](const Index& i) {
    Index in;
    for (int d = 0; d < x.ndim(); ++d) in.push_back(start[d] + i[d] * Int(step[d]));
    return x(in);
  });
  return k.Finish(context, {result});
}

// Indices count from the end when negative and are clipped to the axis (TVM's "clip" mode).
PrimExpr TakeIndex(const PrimExpr& index, const PrimExpr& size) {
  PrimExpr i = Cast(DType::kInt64, index);
  return ClampIndex(Select(Lt(i, Int(0)), i + size, i), size);
}

Expr LegalizeTake(LegalizeContext& context, const CallNode& call) {
  OutputTensor out = OutputOf(call);
  KernelCall k(call);
  TensorRef x = k.Tensor(0), indices = k.Tensor(1);
  std::optional<int64_t> axis = infer::OptionalIntAttr(call, "axis");
  TensorRef result = k.builder().Compute("take", out.shape, [&](const Index& i) {
    if (!axis) return x(UnravelIndex(TakeIndex(indices(i), ProductOf(x.shape())), x.shape()));
    int a = infer::NormalizeAxis(call, 0, *axis, x.ndim());
    size_t index_ndim = indices.ndim();
    Index in(i.begin(), i.begin() + a);
    in.push_back(TakeIndex(indices(Index(i.begin() + a, i.begin() + a + index_ndim)), x.dim(a)));
    in.insert(in.end(), i.begin() + a + index_ndim, i.end());
    return x(in);
  });
  return k.Finish(context, {result});
}

Expr LegalizePad(LegalizeContext& context, const CallNode& call) {
  OutputTensor out = OutputOf(call);
  KernelCall k(call);
  TensorRef x = k.Tensor(0);
  std::vector<int64_t> pad_width = infer::IntListAttr(call, "pad_width");
  PrimExpr fill = Const(infer::FloatAttr(call, "pad_value"), out.dtype);
  TensorRef result = k.builder().Compute("pad", out.shape, [&](const Index& i) {
    Index in;
    std::vector<int> padded;  // only these dims can leave x
    for (int d = 0; d < x.ndim(); ++d) {
      in.push_back(i[d] - Int(pad_width[2 * d]));
      if (pad_width[2 * d] || pad_width[2 * d + 1]) padded.push_back(d);
    }
    return LoadOr(x, in, fill, padded);
  });
  return k.Finish(context, {result});
}

Expr LegalizeOneHot(LegalizeContext& context, const CallNode& call) {
  OutputTensor out = OutputOf(call);
  KernelCall k(call);
  TensorRef indices = k.Tensor(0);
  PrimExpr on = k.Scalar(1, out.dtype), off = k.Scalar(2, out.dtype);
  int axis = infer::NormalizeAxis(call, 0, infer::IntAttr(call, "axis"), static_cast<int>(out.shape.size()));
  TensorRef result = k.builder().Compute("one_hot", out.shape, [&](const Index& i) {
    Index in = i;
    in.erase(in.begin() + axis);
    return Select(Eq(Cast(DType::kInt64, indices(in)), i[axis]), on, off);
  });
  return k.Finish(context, {result});
}

}  // namespace

void RegisterIndexManipulateLegalizations(OpRegistry& r) {
  SetLegalization(r, "concat", LegalizeConcat);
  SetLegalization(r, "split", LegalizeSplit);
  SetLegalization(r, "strided_slice", LegalizeStridedSlice);
  SetLegalization(r, "take", LegalizeTake);
  SetLegalization(r, "pad", LegalizePad);
  SetLegalization(r, "one_hot", LegalizeOneHot);
}

}  // namespace rxt::legalize
