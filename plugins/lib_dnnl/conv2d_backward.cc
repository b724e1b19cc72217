// The gradients of a 2-D convolution through oneDNN's backward primitives (what
// LegalizeLibraryCalls makes of grad_std's conv2d rule): the data gradient (as
// nn.conv2d_transpose computes it) and the weight gradient, optionally with the bias gradient
// (the output gradient summed over N, H and W). Layouts as in conv2d.cc: plain tensors for the
// caller, the primitive's own choice inside, reorders per call, primitives cached per shape.
// The weight gradient of a one-channel convolution uses single_channel_conv.h; output maps of
// a few pixels go to small_map_conv.h.
#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <string>

#include "conv_params.h"
#include "dnnl_context.h"
#include "externs.h"
#include "host_threads.h"
#include "narrow_conv_backward_data.h"
#include "primitive_cache.h"
#include "single_channel_conv.h"
#include "small_map_conv.h"
#include "tensor_args.h"

namespace rxt::lib_dnnl {
namespace {

using dnnl::memory;

struct BackwardKey {
  std::vector<int64_t> data, weight, out;  // the forward convolution's shapes
  decltype(ConvWindow{}.Key()) window;
  bool bias;
  auto Tie() const { return std::tie(data, weight, out, window, bias); }
  bool operator<(const BackwardKey& o) const { return Tie() < o.Tie(); }
};

/// The forward primitive descriptor oneDNN wants as a hint for the backward ones.
dnnl::convolution_forward::primitive_desc ForwardHint(const BackwardKey& k, const ConvWindow& w) {
  auto desc = k.bias ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training,
                                                       dnnl::algorithm::convolution_direct, AnyDesc(k.data),
                                                       WeightDesc(k.weight, w.groups, true), PlainDesc({k.out[1]}),
                                                       AnyDesc(k.out), w.Strides(), w.Dilates(), w.PadL(), w.PadR())
                     : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training,
                                                       dnnl::algorithm::convolution_direct, AnyDesc(k.data),
                                                       WeightDesc(k.weight, w.groups, true), AnyDesc(k.out),
                                                       w.Strides(), w.Dilates(), w.PadL(), w.PadR());
  return dnnl::convolution_forward::primitive_desc(desc, Engine());
}

/// The data gradient's layout: oneDNN's AVX-512 kernels pad the channels to 16, so with at most
/// 8 channels (LeNet's 6) the AVX2 kernel on 8-channel blocks does less work (0.7 vs 1.05 ms for
/// LeNet's second convolution); else the primitive's choice.
memory::desc DataGradientDesc(const std::vector<int64_t>& nchw, int64_t groups) {
  if (groups > 1 || nchw[1] > 8) return AnyDesc(nchw);
  return memory::desc(memory::dims(nchw.begin(), nchw.end()), memory::data_type::f32, memory::format_tag::aBcd8b);
}

struct BackwardData {
  dnnl::convolution_backward_data primitive;
  Staging diff_dst, weights, diff_src;
};

BackwardData CreateBackwardData(const BackwardKey& k, const ConvWindow& w) {
  dnnl::convolution_backward_data::desc desc(dnnl::algorithm::convolution_direct, DataGradientDesc(k.data, w.groups),
                                             WeightDesc(k.weight, w.groups, true), AnyDesc(k.out), w.Strides(),
                                             w.Dilates(), w.PadL(), w.PadR());
  dnnl::convolution_backward_data::primitive_desc pd(desc, UserScratchpad(), Engine(), ForwardHint(k, w));
  return {dnnl::convolution_backward_data(pd), Staging::Input(PlainDesc(k.out), pd.diff_dst_desc()),
          Staging::Input(WeightDesc(k.weight, w.groups, false), pd.weights_desc()),
          Staging::Output(PlainDesc(k.data), pd.diff_src_desc())};
}

struct BackwardWeights {
  dnnl::convolution_backward_weights primitive;
  Staging src, diff_dst, diff_weights;
  memory::desc diff_bias;
};

memory::desc NhwcDesc(const std::vector<int64_t>& nchw) {
  return memory::desc(memory::dims(nchw.begin(), nchw.end()), memory::data_type::f32, memory::format_tag::acdb);
}

/// oneDNN's reference implementation: correct, but orders of magnitude slower than a JIT kernel.
bool IsReference(const dnnl::primitive_desc_base& pd) {
  return std::string(pd.impl_info_str()).rfind("ref", 0) == 0;
}

dnnl::convolution_backward_weights::primitive_desc BackwardWeightsDesc(const BackwardKey& k, const ConvWindow& w,
                                                                        const memory::desc& data,
                                                                        const memory::desc& out) {
  auto desc = k.bias ? dnnl::convolution_backward_weights::desc(
                           dnnl::algorithm::convolution_direct, data, WeightDesc(k.weight, w.groups, true),
                           PlainDesc({k.out[1]}), out, w.Strides(), w.Dilates(), w.PadL(), w.PadR())
                     : dnnl::convolution_backward_weights::desc(
                           dnnl::algorithm::convolution_direct, data, WeightDesc(k.weight, w.groups, true), out,
                           w.Strides(), w.Dilates(), w.PadL(), w.PadR());
  return dnnl::convolution_backward_weights::primitive_desc(desc, UserScratchpad(), Engine(), ForwardHint(k, w));
}

/// The weight gradient's layouts: with input channels that do not fill 16-channel blocks
/// (LeNet's second convolution: 6), NHWC data and output gradient get oneDNN's AVX-512 kernel
/// instead of the AVX2 one on 8-channel blocks (0.36 vs 0.62 ms there, reorders 0.04 vs
/// 0.04 ms); else, or when NHWC would get only the reference implementation, oneDNN's choice.
dnnl::convolution_backward_weights::primitive_desc ChooseBackwardWeights(const BackwardKey& k, const ConvWindow& w) {
  if (w.groups == 1 && k.data[1] > 1 && k.data[1] % 16 != 0) {
    auto nhwc = BackwardWeightsDesc(k, w, NhwcDesc(k.data), NhwcDesc(k.out));
    if (!IsReference(nhwc)) return nhwc;
  }
  return BackwardWeightsDesc(k, w, AnyDesc(k.data), AnyDesc(k.out));
}

BackwardWeights CreateBackwardWeights(const BackwardKey& k, const ConvWindow& w) {
  memory::desc bias = PlainDesc({k.out[1]});
  dnnl::convolution_backward_weights::primitive_desc pd = ChooseBackwardWeights(k, w);
  return {dnnl::convolution_backward_weights(pd), Staging::Input(PlainDesc(k.data), pd.src_desc()),
          Staging::Input(PlainDesc(k.out), pd.diff_dst_desc()),
          Staging::Output(WeightDesc(k.weight, w.groups, false), pd.diff_weights_desc()), bias};
}

template <class Value>
PrimitiveCache<BackwardKey, Value>& Cache() {
  static PrimitiveCache<BackwardKey, Value> cache;
  return cache;
}

// dnnl.conv2d_backward_data(dz, weight, window..., ddata): ddata (N, C, H, W) is the data of
// the forward convolution; its spatial size picks among the sizes that give dz's.
void BackwardDataImpl(void* const* args, int num_args) {
  const char* name = "dnnl.conv2d_backward_data";
  CheckArity(num_args, 12, name);
  FloatTensor dz = FloatArg(args, 0, "argument 0 (output gradient)", 4);
  FloatTensor weight = FloatArg(args, 1, "argument 1 (weight)", 4);
  ConvWindow w = ConvWindow::Read(args, 2);
  FloatTensor dx = FloatArg(args, 11, "the output (data gradient)", 4);
  ConvShapes{dx.shape, weight.shape, dz.shape}.Check(w, name, "the output (data gradient)", "argument 1 (weight)",
                                                     "argument 0 (output gradient)");
  if (dx.size() == 0) return;
  if (dz.size() == 0 || weight.size() == 0) {  // nothing flows back: a zero gradient
    std::fill(dx.data, dx.data + dx.size(), 0.0f);
    return;
  }
  if (SmallMapConv::Applies(dx.shape, weight.shape, w)) {
    SmallMapConv::Of(dx.shape, weight.shape, w).BackwardData(dz.data, weight.data, dx.data);
    return;
  }
  if (NarrowDataGradient::Applies(dx.shape, weight.shape, w)) {
    NarrowDataGradient::Of(dx.shape, weight.shape, w).Run(dz.data, weight.data, dx.data);
    return;
  }
  // Images are independent: one part of the batch per thread of the host's pool.
  int64_t dz_image = dz.size() / dz.shape[0], dx_image = dx.size() / dx.shape[0];
  BatchSplit split = BatchSplit::Of(dx.shape[0]);
  ParallelParts(split.parts, [&](int64_t part) {
    auto [first, count] = split.Part(part);
    BackwardKey key{dx.shape, weight.shape, dz.shape, w.Key(), false};
    key.data[0] = key.out[0] = count;
    auto p = Cache<BackwardData>().Get(key, [&] { return CreateBackwardData(key, w); });
    std::unordered_map<int, memory> margs;
    margs.emplace(DNNL_ARG_DIFF_DST, StageIn(p->diff_dst, dz.data + first * dz_image, 0));
    margs.emplace(DNNL_ARG_WEIGHTS, StageIn(p->weights, weight.data, 1));
    float* target = dx.data + first * dx_image;
    memory diff_src = StageOutTarget(p->diff_src, target, 2);
    margs.emplace(DNNL_ARG_DIFF_SRC, diff_src);
    Execute(p->primitive, margs);
    StageOutFinish(p->diff_src, diff_src, target);
    ThreadStream().wait();
  });
}

// dnnl.conv2d_backward_weights(data, dz, window..., dweight[, dbias]).
void BackwardWeightsImpl(void* const* args, int num_args, bool has_bias) {
  const char* name = has_bias ? "dnnl.conv2d_backward_weights_bias" : "dnnl.conv2d_backward_weights";
  CheckArity(num_args, has_bias ? 13 : 12, name);
  FloatTensor data = FloatArg(args, 0, "argument 0 (data)", 4);
  FloatTensor dz = FloatArg(args, 1, "argument 1 (output gradient)", 4);
  ConvWindow w = ConvWindow::Read(args, 2);
  FloatTensor dw = FloatArg(args, 11, "output 0 (weight gradient)", 4);
  ConvShapes{data.shape, dw.shape, dz.shape}.Check(w, name, "argument 0 (data)", "output 0 (weight gradient)",
                                                   "argument 1 (output gradient)");
  float* db = nullptr;
  if (has_bias) {
    FloatTensor bt = FloatArg(args, 12, "output 1 (bias gradient)", -1);
    if (bt.size() != dw.shape[0]) {
      throw ArgumentError(std::string(name) + ": output 1 (bias gradient) has " + std::to_string(bt.size()) +
                          " elements, expected " + std::to_string(dw.shape[0]));
    }
    db = bt.data;
  }
  if (dw.size() == 0 && (db == nullptr || dw.shape[0] == 0)) return;
  if (data.size() == 0 || dz.size() == 0) {  // nothing contributes: zero gradients
    std::fill(dw.data, dw.data + dw.size(), 0.0f);
    if (db != nullptr) std::fill(db, db + dw.shape[0], 0.0f);
    return;
  }
  if (SmallMapConv::Applies(data.shape, dw.shape, w)) {
    SmallMapConv::Of(data.shape, dw.shape, w).BackwardWeights(data.data, dz.data, dw.data, db);
    return;
  }
  if (SingleChannelConv::Applies(data.shape, dw.shape, w)) {
    SingleChannelConv::Of(data.shape, dw.shape, w).BackwardWeights(data.data, dz.data, dw.data, db);
    return;
  }
  // One part of the batch per thread of the host's pool, each summing into its own gradient
  // (part 0 into the outputs, the others into scratch slot 3), then added in part order.
  int64_t data_image = data.size() / data.shape[0], dz_image = dz.size() / dz.shape[0];
  int64_t weights = dw.size(), biases = db != nullptr ? dw.shape[0] : 0;
  BatchSplit split = BatchSplit::Of(data.shape[0]);
  float* partials = split.parts < 2 ? nullptr
                                    : static_cast<float*>(ScratchBuffer(
                                          3, (split.parts - 1) * (weights + biases) * sizeof(float)));
  auto partial_weights = [&](int64_t part) {
    return part == 0 ? dw.data : partials + (part - 1) * (weights + biases);
  };
  auto partial_bias = [&](int64_t part) {
    return db == nullptr ? nullptr : part == 0 ? db : partial_weights(part) + weights;
  };
  ParallelParts(split.parts, [&](int64_t part) {
    auto [first, count] = split.Part(part);
    BackwardKey key{data.shape, dw.shape, dz.shape, w.Key(), has_bias};
    key.data[0] = key.out[0] = count;
    auto p = Cache<BackwardWeights>().Get(key, [&] { return CreateBackwardWeights(key, w); });
    float* part_dw = partial_weights(part);
    std::unordered_map<int, memory> margs;
    margs.emplace(DNNL_ARG_SRC, StageIn(p->src, data.data + first * data_image, 0));
    margs.emplace(DNNL_ARG_DIFF_DST, StageIn(p->diff_dst, dz.data + first * dz_image, 1));
    memory diff_weights = StageOutTarget(p->diff_weights, part_dw, 2);
    margs.emplace(DNNL_ARG_DIFF_WEIGHTS, diff_weights);
    if (db != nullptr) margs.emplace(DNNL_ARG_DIFF_BIAS, memory(p->diff_bias, Engine(), partial_bias(part)));
    Execute(p->primitive, margs);
    StageOutFinish(p->diff_weights, diff_weights, part_dw);
    ThreadStream().wait();
  });
  for (int64_t part = 1; part < split.parts; ++part) {
    const float* pw = partial_weights(part);
    for (int64_t i = 0; i < weights; ++i) dw.data[i] += pw[i];
    const float* pb = partial_bias(part);
    for (int64_t i = 0; i < biases; ++i) db[i] += pb[i];
  }
}

}  // namespace

void Conv2dBackwardData(void* const* args, int num_args) { BackwardDataImpl(args, num_args); }
void Conv2dBackwardWeights(void* const* args, int num_args) { BackwardWeightsImpl(args, num_args, false); }
void Conv2dBackwardWeightsBias(void* const* args, int num_args) { BackwardWeightsImpl(args, num_args, true); }

}  // namespace rxt::lib_dnnl
