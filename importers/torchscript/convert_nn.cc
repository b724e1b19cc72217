// Neural-network aten ops: convolutions, dense layers and products, normalizations, pooling,
// dropout, softmax.
#include "converters.h"

namespace rxt::import_torchscript {
namespace {

/// A list attribute of |n| ints given as one int or a list of 1 or n.
std::vector<int64_t> Pair(NodeContext& ctx, int i, const std::string& what, size_t n) {
  std::vector<int64_t> v = ctx.ints(i, what);
  if (v.size() == 1) v.assign(n, v[0]);
  if (v.size() != n)
    ctx.unsupported(what + " of " + std::to_string(v.size()) + " values for " + std::to_string(n) + " spatial dims");
  return v;
}

/// The output size of a window over a static dim (PyTorch's formula, ceil_mode included).
Dim WindowOut(NodeContext& ctx, const Dim& in, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation,
              bool ceil_mode) {
  if (!in.is_static()) ctx.unsupported("a window over the symbolic dim " + in.symbol);
  constexpr int64_t kMax = int64_t(1) << 31;
  if (stride <= 0 || dilation <= 0 || kernel <= 0 || pad < 0)
    ctx.fail("has a kernel, stride or dilation below 1, or a negative padding");
  if (stride > kMax || dilation > kMax || kernel > kMax || pad > kMax || in.value > (int64_t(1) << 40)) {
    ctx.unsupported("a window or a dim beyond 2^31");
  }
  const int64_t span = in.value + 2 * pad - dilation * (kernel - 1) - 1;
  if (span < 0)
    ctx.fail("its window (" + std::to_string(kernel) + ") does not fit the input (" + std::to_string(in.value) +
             " with padding " + std::to_string(pad) + ")");
  int64_t out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
  if (ceil_mode && (out - 1) * stride >= in.value + pad) --out;
  return Dim::Static(out);
}

/// Inputs 0 and 1 (data and weight) of one dtype, as PyTorch requires.
void CheckSameDType(NodeContext& ctx) {
  if (ctx.dtype(0) != ctx.dtype(1))
    ctx.fail("the input is " + ctx.dtype(0) + " and the weight " + ctx.dtype(1) + " (is the input's dtype right?)");
}

/// _convolution, conv2d, conv1d; transposed when _convolution says so.
void Convolution(NodeContext& ctx) {
  CheckSameDType(ctx);
  const bool full = ctx.kind() == "aten::_convolution";
  const int rank = ctx.rank(0);
  if (rank != 4 && rank != 3)
    ctx.unsupported("convolution of a " + std::to_string(rank) + "-D input (1-D and 2-D are supported)");
  const size_t spatial = rank - 2;
  const bool transposed = full && ctx.boolean(6, "transposed");
  if (ctx.input(4).kind == Kind::kString) ctx.unsupported("convolution with padding='" + ctx.input(4).text + "'");
  std::vector<int64_t> stride = Pair(ctx, 3, "stride", spatial), pad = Pair(ctx, 4, "padding", spatial),
                       dilation = Pair(ctx, 5, "dilation", spatial);
  std::vector<int64_t> output_padding =
      transposed ? Pair(ctx, 7, "output_padding", spatial) : std::vector<int64_t>(spatial, 0);
  const int64_t groups = ctx.integer(full ? 8 : 6, "groups");
  std::string x = ctx.tensor(0), w = ctx.tensor(1);
  Dims xd = ctx.dims(0), wd = ctx.dims(1);
  if (wd.size() != xd.size())
    ctx.fail("weight " + TensorSInfo(wd, ctx.dtype(1)) + " does not match input " + TensorSInfo(xd, ctx.dtype(0)));
  if (spatial == 1) {  // 1-D as 2-D over a height of 1
    x = ctx.bind(Call("expand_dims", {x}, "axis=[2]"));
    w = ctx.bind(Call("expand_dims", {w}, "axis=[2]"));
    xd.insert(xd.begin() + 2, Dim::Static(1));
    wd.insert(wd.begin() + 2, Dim::Static(1));
    stride.insert(stride.begin(), 1);
    pad.insert(pad.begin(), 0);
    dilation.insert(dilation.begin(), 1);
    output_padding.insert(output_padding.begin(), 0);
  }
  for (const Dim& d : wd) {
    if (!d.is_static()) ctx.unsupported("a convolution weight of symbolic dims");
  }
  const Dim want_channels = Dim::Static(transposed ? wd[0].value : wd[1].value * groups);
  if (groups <= 0 || xd[1] != want_channels) {
    ctx.fail("the input's " + xd[1].text() + " channels are not the weight's " + want_channels.text() +
             " (is the input's shape right?)");
  }
  const std::string attrs = "strides=" + IntList(stride) + ", padding=" + IntList({pad[0], pad[1], pad[0], pad[1]}) +
                            ", dilation=" + IntList(dilation) + ", groups=" + std::to_string(groups);
  Dims out = {xd[0], Dim::Static(0), Dim(), Dim()};
  std::string y;
  if (!transposed) {
    out[1] = wd[0];
    for (int k = 0; k < 2; ++k)
      out[2 + k] = WindowOut(ctx, xd[2 + k], wd[2 + k].value, stride[k], pad[k], dilation[k], false);
    y = Call("nn.conv2d", {x, w}, attrs);
  } else {
    out[1] = Dim::Static(wd[1].value * groups);
    for (int k = 0; k < 2; ++k) {
      if (!xd[2 + k].is_static()) ctx.unsupported("a transposed convolution over a symbolic dim");
      for (int64_t v : {stride[k], pad[k], dilation[k], output_padding[k], xd[2 + k].value, wd[2 + k].value}) {
        if (v < 0 || v > (int64_t(1) << 31))
          ctx.unsupported("a transposed convolution with a window or dim beyond 2^31");
      }
      out[2 + k] = Dim::Static((xd[2 + k].value - 1) * stride[k] - 2 * pad[k] + dilation[k] * (wd[2 + k].value - 1) +
                               output_padding[k] + 1);
    }
    y = Call("nn.conv2d_transpose", {x, w}, attrs + ", output_padding=" + IntList(output_padding));
  }
  const std::string dtype = ctx.dtype(0);
  if (!ctx.is_none(2)) {
    std::string bias = ctx.bind(Call("expand_dims", {ctx.tensor(2)}, "axis=[1, 2]"));
    y = Call("add", {ctx.bind(y), bias});
  }
  if (spatial == 1) {
    y = Call("squeeze", {ctx.bind(y)}, "axis=[2]");
    out.erase(out.begin() + 2);
  }
  ctx.set_tensor(0, y, out, dtype);
}

void Linear(NodeContext& ctx) {
  CheckSameDType(ctx);
  Dims out = ctx.dims(0);
  if (out.empty() || ctx.rank(1) != 2)
    ctx.unsupported("linear of a " + std::to_string(out.size()) + "-D input and a " + std::to_string(ctx.rank(1)) +
                    "-D weight");
  if (out.back() != ctx.dims(1)[1]) {
    ctx.fail("the input's last dim " + out.back().text() + " is not the weight's " + ctx.dims(1)[1].text() +
             " (is the input's shape right?)");
  }
  out.back() = ctx.dims(1)[0];
  std::vector<std::string> args = {ctx.tensor(0), ctx.tensor(1)};
  if (!ctx.is_none(2)) args.push_back(ctx.tensor(2));
  ctx.set_tensor(0, Call("linear", args), out, ctx.dtype(0));
}

/// The dims of matmul(a, b) with NumPy's rules.
Dims MatmulDims(NodeContext& ctx, Dims a, Dims b) {
  if (a.empty() || b.empty()) ctx.fail("matmul of a 0-d tensor");
  const bool a_vector = a.size() == 1, b_vector = b.size() == 1;
  if (a_vector) a.insert(a.begin(), Dim::Static(1));
  if (b_vector) b.push_back(Dim::Static(1));
  Dims batch = Broadcast(ctx, Dims(a.begin(), a.end() - 2), Dims(b.begin(), b.end() - 2));
  if (a.back() != b[b.size() - 2])
    ctx.fail("matmul of " + TensorSInfo(a, "") + " and " + TensorSInfo(b, "") + ": inner dims differ");
  Dims out = batch;
  if (!a_vector) out.push_back(a[a.size() - 2]);
  if (!b_vector) out.push_back(b.back());
  return out;
}

void Matmul(NodeContext& ctx) {
  if ((ctx.kind() == "aten::bmm" && (ctx.rank(0) != 3 || ctx.rank(1) != 3)) ||
      (ctx.kind() == "aten::mm" && (ctx.rank(0) != 2 || ctx.rank(1) != 2))) {
    ctx.fail("operands of the wrong rank");
  }
  ctx.set_tensor(0, Call("matmul", {ctx.tensor(0), ctx.tensor(1)}), MatmulDims(ctx, ctx.dims(0), ctx.dims(1)),
                 ctx.dtype(0));
}

/// addmm(bias, m1, m2, beta, alpha) = beta * bias + alpha * m1 @ m2.
void Addmm(NodeContext& ctx) {
  const double beta = ctx.num_inputs() > 3 ? ctx.number(3, "beta") : 1,
               alpha = ctx.num_inputs() > 4 ? ctx.number(4, "alpha") : 1;
  const std::string dtype = ctx.dtype(1);
  Dims out = MatmulDims(ctx, ctx.dims(1), ctx.dims(2));
  std::string product = ctx.bind(Call("matmul", {ctx.tensor(1), ctx.tensor(2)}));
  if (alpha != 1) product = ctx.bind(Call("multiply", {product, NodeContext::scalar_const(alpha, dtype)}));
  std::string bias = ctx.tensor(0, dtype);
  if (beta != 1) bias = ctx.bind(Call("multiply", {bias, NodeContext::scalar_const(beta, dtype)}));
  ctx.set_tensor(0, Call("add", {product, bias}), out, dtype);
}

/// batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn).
/// Imported for training (the default), running statistics held in buffers become states,
/// updated as PyTorch does (momentum weighs the batch; the unbiased batch variance), and the
/// batch statistics normalize whatever mode the module was traced in (as the onnx importer
/// trains eval exports); with training=false, or frozen statistics, the running ones normalize.
void BatchNorm(NodeContext& ctx) {
  if (ctx.rank(0) < 2) ctx.fail("batch_norm of a " + std::to_string(ctx.rank(0)) + "-D input");
  if (ctx.is_none(3) || ctx.is_none(4))
    ctx.unsupported("batch_norm without running statistics (track_running_stats=False)");
  const std::string dtype = ctx.dtype(0);
  const bool stateful = ctx.is_state_candidate(3) && ctx.is_state_candidate(4);
  const bool traced_training = ctx.boolean(5, "training");
  const bool batch_statistics = stateful || (traced_training && ctx.input(3).attribute.empty());
  const double momentum = ctx.is_none(6) ? 0.1 : ctx.number(6, "momentum");
  const double eps = ctx.number(7, "eps");
  std::string mean = stateful ? ctx.state(3) : ctx.tensor(3), var = stateful ? ctx.state(4) : ctx.tensor(4);
  std::string gamma = ctx.is_none(1) ? ctx.bind(Call("ones_like", {mean})) : ctx.tensor(1);
  std::string beta = ctx.is_none(2) ? ctx.bind(Call("zeros_like", {mean})) : ctx.tensor(2);
  const std::string attrs = "axis=1, epsilon=" + NumberText(eps) + ", momentum=" + NumberText(momentum) +
                            ", training=" + (batch_statistics ? "true" : "false") + ", unbiased_running_var=true";
  std::string bn = ctx.bind(Call("nn.batch_norm", {ctx.tensor(0), gamma, beta, mean, var}, attrs));
  if (stateful) {
    ctx.update_state(3, bn + "[1]");
    ctx.update_state(4, bn + "[2]");
  }
  ctx.set_tensor(0, bn + "[0]", ctx.dims(0), dtype);
}

/// layer_norm(input, normalized_shape, weight, bias, eps, cudnn_enable).
void LayerNorm(NodeContext& ctx) {
  const std::vector<int64_t> shape = ctx.ints(1, "normalized_shape");
  const int rank = ctx.rank(0);
  if (shape.empty() || static_cast<int>(shape.size()) > rank)
    ctx.fail("normalized_shape has " + std::to_string(shape.size()) + " dims for a " + std::to_string(rank) +
             "-D input");
  std::vector<int64_t> axes;
  Dims normalized;
  for (int k = rank - static_cast<int>(shape.size()); k < rank; ++k) {
    axes.push_back(k);
    normalized.push_back(Dim::Static(shape[k - rank + shape.size()]));
  }
  const std::string dtype = ctx.dtype(0);
  std::string gamma =
      ctx.is_none(2) ? ctx.bind(Call("ones", {ShapeExpr(normalized)}, "dtype=" + dtype)) : ctx.tensor(2);
  std::string beta =
      ctx.is_none(3) ? ctx.bind(Call("zeros", {ShapeExpr(normalized)}, "dtype=" + dtype)) : ctx.tensor(3);
  ctx.set_tensor(0,
                 Call("nn.layer_norm", {ctx.tensor(0), gamma, beta},
                      "axes=" + IntList(axes) + ", epsilon=" + NumberText(ctx.number(4, "eps"))),
                 ctx.dims(0), dtype);
}

/// group_norm(input, num_groups, weight, bias, eps, cudnn): (N, C, ...) seen as (N, G, C/G * ...),
/// normalized over its last axis, then scaled and shifted per channel.
void GroupNorm(NodeContext& ctx) {
  const int rank = ctx.rank(0);
  if (rank < 2) ctx.fail("group_norm of a " + std::to_string(rank) + "-D input");
  const Dims& in = ctx.dims(0);
  const int64_t groups = ctx.integer(1, "num_groups");
  if (!in[1].is_static() || groups <= 0 || in[1].value % groups != 0)
    ctx.fail("num_groups " + std::to_string(groups) + " does not divide the channels " + in[1].text());
  const std::string dtype = ctx.dtype(0);
  const std::string x = ctx.tensor(0);
  Dims rest(in.begin() + 1, in.end());
  Dims grouped = {in[0], Dim::Static(groups), Dim::Static(0)};
  const Dim per_group = Product(rest);
  if (!per_group.is_static()) ctx.unsupported("group_norm over symbolic dims");
  grouped[2] = Dim::Static(per_group.value / groups);
  std::string g = ctx.bind(Call("reshape", {x, ShapeExpr(grouped)}));
  const std::string reduce = "axis=[2], keepdims=true";
  std::string centered = ctx.bind(Call("subtract", {g, ctx.bind(Call("mean", {g}, reduce))}));
  std::string variance = ctx.bind(Call("variance", {g}, reduce));
  std::string scale = ctx.bind(
      Call("rsqrt", {ctx.bind(Call("add", {variance, NodeContext::scalar_const(ctx.number(4, "eps"), dtype)}))}));
  std::string y = ctx.bind(Call("reshape", {ctx.bind(Call("multiply", {centered, scale})), ShapeExpr(in)}));
  std::vector<int64_t> trailing;
  for (int k = 1; k + 1 < rank; ++k) trailing.push_back(k);
  auto per_channel = [&](int i) {
    return trailing.empty() ? ctx.tensor(i)
                            : ctx.bind(Call("expand_dims", {ctx.tensor(i)}, "axis=" + IntList(trailing)));
  };
  if (!ctx.is_none(2)) y = ctx.bind(Call("multiply", {y, per_channel(2)}));
  if (!ctx.is_none(3)) y = ctx.bind(Call("add", {y, per_channel(3)}));
  ctx.set_output(0, Value::Tensor(y, in, dtype));
}

/// max_pool2d(x, kernel, stride, padding, dilation, ceil_mode) and avg_pool2d(x, kernel, stride,
/// padding, ceil_mode, count_include_pad, divisor_override).
void Pool(NodeContext& ctx) {
  const bool max = ctx.kind() == "aten::max_pool2d";
  if (ctx.rank(0) != 4) ctx.unsupported("2-D pooling of a " + std::to_string(ctx.rank(0)) + "-D input");
  std::vector<int64_t> kernel = Pair(ctx, 1, "kernel_size", 2);
  std::vector<int64_t> stride = ctx.ints(2, "stride");
  stride = stride.empty() ? kernel : Pair(ctx, 2, "stride", 2);
  std::vector<int64_t> pad = Pair(ctx, 3, "padding", 2);
  std::vector<int64_t> dilation = max ? Pair(ctx, 4, "dilation", 2) : std::vector<int64_t>{1, 1};
  const bool ceil_mode = ctx.boolean(max ? 5 : 4, "ceil_mode");
  std::string attrs = "pool_size=" + IntList(kernel) + ", strides=" + IntList(stride) +
                      ", padding=" + IntList({pad[0], pad[1], pad[0], pad[1]}) + ", dilation=" + IntList(dilation) +
                      ", ceil_mode=" + (ceil_mode ? "true" : "false");
  if (!max) {
    attrs += std::string(", count_include_pad=") + (ctx.boolean(5, "count_include_pad") ? "true" : "false");
    if (ctx.num_inputs() > 6 && !ctx.is_none(6)) ctx.unsupported("avg_pool2d with divisor_override");
  }
  Dims out = ctx.dims(0);
  for (int k = 0; k < 2; ++k)
    out[2 + k] = WindowOut(ctx, out[2 + k], kernel[k], stride[k], pad[k], dilation[k], ceil_mode);
  ctx.set_tensor(0, Call(max ? "nn.max_pool2d" : "nn.avg_pool2d", {ctx.tensor(0)}, attrs), out, ctx.dtype(0));
}

void AdaptiveAvgPool(NodeContext& ctx) {
  if (ctx.rank(0) != 4) ctx.unsupported("adaptive_avg_pool2d of a " + std::to_string(ctx.rank(0)) + "-D input");
  std::vector<int64_t> size = Pair(ctx, 1, "output_size", 2);
  Dims out = ctx.dims(0);
  out[2] = Dim::Static(size[0]);
  out[3] = Dim::Static(size[1]);
  ctx.set_tensor(0, Call("nn.adaptive_avg_pool2d", {ctx.tensor(0)}, "output_size=" + IntList(size)), out, ctx.dtype(0));
}

/// dropout(x, p, train). Imported for training (with the option dropout, the default), it drops
/// at random with a per-step seed (nn.dropout; @predict makes it the identity), whatever mode
/// the module was traced in; otherwise the identity.
void Dropout(NodeContext& ctx) {
  const double p = ctx.number(1, "p");
  if (!(p >= 0 && p <= 1)) ctx.fail("p " + NumberText(p) + " is outside [0, 1]");
  if (ctx.options().training && ctx.options().dropout && p > 0) {
    if (p >= 1) ctx.unsupported("dropout with p = 1 in training");
    if (!IsFloat(ctx.dtype(0))) ctx.unsupported("dropout of " + ctx.dtype(0));
    std::string dropped = ctx.bind(Call("nn.dropout", {ctx.tensor(0), ctx.step_seed()}, "rate=" + NumberText(p)));
    return ctx.set_tensor(0, dropped + "[0]", ctx.dims(0), ctx.dtype(0));
  }
  ctx.set_output(0, ctx.input(0));
}

void Softmax(NodeContext& ctx) {
  const bool log = ctx.kind() == "aten::log_softmax";
  const int64_t axis = ctx.axis(ctx.integer(1, "dim"), ctx.rank(0));
  std::string x = ctx.tensor(0);
  std::string dtype = ctx.dtype(0);
  if (ctx.num_inputs() > 2 && !ctx.is_none(2)) ctx.unsupported("softmax with a dtype");
  ctx.set_tensor(0, Call(log ? "log_softmax" : "softmax", {x}, "axis=" + std::to_string(axis)), ctx.dims(0), dtype);
}

/// embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse): rows of the weight.
void Embedding(NodeContext& ctx) {
  if (ctx.rank(0) != 2) ctx.fail("embedding of a " + std::to_string(ctx.rank(0)) + "-D weight");
  if (IsFloat(ctx.dtype(1))) ctx.fail("embedding indices of " + ctx.dtype(1));
  if (ctx.num_inputs() > 3 && ctx.boolean(3, "scale_grad_by_freq"))
    ctx.unsupported("embedding with scale_grad_by_freq");
  Dims out = ctx.dims(1);
  out.push_back(ctx.dims(0)[1]);
  std::string rows = Call("take", {ctx.tensor(0), ctx.tensor(1)}, "axis=0");
  const int64_t padding_idx = ctx.num_inputs() > 2 && !ctx.is_none(2) ? ctx.integer(2, "padding_idx") : -1;
  if (padding_idx >= 0) {
    // PyTorch gives the padding row no gradient; nn.Embedding makes it zero, so the rows of the
    // padding index are zeroed by a mask (its gradient then 0 too) when that row is zero.
    const Value& weight = ctx.input(0);
    const Dim& count = ctx.dims(0)[0];
    const Dim& width = ctx.dims(0)[1];
    if (weight.attribute.empty() || !count.is_static() || !width.is_static() || padding_idx >= count.value) {
      ctx.unsupported("embedding with a padding_idx of a weight that is no parameter");
    }
    const std::string bytes = ctx.backbone().AttributeBytes(weight.attribute);
    const size_t row = bytes.size() / static_cast<size_t>(count.value);
    if (bytes.substr(row * padding_idx, row).find_first_not_of('\0') != std::string::npos) {
      ctx.unsupported("embedding with padding_idx " + std::to_string(padding_idx) + " whose row is not zero");
    }
    std::string keep =
        ctx.bind(Call("not_equal", {ctx.tensor(1), NodeContext::scalar_const(double(padding_idx), ctx.dtype(1))}));
    keep = ctx.bind(Call("expand_dims", {keep}, "axis=[" + std::to_string(ctx.rank(1)) + "]"));
    keep = ctx.bind(Call("astype", {keep}, "dtype=" + ctx.dtype(0)));
    rows = Call("multiply", {ctx.bind(rows), keep});
  }
  ctx.set_tensor(0, rows, out, ctx.dtype(0));
}

/// pad(x, pad, mode, value) / constant_pad_nd(x, pad, value): constant mode only; PyTorch's
/// pad lists (before, after) pairs from the last dim backwards.
void Pad(NodeContext& ctx) {
  const bool nd = ctx.kind() == "aten::constant_pad_nd";
  if (!nd && ctx.input(2).kind == Kind::kString && ctx.input(2).text != "constant") {
    ctx.unsupported("pad in mode '" + ctx.input(2).text + "'");
  }
  const std::vector<int64_t> pad = ctx.ints(1, "pad");
  const int rank = ctx.rank(0);
  if (pad.size() % 2 != 0 || static_cast<int>(pad.size()) > 2 * rank)
    ctx.fail("pad has " + std::to_string(pad.size()) + " values for a " + std::to_string(rank) + "-D input");
  const int value_input = nd ? 2 : 3;
  const double value =
      value_input < ctx.num_inputs() && !ctx.is_none(value_input) ? ctx.number(value_input, "value") : 0.0;
  std::vector<int64_t> widths(2 * rank, 0);
  Dims out = ctx.dims(0);
  for (size_t k = 0; k < pad.size() / 2; ++k) {
    const int axis = rank - 1 - static_cast<int>(k);
    if (pad[2 * k] < 0 || pad[2 * k + 1] < 0) ctx.unsupported("pad with negative widths (cropping)");
    if (pad[2 * k] > (int64_t(1) << 31) || pad[2 * k + 1] > (int64_t(1) << 31))
      ctx.unsupported("pad widths beyond 2^31");
    widths[2 * axis] = pad[2 * k];
    widths[2 * axis + 1] = pad[2 * k + 1];
    const int64_t added = pad[2 * k] + pad[2 * k + 1];
    if (out[axis].is_static())
      out[axis] = Dim::Static(out[axis].value + added);
    else if (added != 0)
      out[axis] = Dim::Symbolic(out[axis].symbol + " + " + std::to_string(added));
  }
  ctx.set_tensor(0, Call("pad", {ctx.tensor(0)}, "pad_width=" + IntList(widths) + ", pad_value=" + NumberText(value)),
                 out, ctx.dtype(0));
}

}  // namespace

void AddNNConverters(ConverterMap& map) {
  map["aten::_convolution"] = Convolution;
  map["aten::conv2d"] = Convolution;
  map["aten::conv1d"] = Convolution;
  map["aten::linear"] = Linear;
  map["aten::matmul"] = Matmul;
  map["aten::bmm"] = Matmul;
  map["aten::mm"] = Matmul;
  map["aten::addmm"] = Addmm;
  map["aten::batch_norm"] = BatchNorm;
  map["aten::layer_norm"] = LayerNorm;
  map["aten::group_norm"] = GroupNorm;
  map["aten::max_pool2d"] = Pool;
  map["aten::avg_pool2d"] = Pool;
  map["aten::adaptive_avg_pool2d"] = AdaptiveAvgPool;
  map["aten::dropout"] = Dropout;
  map["aten::softmax"] = Softmax;
  map["aten::log_softmax"] = Softmax;
  map["aten::embedding"] = Embedding;
  map["aten::pad"] = Pad;
  map["aten::constant_pad_nd"] = Pad;
}

}  // namespace rxt::import_torchscript
