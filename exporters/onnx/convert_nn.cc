// Neural-network ops: convolutions, pooling, normalizations, dropout at inference, losses.
#include "converters.h"

namespace rxt::export_onnx {
namespace {

/// 1 or 2 ints (height, width) -> 2.
std::vector<int64_t> Pair(OpContext& c, const char* name, int64_t fallback) {
  std::vector<int64_t> v = c.Ints(name).value_or(std::vector<int64_t>{fallback, fallback});
  if (v.size() == 1) v.push_back(v[0]);
  if (v.size() != 2) c.Fail(std::string(name) + " must have 1 or 2 ints");
  return v;
}

/// rxt's padding (1: all sides; 2: top/bottom, left/right; 4: top, left, bottom, right) as
/// ONNX's pads [top, left, bottom, right].
std::vector<int64_t> Pads(OpContext& c) {
  std::vector<int64_t> p = c.Ints("padding").value_or(std::vector<int64_t>{0});
  if (p.size() == 1) return {p[0], p[0], p[0], p[0]};
  if (p.size() == 2) return {p[0], p[1], p[0], p[1]};
  if (p.size() == 4) return p;
  c.Fail("padding must have 1, 2 or 4 ints");
}

void RequireLayout(OpContext& c, const char* attr, const std::string& wanted) {
  std::string layout = c.String(attr, wanted);
  if (layout != wanted) c.Fail(std::string(attr) + " \"" + layout + "\" (ONNX takes " + wanted + " only)");
}

std::vector<int64_t> KernelShape(OpContext& c, rxt_ir_expr_t weight) {
  std::vector<Dim> dims = c.Dims(weight);
  if (dims.size() != 4 || !dims[2].known || !dims[3].known) c.Fail("a weight without a known 4-D shape");
  return {dims[2].value, dims[3].value};
}

void Conv2d(OpContext& c) {
  RequireLayout(c, "data_layout", "NCHW");
  RequireLayout(c, "kernel_layout", "OIHW");
  std::string out = c.Op("Conv", {c.input(0), c.input(1)},
                         {MakeAttribute("strides", Pair(c, "strides", 1)), MakeAttribute("pads", Pads(c)),
                          MakeAttribute("dilations", Pair(c, "dilation", 1)), MakeAttribute("group", c.Int("groups", 1)),
                          MakeAttribute("kernel_shape", KernelShape(c, c.arg(1)))});
  if (c.DType(c.result()) != c.DType(c.arg(0))) {
    out = c.Op("Cast", {out}, {MakeAttribute("to", int64_t{c.OnnxTypeOf(c.result())})});
  }
  c.Output(out);
}

void Conv2dTranspose(OpContext& c) {
  RequireLayout(c, "data_layout", "NCHW");
  RequireLayout(c, "kernel_layout", "IOHW");
  std::string out =
      c.Op("ConvTranspose", {c.input(0), c.input(1)},
           {MakeAttribute("strides", Pair(c, "strides", 1)), MakeAttribute("pads", Pads(c)),
            MakeAttribute("output_padding", Pair(c, "output_padding", 0)), MakeAttribute("dilations", Pair(c, "dilation", 1)),
            MakeAttribute("group", c.Int("groups", 1)), MakeAttribute("kernel_shape", KernelShape(c, c.arg(1)))});
  if (c.DType(c.result()) != c.DType(c.arg(0))) {
    out = c.Op("Cast", {out}, {MakeAttribute("to", int64_t{c.OnnxTypeOf(c.result())})});
  }
  c.Output(out);
}

void MaxPool2d(OpContext& c) {
  RequireLayout(c, "layout", "NCHW");
  c.Output(c.Op("MaxPool", {c.input(0)},
                {MakeAttribute("kernel_shape", Pair(c, "pool_size", 1)), MakeAttribute("strides", Pair(c, "strides", 1)),
                 MakeAttribute("pads", Pads(c)), MakeAttribute("dilations", Pair(c, "dilation", 1)),
                 MakeAttribute("ceil_mode", int64_t{c.Bool("ceil_mode", false)})}));
}

void AvgPool2d(OpContext& c) {
  RequireLayout(c, "layout", "NCHW");
  if (Pair(c, "dilation", 1) != std::vector<int64_t>{1, 1}) c.Fail("dilation (ONNX's AveragePool has none before opset 19)");
  c.Output(c.Op("AveragePool", {c.input(0)},
                {MakeAttribute("kernel_shape", Pair(c, "pool_size", 1)), MakeAttribute("strides", Pair(c, "strides", 1)),
                 MakeAttribute("pads", Pads(c)), MakeAttribute("ceil_mode", int64_t{c.Bool("ceil_mode", false)}),
                 MakeAttribute("count_include_pad", int64_t{c.Bool("count_include_pad", false)})}));
}

/// To 1x1: GlobalAveragePool; to a size that divides the input's: AveragePool with equal
/// windows; the input's own size: nothing.
void AdaptiveAvgPool2d(OpContext& c) {
  RequireLayout(c, "layout", "NCHW");
  std::vector<Dim> in = c.Dims(c.arg(0));
  std::optional<std::vector<int64_t>> out = c.Ints("output_size");
  if (!out) {
    c.Output(c.Op("Identity", {c.input(0)}));
    return;
  }
  if (out->size() == 1) out->push_back((*out)[0]);
  if (*out == std::vector<int64_t>{1, 1}) {
    c.Output(c.Op("GlobalAveragePool", {c.input(0)}));
    return;
  }
  if (in.size() != 4 || !in[2].known || !in[3].known || in[2].value % (*out)[0] != 0 || in[3].value % (*out)[1] != 0) {
    c.Fail("an output size that does not divide the input's (ONNX has no adaptive pooling)");
  }
  std::vector<int64_t> window = {in[2].value / (*out)[0], in[3].value / (*out)[1]};
  c.Output(c.Op("AveragePool", {c.input(0)}, {MakeAttribute("kernel_shape", window), MakeAttribute("strides", window)}));
}

/// At inference: (out, moving_mean, moving_var) with the statistics passed through.
void BatchNorm(OpContext& c) {
  if (c.Bool("training", true)) c.Fail("training=true (export a backbone, which exports at inference)");
  if (NormalizeAxis(c.Int("axis", 1), c.NDim(c.arg(0))) != 1) c.Fail("a channel axis other than 1");
  std::string out = c.Op("BatchNormalization", {c.input(0), c.input(1), c.input(2), c.input(3), c.input(4)},
                         {MakeAttribute("epsilon", static_cast<float>(c.Float("epsilon", 1e-5))),
                          MakeAttribute("momentum", static_cast<float>(1.0 - c.Float("momentum", 0.1)))});
  c.OutputTuple({out, c.input(3), c.input(4)});
}

/// Over the trailing axes only, as ONNX's LayerNormalization.
void LayerNorm(OpContext& c) {
  int64_t ndim = c.NDim(c.arg(0));
  std::vector<int64_t> axes = c.Ints("axes").value_or(std::vector<int64_t>{});
  for (int64_t& a : axes) a = NormalizeAxis(a, ndim);
  std::sort(axes.begin(), axes.end());
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] != ndim - static_cast<int64_t>(axes.size() - i)) c.Fail("axes that are not the trailing ones");
  }
  if (axes.empty()) c.Fail("no axes");
  c.Output(c.Op("LayerNormalization", {c.input(0), c.input(1), c.input(2)},
                {MakeAttribute("axis", axes[0]), MakeAttribute("epsilon", static_cast<float>(c.Float("epsilon", 1e-5)))}));
}

/// Without a seed (inference): the identity, and a mask of ones.
void Dropout(OpContext& c) {
  if (c.num_args() > 1) c.Fail("a seed: training-mode dropout draws rxt's own mask (export at inference)");
  rxt_ir_expr_t x = c.arg(0);
  std::string out = c.Op("Identity", {c.input(0)});
  std::string mask = c.Op("ConstantOfShape", {c.Op("Shape", {c.input(0)})},
                          {MakeAttribute("value", GraphWriter::ScalarProto(1, c.OnnxTypeOf(x)))});
  c.OutputTuple({out, mask});
}

void NllLoss(OpContext& c) {
  std::vector<std::string> inputs = {c.input(0), c.input(1)};
  if (c.num_args() > 2 && c.ir()->is_tensor(c.w.reader, c.arg(2))) inputs.push_back(c.input(2));
  c.Output(c.Op("NegativeLogLikelihoodLoss", inputs,
                {MakeAttribute("reduction", c.String("reduction", "mean")), MakeAttribute("ignore_index", c.Int("ignore_index", -100))}));
}

/// -sum(labels * predictions) / N (N: the batch, 1 for 1-D predictions).
void CrossEntropyWithLogits(OpContext& c) {
  rxt_ir_expr_t predictions = c.arg(0);
  std::string total = c.Op("ReduceSum", {c.Op("Mul", {c.input(0), c.input(1)})}, {MakeAttribute("keepdims", int64_t{0})});
  std::string negated = c.Op("Neg", {total});
  std::vector<Dim> dims = c.Dims(predictions);
  if (dims.size() == 1) {
    c.Output(negated);
    return;
  }
  std::string n;
  if (dims[0].known) {
    n = c.ScalarLike(static_cast<double>(dims[0].value), predictions);
  } else {
    std::string batch = c.Op("Squeeze", {c.w.SymbolTensor(dims[0].text), c.w.Int64s({0}, c.hint() + "_axes")});
    n = c.Op("Cast", {batch}, {MakeAttribute("to", int64_t{c.OnnxTypeOf(predictions)})});
  }
  c.Output(c.Op("Div", {negated, n}));
}

}  // namespace

void AddNNConverters(ConverterTable& t) {
  t["nn.conv2d"] = &Conv2d;
  t["nn.conv2d_transpose"] = &Conv2dTranspose;
  t["nn.max_pool2d"] = &MaxPool2d;
  t["nn.avg_pool2d"] = &AvgPool2d;
  t["nn.adaptive_avg_pool2d"] = &AdaptiveAvgPool2d;
  t["nn.batch_norm"] = &BatchNorm;
  t["nn.layer_norm"] = &LayerNorm;
  t["nn.dropout"] = &Dropout;
  t["nn.nll_loss"] = &NllLoss;
  t["nn.cross_entropy_with_logits"] = &CrossEntropyWithLogits;
}

}  // namespace rxt::export_onnx
