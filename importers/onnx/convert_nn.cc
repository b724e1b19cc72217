// Neural-network ops: MatMul, Gemm, convolutions, pooling, normalizations, softmax, Dropout,
// the losses. 1-D convolution and pooling run as 2-D ones over a height of 1; 3-D ones as
// 2-D ones per depth tap (convert_volume.cc).
#include <limits>

#include "convert_util.h"
#include "converters.h"
#include "tensor_data.h"

namespace rxt::import_onnx {
namespace {

void MatMul(NodeContext& ctx) { ctx.set_output(0, Call("matmul", {ctx.expr(0), ctx.expr(1)})); }

void Gemm(NodeContext& ctx) {
  const float alpha = ctx.attr_float("alpha", 1), beta = ctx.attr_float("beta", 1);
  const bool trans_a = ctx.attr_int("transA", 0) != 0, trans_b = ctx.attr_int("transB", 0) != 0;
  std::string a = ctx.expr(0), b = ctx.expr(1);
  if (trans_a) a = ctx.bind(Call("permute_dims", {a}, "axes=[1, 0]"));
  // transB is PyTorch's Linear layout: linear keeps the weight as stored (one GEMM, no transpose).
  std::string product = trans_b ? Call("linear", {a, b}) : Call("matmul", {a, b});
  if (alpha != 1) product = Call("multiply", {ctx.bind(product), ctx.scalar_const(alpha, ctx.dtype(0))});
  if (!ctx.has_input(2) || beta == 0) return ctx.set_output(0, product);
  std::string c = ctx.expr(2);
  if (beta != 1) c = ctx.bind(Call("multiply", {c, ctx.scalar_const(beta, ctx.dtype(2))}));
  ctx.set_output(0, Call("add", {ctx.bind(product), c}));
}

/// Spatial attributes of a convolution or pooling over 1 or 2 spatial dims, as 2-D ones.
struct Window {
  int spatial = 2;                    // 1 or 2: ONNX's spatial rank
  std::vector<int64_t> kernel;        // 2 ints
  std::vector<int64_t> strides;       // 2 ints
  std::vector<int64_t> dilations;     // 2 ints
  std::vector<int64_t> pads;          // 4 ints: top, left, bottom, right
};

/// The window of |ctx|'s node over 1 or 2 spatial dims, as a 2-D one.
Window WindowOf(NodeContext& ctx, std::vector<int64_t> kernel_dims) {
  const int spatial = static_cast<int>(kernel_dims.size());
  if (spatial != 1 && spatial != 2) ctx.unsupported(ctx.op() + " over " + std::to_string(spatial) + " spatial dims");
  auto [kernel, strides, dilations, pads] = NdWindowOf(ctx, kernel_dims);
  Window w;
  w.spatial = spatial;
  if (spatial == 1) {
    w.kernel = {1, kernel[0]};
    w.strides = {1, strides[0]};
    w.dilations = {1, dilations[0]};
    w.pads = {0, pads[0], 0, pads[1]};
  } else {
    w.kernel = kernel;
    w.strides = strides;
    w.dilations = dilations;
    w.pads = pads;
  }
  return w;
}

/// The spatial dims of input |i| (static), from its inferred shape.
std::vector<int64_t> KernelDims(NodeContext& ctx, int i) {
  const TypeInfo& t = ctx.type(i);
  if (!t.has_shape || t.rank() < 3) ctx.unsupported(ctx.op() + " with a weight of unknown shape");
  std::vector<int64_t> dims;
  for (int k = 2; k < t.rank(); ++k) {
    if (!t.dims[k].is_static()) ctx.unsupported(ctx.op() + " with a kernel of non-static size");
    dims.push_back(t.dims[k].value);
  }
  return dims;
}

/// Input |i| with a height of 1 inserted for 1-D windows (axis 2).
std::string As2D(NodeContext& ctx, const Window& w, const std::string& x) {
  return w.spatial == 1 ? ctx.bind(Call("expand_dims", {x}, "axis=[2]")) : x;
}

/// Adds a per-channel bias (input |i|) to an NCHW result, and drops the height of 1 again.
void FinishConv(NodeContext& ctx, const Window& w, std::string y, int bias_input) {
  if (w.spatial == 1) y = ctx.bind(Call("squeeze", {y}, "axis=[2]"));
  if (!ctx.has_input(bias_input)) return ctx.set_output(0, y);
  std::vector<int64_t> axes;
  for (int k = 0; k < w.spatial; ++k) axes.push_back(1 + k);
  std::string bias = ctx.bind(Call("expand_dims", {ctx.expr(bias_input)}, "axis=" + IntList(axes)));
  ctx.set_output(0, Call("add", {ctx.bind(y), bias}));
}

std::string WindowAttrs(const Window& w) {
  return "strides=" + IntList(w.strides) + ", padding=" + IntList(w.pads) + ", dilation=" + IntList(w.dilations);
}

void Conv(NodeContext& ctx) {
  const std::vector<int64_t> kernel = ctx.has_attr("kernel_shape") ? ctx.attr_ints("kernel_shape", {}) : KernelDims(ctx, 1);
  if (ConvertVolume(ctx, kernel)) return;
  Window w = WindowOf(ctx, kernel);
  std::string x = As2D(ctx, w, ctx.expr(0)), weight = As2D(ctx, w, ctx.expr(1));
  std::string y = Call("nn.conv2d", {x, weight},
                       WindowAttrs(w) + ", groups=" + std::to_string(ctx.attr_int("group", 1)));
  FinishConv(ctx, w, y, 2);
}

void ConvTranspose(NodeContext& ctx) {
  std::vector<int64_t> kernel = ctx.has_attr("kernel_shape") ? ctx.attr_ints("kernel_shape", {}) : KernelDims(ctx, 1);
  const int spatial = static_cast<int>(kernel.size());
  const std::string auto_pad = ctx.attr_string("auto_pad", "NOTSET");
  std::vector<int64_t> output_padding = ctx.attr_ints("output_padding", std::vector<int64_t>(spatial, 0));
  std::vector<int64_t> strides = ctx.attr_ints("strides", std::vector<int64_t>(spatial, 1));
  std::vector<int64_t> dilations = ctx.attr_ints("dilations", std::vector<int64_t>(spatial, 1));
  std::vector<int64_t> pads = ctx.attr_ints("pads", std::vector<int64_t>(2 * spatial, 0));
  if (output_padding.size() != size_t(spatial) || strides.size() != size_t(spatial) || dilations.size() != size_t(spatial) ||
      pads.size() != size_t(2 * spatial)) {
    ctx.fail("strides, dilations, pads or output_padding do not match the spatial dims");
  }
  if (ctx.has_attr("output_shape") || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    // The pads follow from the wanted output size (ONNX's formula).
    const TypeInfo& x = ctx.type(0);
    std::vector<int64_t> wanted = ctx.attr_ints("output_shape", {});
    if (wanted.size() == size_t(spatial) + 2) wanted.erase(wanted.begin(), wanted.begin() + 2);
    for (int k = 0; k < spatial; ++k) {
      const Dim& in = x.has_shape && x.rank() == spatial + 2 ? x.dims[2 + k] : Dim{};
      if (!in.is_static()) ctx.unsupported("ConvTranspose with output_shape or auto_pad on non-static spatial dims");
      const int64_t out = wanted.empty() ? in.value * strides[k] : wanted[k];
      const int64_t total = strides[k] * (in.value - 1) + output_padding[k] + (kernel[k] - 1) * dilations[k] + 1 - out;
      if (total < 0) ctx.unsupported("ConvTranspose whose output_shape needs more output padding than the stride");
      const bool upper = auto_pad == "SAME_UPPER";
      pads[k] = upper ? total / 2 : total - total / 2;
      pads[spatial + k] = total - pads[k];
    }
  } else if (auto_pad == "VALID") {
    pads.assign(2 * spatial, 0);
  }
  Window w;
  if (spatial == 1) {
    w = Window{1, {1, kernel[0]}, {1, strides[0]}, {1, dilations[0]}, {0, pads[0], 0, pads[1]}};
    output_padding = {0, output_padding[0]};
  } else if (spatial == 2) {
    w = Window{2, kernel, strides, dilations, pads};
  } else {
    ctx.unsupported("ConvTranspose over " + std::to_string(spatial) + " spatial dims");
  }
  std::string x = As2D(ctx, w, ctx.expr(0)), weight = As2D(ctx, w, ctx.expr(1));
  std::string y = Call("nn.conv2d_transpose", {x, weight},
                       WindowAttrs(w) + ", output_padding=" + IntList(output_padding) +
                           ", groups=" + std::to_string(ctx.attr_int("group", 1)));
  FinishConv(ctx, w, y, 2);
}

void Pool(NodeContext& ctx, const std::string& op) {
  if (ctx.has_output(1)) ctx.unsupported(ctx.op() + " with the Indices output");
  if (ctx.attr_int("storage_order", 0) != 0) ctx.unsupported(ctx.op() + " with storage_order 1");
  if (ConvertVolume(ctx, ctx.attr_ints("kernel_shape", {}))) return;
  Window w = WindowOf(ctx, ctx.attr_ints("kernel_shape", {}));
  std::string attrs = "pool_size=" + IntList(w.kernel) + ", " + WindowAttrs(w) +
                      ", ceil_mode=" + (ctx.attr_int("ceil_mode", 0) != 0 ? "true" : "false");
  if (op == "nn.avg_pool2d") {
    attrs += std::string(", count_include_pad=") + (ctx.attr_int("count_include_pad", 0) != 0 ? "true" : "false");
  }
  std::string y = Call(op, {As2D(ctx, w, ctx.expr(0))}, attrs);
  if (w.spatial == 1) y = Call("squeeze", {ctx.bind(y)}, "axis=[2]");
  ctx.set_output(0, y);
}

void MaxPool(NodeContext& ctx) { Pool(ctx, "nn.max_pool2d"); }
void AveragePool(NodeContext& ctx) { Pool(ctx, "nn.avg_pool2d"); }

void GlobalPool(NodeContext& ctx, const std::string& op) {
  std::vector<int64_t> axes;
  for (int k = 2; k < ctx.rank(0); ++k) axes.push_back(k);
  ctx.set_output(0, Call(op, {ctx.expr(0)}, "axis=" + IntList(axes) + ", keepdims=true"));
}

void GlobalAveragePool(NodeContext& ctx) { GlobalPool(ctx, "mean"); }
void GlobalMaxPool(NodeContext& ctx) { GlobalPool(ctx, "max"); }

void BatchNormalization(NodeContext& ctx) {
  const float epsilon = ctx.attr_float("epsilon", 1e-5f), momentum = ctx.attr_float("momentum", 0.9f);
  const bool training_mode = ctx.attr_int("training_mode", 0) != 0;
  // Running statistics held in initializers become states when the import is for training.
  const bool stateful = !training_mode && ctx.options().training && ctx.is_initializer(3) && ctx.is_initializer(4) &&
                        !ctx.has_output(1) && !ctx.has_output(2);
  const bool batch_statistics = training_mode || stateful;
  // ONNX: running = running * momentum + batch * (1 - momentum), the population variance;
  // rxt's momentum weighs the batch. 1 - momentum from its decimal ("0.9" -> 0.1, not 0.10000002).
  const double batch_weight = 1.0 - std::stod(NumberText(momentum, onnx::TensorProto::FLOAT));
  std::string attrs = "axis=1, epsilon=" + NumberText(epsilon, onnx::TensorProto::FLOAT) +
                      ", momentum=" + NumberText(batch_weight, onnx::TensorProto::FLOAT) +
                      ", training=" + (batch_statistics ? "true" : "false") + ", unbiased_running_var=false";
  std::string bn = ctx.bind(
      Call("nn.batch_norm", {ctx.expr(0), ctx.expr(1), ctx.expr(2), ctx.expr(3), ctx.expr(4)}, attrs));
  ctx.set_output(0, bn + "[0]");
  if (training_mode) {
    ctx.set_output(1, bn + "[1]");
    ctx.set_output(2, bn + "[2]");
  } else if (stateful) {
    ctx.update_state(ctx.node().input(3), bn + "[1]");
    ctx.update_state(ctx.node().input(4), bn + "[2]");
  } else if (ctx.has_output(1) || ctx.has_output(2)) {
    ctx.unsupported("BatchNormalization with running-statistics outputs outside training mode");
  }
}

void LayerNormalization(NodeContext& ctx) {
  const int rank = ctx.rank(0);
  const int64_t axis = NormalizeAxis(ctx, ctx.attr_int("axis", -1), rank);
  std::vector<int64_t> axes;
  for (int64_t k = axis; k < rank; ++k) axes.push_back(k);
  const float epsilon = ctx.attr_float("epsilon", 1e-5f);
  std::string x = ctx.expr(0), scale = ctx.expr(1);
  std::string bias = ctx.has_input(2) ? ctx.expr(2) : ctx.bind(Call("zeros_like", {scale}));
  ctx.set_output(0, Call("nn.layer_norm", {x, scale, bias},
                         "axes=" + IntList(axes) + ", epsilon=" + NumberText(epsilon, onnx::TensorProto::FLOAT)));
  // The optional statistics: the mean and 1 / sqrt(variance + epsilon), kept as size-1 dims, in
  // the stash type (float32 unless stash_type says otherwise).
  auto stash = [&](const std::string& value, int k) {
    const char* want = RxtDType(ctx.output_type(k).dtype);
    return want != nullptr && want != ctx.dtype(0) ? Call("astype", {ctx.bind(value)}, std::string("dtype=") + want) : value;
  };
  const std::string reduce = "axis=" + IntList(axes) + ", keepdims=true";
  if (ctx.has_output(1)) ctx.set_output(1, stash(Call("mean", {x}, reduce), 1));
  if (ctx.has_output(2)) {
    std::string variance = ctx.bind(Call("variance", {x}, reduce));
    std::string shifted = ctx.bind(Call("add", {variance, ctx.scalar_const(epsilon, ctx.dtype(0))}));
    ctx.set_output(2, stash(Call("rsqrt", {shifted}), 2));
  }
}

/// (x - mean) / sqrt(variance + epsilon) over |axes|.
std::string Normalize(NodeContext& ctx, const std::string& x, const std::vector<int64_t>& axes, double epsilon) {
  const std::string reduce = "axis=" + IntList(axes) + ", keepdims=true";
  std::string centered = ctx.bind(Call("subtract", {x, ctx.bind(Call("mean", {x}, reduce))}));
  std::string variance = ctx.bind(Call("variance", {x}, reduce));
  std::string scale = ctx.bind(Call("rsqrt", {ctx.bind(Call("add", {variance, ctx.scalar_const(epsilon, ctx.dtype(0))}))}));
  return ctx.bind(Call("multiply", {centered, scale}));
}

void InstanceNormalization(NodeContext& ctx) {
  const int rank = ctx.rank(0);
  std::vector<int64_t> spatial, per_channel;
  for (int k = 2; k < rank; ++k) spatial.push_back(k);
  for (int k = 1; k + 1 < rank; ++k) per_channel.push_back(k);
  std::string normalized = Normalize(ctx, ctx.expr(0), spatial, ctx.attr_float("epsilon", 1e-5f));
  // scale and B are (C,): as (C, 1, ...) they broadcast over the spatial dims.
  std::string scale = ctx.bind(Call("expand_dims", {ctx.expr(1)}, "axis=" + IntList(per_channel)));
  std::string bias = ctx.bind(Call("expand_dims", {ctx.expr(2)}, "axis=" + IntList(per_channel)));
  ctx.set_output(0, Call("add", {ctx.bind(Call("multiply", {normalized, scale})), bias}));
}

void MeanVarianceNormalization(NodeContext& ctx) {
  std::vector<int64_t> axes = ctx.attr_ints("axes", {0, 2, 3});
  for (int64_t& a : axes) a = NormalizeAxis(ctx, a, ctx.rank(0));
  // ONNX's definition has no epsilon: (x - mean) / sqrt(variance).
  ctx.set_output(0, Normalize(ctx, ctx.expr(0), axes, 0.0));
}

void Hardmax(NodeContext& ctx) {
  const int rank = ctx.rank(0);
  const int64_t axis = NormalizeAxis(ctx, ctx.attr_int("axis", -1), rank);
  const Dim& depth = ctx.type(0).dims[axis];
  if (!depth.is_static()) ctx.unsupported("Hardmax along a non-static axis");
  std::string index = ctx.bind(Call("argmax", {ctx.expr(0)}, "axis=" + std::to_string(axis)));
  ctx.set_output(0, Call("one_hot", {index, PrimLiteral(1, ctx.dtype(0)), PrimLiteral(0, ctx.dtype(0))},
                         "depth=" + std::to_string(depth.value) + ", axis=" + std::to_string(axis)));
}

void Softmax(NodeContext& ctx) {
  ctx.set_output(0, Call(ctx.op() == "Softmax" ? "softmax" : "log_softmax", {ctx.expr(0)},
                         "axis=" + std::to_string(ctx.attr_int("axis", -1))));
}

/// Dropout. In a training import (the default) it drops at random, as PyTorch's train(): models
/// exported in eval mode carry it without training_mode (as their BatchNormalization has
/// training_mode 0), so neither the absence nor a false training_mode turns it off there;
/// nn.dropout with a per-step seed, and @predict makes it the identity. In an import for
/// inference it follows training_mode, and a true one with a non-zero ratio is refused (its
/// masks are random). The mask output is bool.
void Dropout(NodeContext& ctx) {
  auto ratio_of = [&ctx]() {
    const double ratio = ctx.has_input(1) ? ctx.required(1, "ratio").as_double(0) : 0.5;
    if (!(ratio >= 0 && ratio < 1)) ctx.fail("ratio " + std::to_string(ratio) + " is outside [0, 1)");
    return ratio;
  };
  std::string x = ctx.expr(0);
  const double ratio = ctx.options().training && ctx.options().dropout ? ratio_of() : 0.0;
  if (ratio > 0) {
    const std::string dt = ctx.dtype(0);
    if (dt != "float32" && dt != "float64" && dt != "float16") ctx.unsupported("Dropout of " + dt + " in training");
    std::string dropped = ctx.bind(Call("nn.dropout", {x, ctx.step_seed()}, "rate=" + NumberText(ratio, onnx::TensorProto::DOUBLE)));
    ctx.set_output(0, dropped + "[0]");
    if (ctx.has_output(1)) ctx.set_output(1, Call("astype", {dropped + "[1]"}, "dtype=bool"));
    return;
  }
  bool training = false;
  if (ctx.has_input(2)) training = ctx.required(2, "training_mode").as_double(0) != 0;
  if (training && ratio_of() != 0) ctx.unsupported("Dropout in training mode in an import for inference");
  ctx.set_output(0, x);
  if (ctx.has_output(1)) ctx.set_output(1, Call("astype", {Call("ones_like", {x})}, "dtype=bool"));
}

/// reduction and ignore_index of the loss ops, as nn.nll_loss's attributes.
std::string LossAttrs(NodeContext& ctx) {
  const std::string reduction = ctx.attr_string("reduction", "mean");
  if (reduction != "mean" && reduction != "sum" && reduction != "none") ctx.fail("unknown reduction '" + reduction + "'");
  std::string attrs = "reduction=\"" + reduction + "\"";
  // ONNX ignores nothing without ignore_index: a value no class index can take.
  attrs += ", ignore_index=" + std::to_string(ctx.attr_int("ignore_index", std::numeric_limits<int32_t>::min()));
  return attrs;
}

std::vector<std::string> LossArgs(NodeContext& ctx, const std::string& log_probabilities) {
  std::vector<std::string> args = {log_probabilities, ctx.expr(1)};
  if (ctx.has_input(2)) args.push_back(ctx.expr(2));
  return args;
}

void NegativeLogLikelihoodLoss(NodeContext& ctx) {
  ctx.set_output(0, Call("nn.nll_loss", LossArgs(ctx, ctx.expr(0)), LossAttrs(ctx)));
}

void SoftmaxCrossEntropyLoss(NodeContext& ctx) {
  std::string log_p = ctx.bind(Call("log_softmax", {ctx.expr(0)}, "axis=1"));
  ctx.set_output(0, Call("nn.nll_loss", LossArgs(ctx, log_p), LossAttrs(ctx)));
  if (ctx.has_output(1)) ctx.set_output(1, log_p);
}

}  // namespace

/// LRN across channels: y = x / (bias + alpha / size * sum of x^2 over the window of channels
/// [c - floor((size - 1) / 2), c + ceil((size - 1) / 2)])^beta, the window sum as the sum of
/// |size| shifted slices of the squares padded with zeros along the channels.
void LRN(NodeContext& ctx) {
  const int64_t size = ctx.attr_int("size", 0);
  if (size <= 0) ctx.fail("size must be positive");
  std::vector<std::string> dims = DimTexts(ctx, 0);
  if (dims.size() < 3) ctx.fail("the input must be at least 3-D (N, C, ...)");
  if (!ctx.type(0).dims[1].is_static()) ctx.unsupported("LRN over channels that are not static");
  const int64_t channels = ctx.type(0).dims[1].value;
  const std::string dt = ctx.dtype(0);
  std::string x = ctx.expr(0);
  std::string squares = ctx.bind(Call("multiply", {x, x}));
  std::vector<int64_t> widths(2 * dims.size(), 0);
  widths[2] = (size - 1) / 2;
  widths[3] = size / 2;  // ceil((size - 1) / 2)
  std::string padded = ctx.bind(Call("pad", {squares}, "pad_width=" + IntList(widths) + ", pad_value=0"));
  std::string window;
  for (int64_t k = 0; k < size; ++k) {
    std::string slice = ctx.bind(Call("strided_slice", {padded}, "axes=[1], begin=[" + std::to_string(k) + "], end=[" +
                                                                      std::to_string(k + channels) + "], strides=[1]"));
    window = window.empty() ? slice : ctx.bind(Call("add", {window, slice}));
  }
  const double alpha = ctx.attr_float("alpha", 1e-4f), beta = ctx.attr_float("beta", 0.75f), bias = ctx.attr_float("bias", 1.0f);
  std::string scaled = ctx.bind(Call("multiply", {window, ctx.scalar_const(alpha / static_cast<double>(size), dt)}));
  std::string base = ctx.bind(Call("add", {scaled, ctx.scalar_const(bias, dt)}));
  std::string denominator = ctx.bind(Call("power", {base, ctx.scalar_const(beta, dt)}));
  ctx.set_output(0, Call("divide", {x, denominator}));
}

void AddNNConverters(ConverterMap& map) {
  map["MatMul"] = &MatMul;
  map["Gemm"] = &Gemm;
  map["Conv"] = &Conv;
  map["ConvTranspose"] = &ConvTranspose;
  map["MaxPool"] = &MaxPool;
  map["AveragePool"] = &AveragePool;
  map["GlobalAveragePool"] = &GlobalAveragePool;
  map["GlobalMaxPool"] = &GlobalMaxPool;
  map["BatchNormalization"] = &BatchNormalization;
  map["LayerNormalization"] = &LayerNormalization;
  map["InstanceNormalization"] = &InstanceNormalization;
  map["MeanVarianceNormalization"] = &MeanVarianceNormalization;
  map["Hardmax"] = &Hardmax;
  map["Softmax"] = &Softmax;
  map["LogSoftmax"] = &Softmax;
  map["Dropout"] = &Dropout;
  map["LRN"] = &LRN;
  map["NegativeLogLikelihoodLoss"] = &NegativeLogLikelihoodLoss;
  map["SoftmaxCrossEntropyLoss"] = &SoftmaxCrossEntropyLoss;
}

}  // namespace rxt::import_onnx
