// 2-D convolution through oneDNN primitives (NCHW data, OIHW weight, float32). Creating a
// primitive costs far more than running a small one, so primitives are cached per shape and
// parameters; ReLU is a post-op of the primitive, the bias its bias argument.
#include <oneapi/dnnl/dnnl.hpp>

#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "externs.h"
#include "tensor_args.h"

namespace rxt::lib_dnnl {
namespace {

using dnnl::memory;

struct ConvParams {
  std::vector<int64_t> data, weight, out;
  int64_t stride[2], pad[4], dilation[2], groups;
  bool relu, bias;
  auto Key() const {
    return std::make_tuple(data, weight, out, stride[0], stride[1], pad[0], pad[1], pad[2], pad[3], dilation[0],
                           dilation[1], groups, relu, bias);
  }
  bool operator<(const ConvParams& o) const { return Key() < o.Key(); }
};

struct ConvPrimitive {
  memory::desc src, weights, bias, dst;
  dnnl::convolution_forward primitive;
};

dnnl::engine& Engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

std::shared_ptr<ConvPrimitive> CreatePrimitive(const ConvParams& p) {
  auto dims = [](const std::vector<int64_t>& v) { return memory::dims(v.begin(), v.end()); };
  auto prim = std::make_shared<ConvPrimitive>();
  prim->src = memory::desc(dims(p.data), memory::data_type::f32, memory::format_tag::nchw);
  prim->dst = memory::desc(dims(p.out), memory::data_type::f32, memory::format_tag::nchw);
  if (p.groups == 1) {
    prim->weights = memory::desc(dims(p.weight), memory::data_type::f32, memory::format_tag::oihw);
  } else {
    memory::dims g = {p.groups, p.weight[0] / p.groups, p.weight[1], p.weight[2], p.weight[3]};
    prim->weights = memory::desc(g, memory::data_type::f32, memory::format_tag::goihw);
  }
  prim->bias = memory::desc({p.out[1]}, memory::data_type::f32, memory::format_tag::x);
  memory::dims strides = {p.stride[0], p.stride[1]};
  memory::dims dilates = {p.dilation[0] - 1, p.dilation[1] - 1};  // oneDNN counts the gaps
  memory::dims pad_l = {p.pad[0], p.pad[1]}, pad_r = {p.pad[2], p.pad[3]};
  auto desc = p.bias ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                       dnnl::algorithm::convolution_direct, prim->src, prim->weights,
                                                       prim->bias, prim->dst, strides, dilates, pad_l, pad_r)
                     : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                       dnnl::algorithm::convolution_direct, prim->src, prim->weights,
                                                       prim->dst, strides, dilates, pad_l, pad_r);
  dnnl::primitive_attr attr;
  if (p.relu) {
    dnnl::post_ops ops;
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    attr.set_post_ops(ops);
  }
  prim->primitive = dnnl::convolution_forward(dnnl::convolution_forward::primitive_desc(desc, attr, Engine()));
  return prim;
}

std::shared_ptr<ConvPrimitive> FindPrimitive(const ConvParams& p) {
  static std::mutex mutex;
  static std::map<ConvParams, std::shared_ptr<ConvPrimitive>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(p);
  if (it != cache.end()) return it->second;
  return cache[p] = CreatePrimitive(p);
}

int64_t OutSize(int64_t in, int64_t kernel, int64_t pad_a, int64_t pad_b, int64_t stride, int64_t dilation) {
  return (in + pad_a + pad_b - dilation * (kernel - 1) - 1) / stride + 1;
}

void Conv2dImpl(void* const* args, int num_args, bool has_bias) {
  const char* name = has_bias ? "dnnl.conv2d_bias" : "dnnl.conv2d";
  CheckArity(num_args, has_bias ? 14 : 13, name);
  FloatTensor data = FloatArg(args, 0, "argument 0 (data)", 4);
  FloatTensor weight = FloatArg(args, 1, "argument 1 (weight)", 4);
  int first = has_bias ? 3 : 2;
  ConvParams p;
  const char* names[] = {"stride_h", "stride_w", "pad_top", "pad_left", "pad_bottom", "pad_right",
                         "dilation_h", "dilation_w", "groups", "relu"};
  int64_t v[10];
  for (int i = 0; i < 10; ++i) v[i] = IntArg(args, first + i, names[i]);
  p.stride[0] = v[0], p.stride[1] = v[1];
  for (int i = 0; i < 4; ++i) p.pad[i] = v[2 + i];
  p.dilation[0] = v[6], p.dilation[1] = v[7];
  p.groups = v[8];
  p.relu = v[9] != 0;
  p.bias = has_bias;
  for (int i = 0; i < 10; ++i) {
    bool positive = i < 2 || i == 6 || i == 7 || i == 8;
    if (positive ? v[i] < 1 : v[i] < 0) throw ArgumentError(std::string(names[i]) + " is " + std::to_string(v[i]));
  }
  FloatTensor out = FloatArg(args, num_args - 1, "the output", 4);
  p.data = data.shape, p.weight = weight.shape, p.out = out.shape;
  if (data.shape[1] != weight.shape[1] * p.groups || weight.shape[0] % p.groups != 0) {
    throw ArgumentError("data " + ShapeText(data.shape) + " and weight " + ShapeText(weight.shape) +
                        " do not match with groups " + std::to_string(p.groups));
  }
  std::vector<int64_t> expected = {
      data.shape[0], weight.shape[0],
      OutSize(data.shape[2], weight.shape[2], p.pad[0], p.pad[2], p.stride[0], p.dilation[0]),
      OutSize(data.shape[3], weight.shape[3], p.pad[1], p.pad[3], p.stride[1], p.dilation[1])};
  if (out.shape != expected) {
    throw ArgumentError("the output has shape " + ShapeText(out.shape) + ", expected " + ShapeText(expected));
  }
  float* bias = nullptr;
  if (has_bias) {
    FloatTensor bt = FloatArg(args, 2, "argument 2 (bias)", -1);
    if (bt.size() != weight.shape[0]) {
      throw ArgumentError("bias has " + std::to_string(bt.size()) + " elements, expected " + std::to_string(weight.shape[0]));
    }
    bias = bt.data;
  }
  if (data.size() == 0 || out.size() == 0) return;
  std::shared_ptr<ConvPrimitive> prim = FindPrimitive(p);
  dnnl::engine& engine = Engine();
  dnnl::stream stream(engine);
  std::unordered_map<int, memory> margs = {{DNNL_ARG_SRC, memory(prim->src, engine, data.data)},
                                           {DNNL_ARG_WEIGHTS, memory(prim->weights, engine, weight.data)},
                                           {DNNL_ARG_DST, memory(prim->dst, engine, out.data)}};
  if (bias != nullptr) margs.emplace(DNNL_ARG_BIAS, memory(prim->bias, engine, bias));
  prim->primitive.execute(stream, margs);
  stream.wait();
}

}  // namespace

void Conv2d(void* const* args, int num_args) { Conv2dImpl(args, num_args, false); }
void Conv2dBias(void* const* args, int num_args) { Conv2dImpl(args, num_args, true); }

}  // namespace rxt::lib_dnnl
