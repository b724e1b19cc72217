// Shape ops: Reshape, Flatten, Transpose, Squeeze/Unsqueeze, Concat, Split, Slice, Gather,
// Expand, Tile, Pad, ConstantOfShape. Shapes, axes and bounds must be known at import time
// (folding computes most of them); shapes may hold symbolic dims.
#include <algorithm>
#include <limits>

#include "convert_util.h"
#include "converters.h"
#include "tensor_data.h"

namespace rxt::import_onnx {
namespace {

bool IsNumber(const std::string& text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
}

/// The dims of a reshape of |in| to |shape| with its -1 worked out, where ONNX's inference gives
/// up on a symbolic input (Reshape(n x 3 x 2, [-1, 2]) is n * 3 x 2, not unk__0): the input's
/// symbolic dims times the ratio of its static dims to the other output dims, when that divides.
std::optional<std::vector<Dim>> ReshapedDims(const TypeInfo& in, const std::vector<std::string>& shape) {
  if (!in.has_shape) return std::nullopt;
  std::vector<std::string> symbols;
  int64_t in_static = 1, out_static = 1;
  for (const Dim& d : in.dims) {
    if (!d.is_known() || d.symbol.rfind("unk__", 0) == 0) return std::nullopt;
    if (d.is_static()) {
      in_static *= d.value;
      continue;
    }
    if (d.symbol.find_first_of("+-/()") != std::string::npos) return std::nullopt;  // products only
    for (size_t begin = 0; begin <= d.symbol.size();) {  // the factors of "3 * batch"
      size_t end = d.symbol.find('*', begin);
      if (end == std::string::npos) end = d.symbol.size();
      std::string factor = d.symbol.substr(begin, end - begin);
      factor.erase(0, factor.find_first_not_of(' '));
      factor.erase(factor.find_last_not_of(' ') + 1);
      if (IsNumber(factor)) in_static *= std::stoll(factor);
      else if (!factor.empty()) symbols.push_back(factor);
      begin = end + 1;
    }
  }
  int inferred = -1;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == "-1") inferred = static_cast<int>(k);
    else if (IsNumber(shape[k])) out_static *= std::stoll(shape[k]);
    else return std::nullopt;  // a symbolic target dim: ONNX's inference had it already
  }
  if (inferred < 0 || out_static == 0 || in_static % out_static != 0) return std::nullopt;
  std::vector<Dim> dims;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (static_cast<int>(k) != inferred) {
      dims.push_back(Dim{std::stoll(shape[k]), ""});
      continue;
    }
    const int64_t ratio = in_static / out_static;
    if (symbols.empty()) {
      dims.push_back(Dim{ratio, ""});
      continue;
    }
    if (ratio != 1) symbols.push_back(std::to_string(ratio));
    dims.push_back(Dim{-1, Product(symbols)});
  }
  return dims;
}

void Reshape(NodeContext& ctx) {
  std::string x = ctx.expr(0);
  if (ctx.constant(1) == nullptr) {
    std::optional<std::vector<std::string>> dims = OutputDims(ctx, 0);
    if (!dims) ctx.unsupported("Reshape to a shape computed at run time");
    return ctx.set_output(0, Call("reshape", {x, ShapeExpr(*dims)}));
  }
  std::vector<std::string> shape = ctx.dims_input(1, "shape");
  const bool allowzero = ctx.attr_int("allowzero", 0) != 0;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == "0" && !allowzero) {
      std::vector<std::string> in = DimTexts(ctx, 0);
      if (k >= in.size()) ctx.fail("shape copies dim " + std::to_string(k) + " that the input lacks");
      shape[k] = in[k];
    }
  }
  ctx.set_output(0, Call("reshape", {x, ShapeExpr(shape)}));
  if (std::optional<std::vector<Dim>> dims = ReshapedDims(ctx.type(0), shape)) ctx.set_output_dims(0, *dims);
}

void Flatten(NodeContext& ctx) {
  std::vector<std::string> dims = DimTexts(ctx, 0);
  const int64_t rank = static_cast<int64_t>(dims.size());
  int64_t axis = ctx.attr_int("axis", 1);
  if (axis < -rank || axis > rank) ctx.fail("axis " + std::to_string(axis) + " is out of range");
  if (axis < 0) axis += rank;
  std::vector<std::string> outer(dims.begin(), dims.begin() + axis), inner(dims.begin() + axis, dims.end());
  ctx.set_output(0, Call("reshape", {ctx.expr(0), ShapeExpr({Product(outer), Product(inner)})}));
}

void Transpose(NodeContext& ctx) {
  const int rank = ctx.rank(0);
  std::vector<int64_t> perm;
  for (int k = rank - 1; k >= 0; --k) perm.push_back(k);
  perm = ctx.attr_ints("perm", perm);
  ctx.set_output(0, Call("permute_dims", {ctx.expr(0)}, "axes=" + IntList(perm)));
}

void Squeeze(NodeContext& ctx) {
  if (!ctx.has_input(1)) return ctx.set_output(0, Call("squeeze", {ctx.expr(0)}));
  const int rank = ctx.rank(0);
  std::vector<int64_t> axes = ctx.ints(1, "axes");
  for (int64_t& a : axes) a = NormalizeAxis(ctx, a, rank);
  ctx.set_output(0, Call("squeeze", {ctx.expr(0)}, "axis=" + IntList(axes)));
}

void Unsqueeze(NodeContext& ctx) {
  std::vector<int64_t> axes = ctx.ints(1, "axes");
  const int64_t out_rank = ctx.rank(0) + static_cast<int64_t>(axes.size());
  for (int64_t& a : axes) a = NormalizeAxis(ctx, a, out_rank);
  std::sort(axes.begin(), axes.end());
  ctx.set_output(0, Call("expand_dims", {ctx.expr(0)}, "axis=" + IntList(axes)));
}

void Concat(NodeContext& ctx) {
  std::vector<std::string> parts;
  for (int i = 0; i < ctx.num_inputs(); ++i) parts.push_back(ctx.expr(i));
  const int64_t axis = NormalizeAxis(ctx, ctx.attr_int("axis", 0), ctx.rank(0));
  std::string tuple = parts.size() == 1 ? "(" + parts[0] + ",)" : "(" + Join(parts) + ")";
  ctx.set_output(0, Call("concat", {tuple}, "axis=" + std::to_string(axis)));
}

void Split(NodeContext& ctx) {
  const int64_t axis = NormalizeAxis(ctx, ctx.attr_int("axis", 0), ctx.rank(0));
  std::string attrs;
  if (ctx.has_input(1)) {
    std::vector<int64_t> sizes = ctx.ints(1, "split"), cuts;
    if (sizes.size() != static_cast<size_t>(ctx.num_outputs())) ctx.fail("split has " + std::to_string(sizes.size()) + " sizes for " + std::to_string(ctx.num_outputs()) + " outputs");
    int64_t at = 0;
    for (size_t k = 0; k + 1 < sizes.size(); ++k) cuts.push_back(at += sizes[k]);
    attrs = "indices=" + IntList(cuts);
  } else {
    attrs = "sections=" + std::to_string(ctx.num_outputs());
  }
  std::string parts = ctx.bind(Call("split", {ctx.expr(0)}, attrs + ", axis=" + std::to_string(axis)));
  for (int k = 0; k < ctx.num_outputs(); ++k) ctx.set_output(k, parts + "[" + std::to_string(k) + "]");
}

void Slice(NodeContext& ctx) {
  SliceSpec s = ReadSlice(ctx, ctx.rank(0));
  constexpr int64_t kBig = std::numeric_limits<int32_t>::max();  // strided_slice: "to the end"
  for (size_t k = 0; k < s.starts.size(); ++k) {
    const Dim& dim = ctx.type(0).dims[s.axes[k]];
    if (dim.is_static()) {
      // Written so that Python slicing (strided_slice) reads them as ONNX does: a negative step
      // that runs past index 0 ends at -(dim + 1).
      auto [start, end] = ClampSlice(s.starts[k], s.ends[k], s.steps[k], dim.value);
      s.starts[k] = start < 0 ? -(dim.value + 1) : start;
      s.ends[k] = end < 0 ? -(dim.value + 1) : end;
    } else {
      s.starts[k] = std::clamp<int64_t>(s.starts[k], -kBig, kBig);
      s.ends[k] = std::clamp<int64_t>(s.ends[k], -kBig, kBig);
    }
  }
  ctx.set_output(0, Call("strided_slice", {ctx.expr(0)},
                         "axes=" + IntList(s.axes) + ", begin=" + IntList(s.starts) + ", end=" + IntList(s.ends) +
                             ", strides=" + IntList(s.steps)));
}

void Expand(NodeContext& ctx) {
  std::optional<std::vector<std::string>> dims = OutputDims(ctx, 0);
  if (!dims) {
    // ONNX's Expand broadcasts both ways: the result is the broadcast of the two shapes.
    std::vector<std::string> in = DimTexts(ctx, 0), shape = ctx.dims_input(1, "shape");
    const size_t rank = std::max(in.size(), shape.size());
    dims = std::vector<std::string>(rank);
    for (size_t k = 0; k < rank; ++k) {
      const std::string a = k + in.size() >= rank ? in[k + in.size() - rank] : "1";
      const std::string b = k + shape.size() >= rank ? shape[k + shape.size() - rank] : "1";
      (*dims)[k] = a == "1" ? b : a;
    }
  }
  ctx.set_output(0, Call("broadcast_to", {ctx.expr(0), ShapeExpr(*dims)}));
}

void Tile(NodeContext& ctx) {
  std::vector<std::string> dims = DimTexts(ctx, 0);
  std::vector<int64_t> repeats = ctx.ints(1, "repeats");
  if (repeats.size() != dims.size()) ctx.fail("repeats has " + std::to_string(repeats.size()) + " entries for rank " + std::to_string(dims.size()));
  // (d0, d1) -> (1, d0, 1, d1) -> broadcast (r0, d0, r1, d1) -> (r0 * d0, r1 * d1).
  std::vector<int64_t> new_axes;
  std::vector<std::string> spread, tiled;
  for (size_t k = 0; k < dims.size(); ++k) {
    new_axes.push_back(static_cast<int64_t>(2 * k));
    spread.push_back(std::to_string(repeats[k]));
    spread.push_back(dims[k]);
    tiled.push_back(Product({std::to_string(repeats[k]), dims[k]}));
  }
  std::string x = ctx.bind(Call("expand_dims", {ctx.expr(0)}, "axis=" + IntList(new_axes)));
  std::string wide = ctx.bind(Call("broadcast_to", {x, ShapeExpr(spread)}));
  ctx.set_output(0, Call("reshape", {wide, ShapeExpr(tiled)}));
}

/// The source index of each position of an axis of |n| padded by (|before|, |after|) in mode
/// edge (the nearest end) or reflect (mirrored about the ends, which are not repeated, as
/// NumPy's reflect); negative pads crop.
std::vector<int64_t> PadIndices(NodeContext& ctx, const std::string& mode, int64_t n, int64_t before, int64_t after) {
  if (n > kMaxStaticElements) ctx.unsupported("Pad in mode " + mode + " along an axis of more than 2^40 elements");
  const int64_t out = n + before + after;  // no overflow: each term is within 2^40
  if (out < 0) ctx.fail("pads crop more than the axis holds");
  if (static_cast<size_t>(out) > kMaxFoldedElements) ctx.unsupported("Pad in mode " + mode + " to an axis over 65536 elements");
  if (n == 0 && out > 0) ctx.fail("an empty axis cannot be padded in mode " + mode);
  std::vector<int64_t> indices(out);
  for (int64_t i = 0; i < out; ++i) {
    int64_t src = i - before;
    if (mode == "edge" || n == 1) {
      src = std::clamp<int64_t>(src, 0, n - 1);
    } else {
      const int64_t period = 2 * (n - 1);  // reflect: the pattern 0 1 .. n-1 n-2 .. 1 repeats
      src = ((src % period) + period) % period;
      if (src >= n) src = period - src;
    }
    indices[i] = src;
  }
  return indices;
}

void Pad(NodeContext& ctx) {
  const std::string mode = ctx.attr_string("mode", "constant");
  if (mode != "constant" && mode != "edge" && mode != "reflect") ctx.fail("unknown mode \"" + mode + "\"");
  std::vector<int64_t> pads = ctx.ints(1, "pads");
  const int rank = ctx.rank(0);
  if (pads.size() != static_cast<size_t>(2 * rank)) ctx.fail("pads has " + std::to_string(pads.size()) + " entries for rank " + std::to_string(rank));
  for (int64_t p : pads) {
    if (p > kMaxStaticElements || p < -kMaxStaticElements) ctx.fail("a pad of " + std::to_string(p) + " is out of range");
  }
  std::string x = ctx.expr(0);
  if (mode != "constant") {
    for (int k = 0; k < rank; ++k) {
      if (pads[k] == 0 && pads[rank + k] == 0) continue;
      const Dim& dim = ctx.type(0).dims[k];
      if (!dim.is_static()) ctx.unsupported("Pad in mode " + mode + " along a dim that is not static");
      std::vector<int64_t> indices = PadIndices(ctx, mode, dim.value, pads[k], pads[rank + k]);
      const int64_t count = static_cast<int64_t>(indices.size());
      x = ctx.bind(Call("take", {x, ctx.constant_expr(MakeIntConstant(std::move(indices), {count}))}, "axis=" + std::to_string(k)));
    }
    return ctx.set_output(0, x);
  }
  // Negative pads crop first (a slice), then the rest pads with the value.
  std::vector<int64_t> widths;
  for (int k = 0; k < rank; ++k) {
    if (pads[k] < 0 || pads[rank + k] < 0) {
      const Dim& dim = ctx.type(0).dims[k];
      if (!dim.is_static()) ctx.unsupported("Pad cropping a dim that is not static");
      const int64_t begin = std::max<int64_t>(0, -pads[k]), end = dim.value - std::max<int64_t>(0, -pads[rank + k]);
      if (end < begin) ctx.fail("pads crop more than axis " + std::to_string(k) + " holds");
      x = ctx.bind(Call("strided_slice", {x}, "axes=[" + std::to_string(k) + "], begin=[" + std::to_string(begin) +
                                                   "], end=[" + std::to_string(end) + "], strides=[1]"));
    }
    widths.push_back(std::max<int64_t>(0, pads[k]));
    widths.push_back(std::max<int64_t>(0, pads[rank + k]));
  }
  double value = ctx.has_input(2) ? ctx.scalar(2, "constant_value") : 0.0;
  ctx.set_output(0, Call("pad", {x}, "pad_width=" + IntList(widths) + ", pad_value=" + NumberText(value, onnx::TensorProto::DOUBLE)));
}

/// DepthToSpace and SpaceToDepth on NCHW: a reshape, a transpose and a reshape.
void DepthToSpace(NodeContext& ctx) {
  std::vector<std::string> dims = DimTexts(ctx, 0);
  if (dims.size() != 4) ctx.fail("the input must be 4-D (NCHW)");
  std::vector<int64_t> chw = StaticDims(ctx, 0);
  const int64_t b = ctx.attr_int("blocksize", 0), c = chw[1], h = chw[2], w = chw[3];
  if (b <= 0 || c % (b * b) != 0) ctx.fail("blocksize " + std::to_string(b) + " does not divide the channels");
  const std::string n = dims[0], cb = std::to_string(c / (b * b)), bs = std::to_string(b);
  const bool crd = ctx.attr_string("mode", "DCR") == "CRD";
  std::vector<std::string> split = crd ? std::vector<std::string>{n, cb, bs, bs, std::to_string(h), std::to_string(w)}
                                       : std::vector<std::string>{n, bs, bs, cb, std::to_string(h), std::to_string(w)};
  std::string perm = crd ? "[0, 1, 4, 2, 5, 3]" : "[0, 3, 4, 1, 5, 2]";
  std::string x = ctx.bind(Call("reshape", {ctx.expr(0), ShapeExpr(split)}));
  std::string t = ctx.bind(Call("permute_dims", {x}, "axes=" + perm));
  ctx.set_output(0, Call("reshape", {t, ShapeExpr({n, cb, std::to_string(h * b), std::to_string(w * b)})}));
}

void SpaceToDepth(NodeContext& ctx) {
  std::vector<std::string> dims = DimTexts(ctx, 0);
  if (dims.size() != 4) ctx.fail("the input must be 4-D (NCHW)");
  std::vector<int64_t> chw = StaticDims(ctx, 0);
  const int64_t b = ctx.attr_int("blocksize", 0), c = chw[1], h = chw[2], w = chw[3];
  if (b <= 0 || h % b != 0 || w % b != 0) ctx.fail("blocksize " + std::to_string(b) + " does not divide the height and width");
  const std::string n = dims[0], bs = std::to_string(b);
  std::string x = ctx.bind(Call("reshape", {ctx.expr(0), ShapeExpr({n, std::to_string(c), std::to_string(h / b), bs,
                                                                   std::to_string(w / b), bs})}));
  std::string t = ctx.bind(Call("permute_dims", {x}, "axes=[0, 3, 5, 1, 2, 4]"));
  ctx.set_output(0, Call("reshape", {t, ShapeExpr({n, std::to_string(c * b * b), std::to_string(h / b), std::to_string(w / b)})}));
}

void ConstantOfShape(NodeContext& ctx) {
  std::vector<std::string> dims = ctx.dims_input(0, "shape");
  Constant fill;
  fill.dtype = onnx::TensorProto::FLOAT;
  fill.floats = {0.0};
  if (const onnx::AttributeProto* a = ctx.find_attr("value")) fill = ConstantFromTensor(a->t(), "");
  if (fill.size() != 1) ctx.fail("value must hold one element");
  fill.shape.clear();
  const char* dtype = RxtDType(fill.dtype);
  ctx.set_output(0, Call("full", {ShapeExpr(dims), "const(" + ConstantDataText(fill) + ", " + dtype + ")"},
                         std::string("dtype=") + dtype));
}

void Size(NodeContext& ctx) {
  std::vector<std::string> dims = DimTexts(ctx, 0);
  std::string n = Product(dims);
  if (!std::isdigit(static_cast<unsigned char>(n[0])) || n.find(' ') != std::string::npos) {
    ctx.unsupported("Size of a value with symbolic dims");
  }
  ctx.set_output_constant(0, MakeIntConstant({std::stoll(n)}, {}));
}

/// Ops the folder computes; reaching the converter means their inputs are not known.
void NeedsKnownInputs(NodeContext& ctx) { ctx.unsupported(ctx.op() + " of values known only at run time"); }

}  // namespace

void AddShapeConverters(ConverterMap& map) {
  map["Reshape"] = &Reshape;
  map["Flatten"] = &Flatten;
  map["Transpose"] = &Transpose;
  map["Squeeze"] = &Squeeze;
  map["Unsqueeze"] = &Unsqueeze;
  map["Concat"] = &Concat;
  map["Split"] = &Split;
  map["Slice"] = &Slice;
  map["DepthToSpace"] = &DepthToSpace;
  map["SpaceToDepth"] = &SpaceToDepth;
  map["Expand"] = &Expand;
  map["Tile"] = &Tile;
  map["Pad"] = &Pad;
  map["ConstantOfShape"] = &ConstantOfShape;
  map["Size"] = &Size;
  map["Constant"] = &NeedsKnownInputs;
  map["Shape"] = &NeedsKnownInputs;
  map["Range"] = &NeedsKnownInputs;
}

}  // namespace rxt::import_onnx
