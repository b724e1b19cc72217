// 2-D convolution forward through oneDNN primitives, optionally followed by a max pooling.
// The caller's tensors are plain (NCHW data, OIHW weight, NCHW output); the primitive picks
// its own layouts for the weights and output (format_tag::any: blocked on AVX-512, where a
// plain-layout convolution falls back to a GEMM several times slower), and the plugin reorders
// into and out of them per call. The data keeps its NCHW layout when it has few channels per
// group (oneDNN's direct kernels read it as is; left free, it picks NHWC and a slower kernel). The weights are reordered on every call (they are small and change during
// training), unless the call carries their content id (constant weights: reordered once,
// constant_weights.h); with a pooling the blocked convolution output goes straight into the pooling
// primitive and only the pooled result is reordered back. ReLU is a post-op, the bias the
// primitive's bias argument. Without pooling, one-channel data goes to single_channel_conv.h and
// output maps of a few pixels to small_map_conv.h.
#include <oneapi/dnnl/dnnl.hpp>

#include "constant_weights.h"
#include "conv_params.h"
#include "dnnl_context.h"
#include "externs.h"
#include "host_threads.h"
#include "primitive_cache.h"
#include "single_channel_conv.h"
#include "small_map_conv.h"
#include "tensor_args.h"

namespace rxt::lib_dnnl {
namespace {

using dnnl::memory;

struct PoolWindow {
  int64_t kernel[2], stride[2], pad[4];
  auto Key() const {
    return std::make_tuple(kernel[0], kernel[1], stride[0], stride[1], pad[0], pad[1], pad[2], pad[3]);
  }
  int64_t OutSize(int axis, int64_t in) const {
    int64_t span = in + pad[axis] + pad[axis + 2] - kernel[axis];
    return span < 0 ? 0 : span / stride[axis] + 1;
  }
};

PoolWindow ReadPoolWindow(void* const* args, int first) {
  static const char* const kNames[] = {"pool_h", "pool_w", "pool_stride_h", "pool_stride_w",
                                       "pool_pad_top", "pool_pad_left", "pool_pad_bottom", "pool_pad_right"};
  int64_t v[8];
  for (int i = 0; i < 8; ++i) {
    v[i] = IntArg(args, first + i, kNames[i]);
    if (i < 4 ? v[i] < 1 : v[i] < 0) throw ArgumentError(std::string(kNames[i]) + " is " + std::to_string(v[i]));
  }
  PoolWindow p;
  p.kernel[0] = v[0], p.kernel[1] = v[1], p.stride[0] = v[2], p.stride[1] = v[3];
  for (int i = 0; i < 4; ++i) p.pad[i] = v[4 + i];
  // oneDNN's max pooling never reads padding, so a window entirely in it has no value.
  if (p.pad[0] >= p.kernel[0] || p.pad[2] >= p.kernel[0] || p.pad[1] >= p.kernel[1] || p.pad[3] >= p.kernel[1]) {
    throw ArgumentError("pool padding must be smaller than the pool window");
  }
  return p;
}

struct ForwardKey {
  std::vector<int64_t> data, weight, out, pooled;
  decltype(ConvWindow{}.Key()) window;
  decltype(PoolWindow{}.Key()) pool;
  bool bias, relu;
  auto Tie() const { return std::tie(data, weight, out, pooled, window, pool, bias, relu); }
  bool operator<(const ForwardKey& o) const { return Tie() < o.Tie(); }
};

struct ForwardPrimitive {
  dnnl::convolution_forward conv;
  Staging src, weights, dst;  // dst: to the caller's output, or unused with a pooling
  memory::desc bias;
  bool pooled = false;
  dnnl::pooling_forward pool;
  memory::desc conv_dst;  // the convolution's output layout (the pooling's input)
  Staging pool_dst;
};

ForwardPrimitive CreateForward(const ForwardKey& k, const ConvWindow& w, const PoolWindow& pw) {
  ForwardPrimitive f;
  memory::desc bias = PlainDesc({k.out[1]});
  auto desc = k.bias ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                       dnnl::algorithm::convolution_direct, SourceDesc(k.data, w.groups),
                                                       WeightDesc(k.weight, w.groups, true), bias, AnyDesc(k.out),
                                                       w.Strides(), w.Dilates(), w.PadL(), w.PadR())
                     : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                       dnnl::algorithm::convolution_direct, SourceDesc(k.data, w.groups),
                                                       WeightDesc(k.weight, w.groups, true), AnyDesc(k.out),
                                                       w.Strides(), w.Dilates(), w.PadL(), w.PadR());
  dnnl::primitive_attr attr;
  if (k.relu) {
    dnnl::post_ops ops;
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    attr.set_post_ops(ops);
  }
  dnnl::convolution_forward::primitive_desc pd(desc, UserScratchpad(attr), Engine());
  f.conv = dnnl::convolution_forward(pd);
  f.src = Staging::Input(PlainDesc(k.data), pd.src_desc());
  f.weights = Staging::Input(WeightDesc(k.weight, w.groups, false), pd.weights_desc());
  f.bias = bias;
  f.conv_dst = pd.dst_desc();
  if (k.pooled.empty()) {
    f.dst = Staging::Output(PlainDesc(k.out), pd.dst_desc());
    return f;
  }
  f.pooled = true;
  dnnl::pooling_forward::desc pool_desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::pooling_max, f.conv_dst,
                                        AnyDesc(k.pooled), {pw.stride[0], pw.stride[1]}, {pw.kernel[0], pw.kernel[1]},
                                        {pw.pad[0], pw.pad[1]}, {pw.pad[2], pw.pad[3]});
  dnnl::pooling_forward::primitive_desc pool_pd(pool_desc, UserScratchpad(), Engine());
  f.pool = dnnl::pooling_forward(pool_pd);
  f.pool_dst = Staging::Output(PlainDesc(k.pooled), pool_pd.dst_desc());
  return f;
}

PrimitiveCache<ForwardKey, ForwardPrimitive>& ForwardCache() {
  static PrimitiveCache<ForwardKey, ForwardPrimitive> cache;
  return cache;
}

// Scratch slots: 0 src, 1 weights, 2 conv dst, 3 pooled dst. |weights_id|: 0, or the content id
// of weights that never change (constant_weights.h).
void RunForward(const ForwardPrimitive& f, float* data, float* weight, float* bias, float* out, int64_t weights_id) {
  std::unordered_map<int, memory> margs;
  margs.emplace(DNNL_ARG_SRC, StageIn(f.src, data, 0));
  PreparedWeights prepared;
  if (weights_id != 0 && !f.weights.direct()) {
    prepared = ConstantWeights(f.weights, weight, weights_id);
    margs.emplace(DNNL_ARG_WEIGHTS, prepared.memory);
  } else {
    margs.emplace(DNNL_ARG_WEIGHTS, StageIn(f.weights, weight, 1));
  }
  if (bias != nullptr) margs.emplace(DNNL_ARG_BIAS, memory(f.bias, Engine(), bias));
  if (!f.pooled) {
    memory dst = StageOutTarget(f.dst, out, 2);
    margs.emplace(DNNL_ARG_DST, dst);
    Execute(f.conv, margs);
    StageOutFinish(f.dst, dst, out);
  } else {
    memory conv_dst(f.conv_dst, Engine(), ScratchBuffer(2, f.conv_dst.get_size()));
    margs.emplace(DNNL_ARG_DST, conv_dst);
    Execute(f.conv, margs);
    memory pooled = StageOutTarget(f.pool_dst, out, 3);
    Execute(f.pool, {{DNNL_ARG_SRC, conv_dst}, {DNNL_ARG_DST, pooled}});
    StageOutFinish(f.pool_dst, pooled, out);
  }
  ThreadStream().wait();
}

void Conv2dImpl(void* const* args, int num_args, bool has_bias, bool has_pool) {
  const char* name = has_pool ? (has_bias ? "dnnl.conv2d_bias_pool" : "dnnl.conv2d_pool")
                              : (has_bias ? "dnnl.conv2d_bias" : "dnnl.conv2d");
  int first = has_bias ? 3 : 2;
  // An optional last int before the output: the weights' content id when they never change.
  int arity = first + 10 + (has_pool ? 8 : 0) + 1;
  int64_t weights_id = 0;
  if (num_args == arity + 1) {
    weights_id = IntArg(args, num_args - 2, "weights_id");
    if (weights_id < 0) throw ArgumentError("weights_id is " + std::to_string(weights_id) + ", expected >= 0");
  } else {
    CheckArity(num_args, arity, name);
  }
  FloatTensor data = FloatArg(args, 0, "argument 0 (data)", 4);
  FloatTensor weight = FloatArg(args, 1, "argument 1 (weight)", 4);
  ConvWindow w = ConvWindow::Read(args, first);
  int64_t relu = IntArg(args, first + 9, "relu");
  if (relu != 0 && relu != 1) throw ArgumentError("relu is " + std::to_string(relu) + ", expected 0 or 1");
  PoolWindow pw{};
  if (has_pool) pw = ReadPoolWindow(args, first + 10);
  FloatTensor out = FloatArg(args, num_args - 1, "the output", 4);

  ForwardKey key{data.shape, weight.shape, {}, {}, w.Key(), pw.Key(), has_bias, relu == 1};
  std::vector<int64_t> conv_out = {data.shape[0], weight.shape[0], w.OutSize(0, data.shape[2], weight.shape[2]),
                                   w.OutSize(1, data.shape[3], weight.shape[3])};
  ConvShapes{data.shape, weight.shape, has_pool ? conv_out : out.shape}.Check(w, name, "argument 0 (data)",
                                                                             "argument 1 (weight)", "the output");
  key.out = conv_out;
  if (has_pool) {
    std::vector<int64_t> expected = {conv_out[0], conv_out[1], pw.OutSize(0, conv_out[2]), pw.OutSize(1, conv_out[3])};
    if (out.shape != expected) {
      throw ArgumentError(std::string(name) + ": the output has shape " + ShapeText(out.shape) + ", expected " +
                          ShapeText(expected) + " (the pooled convolution output " + ShapeText(conv_out) + ")");
    }
    key.pooled = out.shape;
  }
  float* bias = nullptr;
  if (has_bias) {
    FloatTensor bt = FloatArg(args, 2, "argument 2 (bias)", -1);
    if (bt.size() != weight.shape[0]) {
      throw ArgumentError("bias has " + std::to_string(bt.size()) + " elements, expected " +
                          std::to_string(weight.shape[0]));
    }
    bias = bt.data;
  }
  if (out.size() == 0) return;
  if (data.size() == 0 || weight.size() == 0) throw ArgumentError(std::string(name) + ": empty data or weight");
  if (!has_pool && SmallMapConv::Applies(data.shape, weight.shape, w)) {
    SmallMapConv::Of(data.shape, weight.shape, w).Forward(data.data, weight.data, bias, relu == 1, out.data, weights_id);
    return;
  }
  if (!has_pool && SingleChannelConv::Applies(data.shape, weight.shape, w)) {
    SingleChannelConv::Of(data.shape, weight.shape, w).Forward(data.data, weight.data, bias, relu == 1, out.data);
    return;
  }
  // Images are independent: one part of the batch per thread of the host's pool.
  int64_t in_image = data.size() / data.shape[0], out_image = out.size() / out.shape[0];
  BatchSplit split = BatchSplit::Of(data.shape[0]);
  ParallelParts(split.parts, [&](int64_t part) {
    auto [first, count] = split.Part(part);
    ForwardKey part_key = key;
    part_key.data[0] = part_key.out[0] = count;
    if (!part_key.pooled.empty()) part_key.pooled[0] = count;
    std::shared_ptr<const ForwardPrimitive> f =
        ForwardCache().Get(part_key, [&] { return CreateForward(part_key, w, pw); });
    RunForward(*f, data.data + first * in_image, weight.data, bias, out.data + first * out_image, weights_id);
  });
}

}  // namespace

void Conv2d(void* const* args, int num_args) { Conv2dImpl(args, num_args, false, false); }
void Conv2dBias(void* const* args, int num_args) { Conv2dImpl(args, num_args, true, false); }
void Conv2dPool(void* const* args, int num_args) { Conv2dImpl(args, num_args, false, true); }
void Conv2dBiasPool(void* const* args, int num_args) { Conv2dImpl(args, num_args, true, true); }

}  // namespace rxt::lib_dnnl
