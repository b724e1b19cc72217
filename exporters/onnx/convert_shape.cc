// Manipulation and creation ops: shapes become int64 tensors (graph_writer.h).
#include <algorithm>
#include <limits>

#include "converters.h"

namespace rxt::export_onnx {
namespace {

bool HasZero(const std::vector<Dim>& dims) {
  return std::any_of(dims.begin(), dims.end(), [](const Dim& d) { return d.known && d.value == 0; });
}

/// Reshape of x to |dims|: known dims as they are, a symbolic dim x has at the same axis as 0
/// (Reshape copies it), one other symbolic dim as -1; more than that read off the inputs.
void ReshapeTo(OpContext& c, rxt_ir_expr_t x, const std::vector<Dim>& dims) {
  if (HasZero(dims)) {  // 0 would mean "copy": spell every dim out
    c.Output(c.Op("Reshape", {c.w.Tensor(x), c.w.ShapeTensor(dims, c.hint() + "_shape")},
                  {MakeAttribute("allowzero", int64_t{1})}));
    return;
  }
  std::optional<std::vector<Dim>> source = c.w.TensorDims(x);
  std::vector<int64_t> values;
  int inferred = 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i].known) {
      values.push_back(dims[i].value);
    } else if (source && i < source->size() && !(*source)[i].known && (*source)[i].text == dims[i].text) {
      values.push_back(0);
    } else {
      values.push_back(-1);
      ++inferred;
    }
  }
  std::string shape = inferred <= 1 ? c.w.Int64s(values, c.hint() + "_shape") : c.w.ShapeTensor(dims, c.hint() + "_shape");
  c.Output(c.Op("Reshape", {c.w.Tensor(x), shape}));
}

void PermuteDims(OpContext& c) {
  std::vector<int64_t> perm;
  if (std::optional<std::vector<int64_t>> axes = c.Ints("axes")) {
    for (int64_t a : *axes) perm.push_back(NormalizeAxis(a, c.NDim(c.arg(0))));
  } else {
    for (int i = c.NDim(c.arg(0)) - 1; i >= 0; --i) perm.push_back(i);
  }
  c.Output(c.Op("Transpose", {c.input(0)}, {MakeAttribute("perm", perm)}));
}

void Reshape(OpContext& c) { ReshapeTo(c, c.arg(0), c.w.ShapeDims(c.arg(1))); }

/// flatten and squeeze/expand_dims by the result's dims where that is simplest.
void Flatten(OpContext& c) { ReshapeTo(c, c.arg(0), c.Dims(c.result())); }

/// Expand: a target dim equal to x's at the same (right-aligned) axis is 1 (Expand broadcasts
/// both ways), so symbolic dims x already has need no Shape.
void BroadcastTo(OpContext& c) {
  std::vector<Dim> target = c.w.ShapeDims(c.arg(1));
  std::vector<Dim> source = c.Dims(c.arg(0));
  const size_t t = target.size(), n = source.size();
  for (size_t i = 0; i < t; ++i) {
    if (i + n < t) continue;  // a new leading dim
    const Dim& s = source[i + n - t];
    if (!target[i].known && !s.known && s.text == target[i].text) target[i] = Dim{true, 1, "1"};
  }
  c.Output(c.Op("Expand", {c.input(0), c.w.ShapeTensor(target, c.hint() + "_shape")}));
}

/// Sums x's broadcast dims away: the leading ones, and those the target has as 1.
void CollapseSumTo(OpContext& c) {
  std::vector<Dim> target = c.w.ShapeDims(c.arg(1));
  std::vector<Dim> source = c.Dims(c.arg(0));
  if (source.size() < target.size()) c.Fail("the target shape has more dims than the tensor");
  size_t lead = source.size() - target.size();
  std::vector<int64_t> kept_axes;
  for (size_t i = 0; i < target.size(); ++i) {
    const Dim& s = source[lead + i];
    if (target[i].known && target[i].value == 1 && !(s.known && s.value == 1)) kept_axes.push_back(lead + i);
  }
  std::string value = c.input(0);
  if (!kept_axes.empty()) {
    value = c.Op("ReduceSum", {value, c.w.Int64s(kept_axes, c.hint() + "_axes")}, {MakeAttribute("keepdims", int64_t{1})});
  }
  if (lead > 0) {
    std::vector<int64_t> leading(lead);
    for (size_t i = 0; i < lead; ++i) leading[i] = static_cast<int64_t>(i);
    value = c.Op("ReduceSum", {value, c.w.Int64s(leading, c.hint() + "_axes")}, {MakeAttribute("keepdims", int64_t{0})});
  }
  c.Output(value == c.input(0) ? c.Op("Identity", {value}) : value);
}

void ExpandDims(OpContext& c) {
  std::vector<int64_t> axes = c.Ints("axis").value_or(std::vector<int64_t>{});
  c.Output(c.Op("Unsqueeze", {c.input(0), c.w.Int64s(axes, c.hint() + "_axes")}));
}

void Squeeze(OpContext& c) {
  std::vector<int64_t> axes;
  if (std::optional<std::vector<int64_t>> given = c.Ints("axis")) {
    axes = *given;
  } else {
    std::vector<Dim> dims = c.Dims(c.arg(0));
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i].known && dims[i].value == 1) axes.push_back(static_cast<int64_t>(i));
    }
  }
  if (axes.empty()) {
    c.Output(c.Op("Identity", {c.input(0)}));
    return;
  }
  c.Output(c.Op("Squeeze", {c.input(0), c.w.Int64s(axes, c.hint() + "_axes")}));
}

void Concat(OpContext& c) {
  c.Output(c.Op("Concat", c.w.Tuple(c.arg(0)), {MakeAttribute("axis", c.Int("axis", 0))}));
}

/// Split into sections or at indices; the sizes must be known.
void Split(OpContext& c) {
  std::vector<Dim> dims = c.Dims(c.arg(0));
  int64_t axis = NormalizeAxis(c.Int("axis", 0), static_cast<int64_t>(dims.size()));
  int64_t sections = c.Int("sections", 0);
  std::vector<int64_t> indices = c.Ints("indices").value_or(std::vector<int64_t>{});
  const Dim& along = dims.at(axis);
  std::vector<int64_t> sizes;
  if (sections > 0) {
    if (!along.known) c.Fail("split along a symbolic dim");
    sizes.assign(sections, along.value / sections);
  } else {
    if (!along.known && !indices.empty()) c.Fail("split at indices along a symbolic dim");
    int64_t start = 0;
    for (int64_t cut : indices) {
      int64_t at = std::clamp<int64_t>(cut, start, along.value);
      sizes.push_back(at - start);
      start = at;
    }
    if (along.known) sizes.push_back(along.value - start);
  }
  if (sizes.size() <= 1) {
    c.OutputTuple({c.Op("Identity", {c.input(0)})});
    return;
  }
  std::vector<std::string> outputs;
  for (size_t i = 0; i < sizes.size(); ++i) outputs.push_back(c.w.Unique(c.hint() + "_" + std::to_string(i)));
  onnx::NodeProto& node = c.w.Node("Split", {c.input(0), c.w.Int64s(sizes, c.hint() + "_split")}, outputs);
  *node.add_attribute() = MakeAttribute("axis", axis);
  c.OutputTuple(outputs);
}

/// Python slicing; an end at or past 2^31-1 means "to the end".
void StridedSlice(OpContext& c) {
  std::vector<int64_t> axes = c.Ints("axes").value_or(std::vector<int64_t>{});
  std::vector<int64_t> begin = c.Ints("begin").value_or(std::vector<int64_t>{});
  std::vector<int64_t> end = c.Ints("end").value_or(std::vector<int64_t>{});
  std::vector<int64_t> strides = c.Ints("strides").value_or(std::vector<int64_t>{});
  if (strides.empty()) strides.assign(axes.size(), 1);
  for (int64_t& e : end) {
    if (e >= (int64_t{1} << 31) - 1) e = std::numeric_limits<int64_t>::max();
  }
  const std::string& h = c.hint();
  c.Output(c.Op("Slice", {c.input(0), c.w.Int64s(begin, h + "_starts"), c.w.Int64s(end, h + "_ends"),
                          c.w.Int64s(axes, h + "_axes"), c.w.Int64s(strides, h + "_steps")}));
}

void Take(OpContext& c) {
  if (std::optional<int64_t> axis = c.Int("axis")) {
    c.Output(c.Op("Gather", {c.input(0), c.input(1)}, {MakeAttribute("axis", *axis)}));
    return;
  }
  std::string flat = c.Op("Reshape", {c.input(0), c.w.Int64s({-1}, c.hint() + "_flat")});
  c.Output(c.Op("Gather", {flat, c.input(1)}, {MakeAttribute("axis", int64_t{0})}));
}

/// pad_width [before_0, after_0, before_1, ...] -> ONNX's [before_0, before_1, ..., after_0, ...].
void Pad(OpContext& c) {
  std::vector<int64_t> width = c.Ints("pad_width").value_or(std::vector<int64_t>{});
  std::vector<int64_t> pads(width.size());
  size_t n = width.size() / 2;
  for (size_t i = 0; i < n; ++i) {
    pads[i] = width[2 * i];
    pads[n + i] = width[2 * i + 1];
  }
  rxt_ir_expr_t x = c.arg(0);
  c.Output(c.Op("Pad", {c.input(0), c.w.Int64s(pads, c.hint() + "_pads"), c.ScalarLike(c.Float("pad_value", 0), x)}));
}

/// A Prim or one-element constant argument's number.
double NumberArg(OpContext& c, int index) {
  double value = 0;
  rxt_ir_expr_t e = c.w.Resolve(c.arg(index));
  if (c.ir()->prim_value(c.w.reader, e, &value) == 1 || c.ir()->constant_value(c.w.reader, e, &value) == 1) {
    return value;
  }
  c.Fail("argument " + std::to_string(index) + " must be a known number");
}

void OneHot(OpContext& c) {
  int type = c.OnnxTypeOf(c.result());
  onnx::TensorProto values;
  values.set_data_type(type);
  values.add_dims(2);
  onnx::TensorProto off = GraphWriter::ScalarProto(NumberArg(c, 2), type);
  onnx::TensorProto on = GraphWriter::ScalarProto(NumberArg(c, 1), type);
  values.MergeFrom(off);
  values.MergeFrom(on);  // repeated fields append: [off, on]
  values.clear_dims();
  values.add_dims(2);
  std::string values_name = c.w.Constant(values, c.hint() + "_values");
  std::string depth = c.w.Int64s({c.Int("depth", 0)}, c.hint() + "_depth");
  c.Output(c.Op("OneHot", {c.input(0), depth, values_name}, {MakeAttribute("axis", c.Int("axis", -1))}));
}

/// zeros, ones: ConstantOfShape of the shape argument.
template <int kValue>
void Filled(OpContext& c) {
  std::string shape = c.w.ShapeTensor(c.w.ShapeDims(c.arg(0)), c.hint() + "_shape");
  c.Output(c.Op("ConstantOfShape", {shape},
                {MakeAttribute("value", GraphWriter::ScalarProto(kValue, c.OnnxTypeOf(c.result())))}));
}

/// zeros_like, ones_like: ConstantOfShape of Shape(x).
template <int kValue>
void FilledLike(OpContext& c) {
  c.Output(c.Op("ConstantOfShape", {c.Op("Shape", {c.input(0)})},
                {MakeAttribute("value", GraphWriter::ScalarProto(kValue, c.OnnxTypeOf(c.result())))}));
}

/// full, full_like: a known fill value is ConstantOfShape's; a tensor one is expanded.
void FullTo(OpContext& c, const std::string& shape) {
  rxt_ir_expr_t fill = c.w.Resolve(c.arg(1));
  double value = 0;
  int type = c.OnnxTypeOf(c.result());
  if (c.ir()->prim_value(c.w.reader, fill, &value) == 1 || c.ir()->constant_value(c.w.reader, fill, &value) == 1) {
    c.Output(c.Op("ConstantOfShape", {shape}, {MakeAttribute("value", GraphWriter::ScalarProto(value, type))}));
    return;
  }
  std::string scalar = c.w.Tensor(fill);
  if (c.DType(fill) != c.DType(c.result())) scalar = c.Op("Cast", {scalar}, {MakeAttribute("to", int64_t{type})});
  c.Output(c.Op("Expand", {scalar, shape}));
}

void Full(OpContext& c) { FullTo(c, c.w.ShapeTensor(c.w.ShapeDims(c.arg(0)), c.hint() + "_shape")); }
void FullLike(OpContext& c) { FullTo(c, c.Op("Shape", {c.input(0)})); }

}  // namespace

void AddShapeConverters(ConverterTable& t) {
  t["permute_dims"] = &PermuteDims;
  t["reshape"] = &Reshape;
  t["flatten"] = &Flatten;
  t["broadcast_to"] = &BroadcastTo;
  t["collapse_sum_to"] = &CollapseSumTo;
  t["expand_dims"] = &ExpandDims;
  t["squeeze"] = &Squeeze;
  t["concat"] = &Concat;
  t["split"] = &Split;
  t["strided_slice"] = &StridedSlice;
  t["take"] = &Take;
  t["pad"] = &Pad;
  t["one_hot"] = &OneHot;
  t["zeros"] = &Filled<0>;
  t["ones"] = &Filled<1>;
  t["zeros_like"] = &FilledLike<0>;
  t["ones_like"] = &FilledLike<1>;
  t["full"] = &Full;
  t["full_like"] = &FullLike;
}

}  // namespace rxt::export_onnx
