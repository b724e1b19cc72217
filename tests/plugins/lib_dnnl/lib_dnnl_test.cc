// dnnl.matmul(_bias) and dnnl.conv2d(_bias) called through the extern registry, as the VM
// calls them, against straightforward C++ loops; and every argument error they report.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>

#include "rxt/plugin/plugin_host.h"
#include "rxt/runtime/dlpack.h"
#include "rxt/runtime/extern.h"
#include "test_util/seed_mlp_reference.h"

namespace rxt {
namespace {

using test::RandomTensor;

// Three threads in the host's pool (unless the environment says otherwise), so large GEMMs
// are cut into uneven blocks; set before the pool starts (at the first extern call).
const bool kPoolThreads = setenv("RXT_NUM_THREADS", "3", 0) == 0;

ExternFunction Extern(const std::string& name) {
  PluginHost::Global().Load(RXT_LIB_DNNL_PLUGIN);
  ExternFunction f = ExternRegistry::Global().Find(name);
  if (!f) throw std::runtime_error("extern function " + name + " is not registered");
  return f;
}

Tensor Int(int64_t v) { return Tensor::FromVector<int64_t>({}, DType::kInt64, {v}); }

void Call(const std::string& name, const std::vector<Tensor>& tensors) {
  std::vector<DLTensor> views;
  for (const Tensor& t : tensors) views.push_back(ToDLTensorView(t));
  std::vector<DLTensor*> pointers;
  for (DLTensor& v : views) pointers.push_back(&v);
  Extern(name)(pointers.data(), static_cast<int>(pointers.size()));
}

std::string CallError(const std::string& name, const std::vector<Tensor>& tensors) {
  try {
    Call(name, tensors);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// out[g, i, j] = sum_k a[g, i, k] * w[k, j] (+ bias[j]), optionally transposed operands, ReLU;
// w[g, k, j] when b has batch dims (a's).
std::vector<float> ReferenceMatmul(const Tensor& a, const Tensor& b, const float* bias, bool ta, bool tb, bool relu) {
  int nd = static_cast<int>(a.shape().size()), bd = static_cast<int>(b.shape().size());
  int64_t m = ta ? a.shape()[nd - 1] : a.shape()[nd - 2], k = ta ? a.shape()[nd - 2] : a.shape()[nd - 1];
  int64_t n = tb ? b.shape()[bd - 2] : b.shape()[bd - 1];
  int64_t b_size = bd > 2 ? k * n : 0;
  int64_t batch = 1;
  for (int i = 0; i < nd - 2; ++i) batch *= a.shape()[i];
  std::vector<float> out(batch * m * n);
  for (int64_t g = 0; g < batch; ++g) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double acc = bias ? bias[j] : 0.0;
        for (int64_t p = 0; p < k; ++p) {
          float av = a.data_as<float>()[g * m * k + (ta ? p * m + i : i * k + p)];
          float bv = b.data_as<float>()[g * b_size + (tb ? j * k + p : p * n + j)];
          acc += double(av) * bv;
        }
        float v = static_cast<float>(acc);
        out[(g * m + i) * n + j] = relu ? std::max(v, 0.0f) : v;
      }
    }
  }
  return out;
}

void ExpectClose(const Tensor& got, const std::vector<float>& expected, float tolerance = 1e-4f) {
  ASSERT_EQ(got.numel(), static_cast<int64_t>(expected.size()));
  for (size_t i = 0; i < expected.size(); ++i) {
    ASSERT_NEAR(got.data_as<float>()[i], expected[i], tolerance * (1 + std::abs(expected[i]))) << "at " << i;
  }
}

struct MatmulCase {
  std::vector<int64_t> a, b;
  int64_t flags;
  bool bias;
};

class DnnlMatmul : public ::testing::TestWithParam<MatmulCase> {};

TEST_P(DnnlMatmul, MatchesLoops) {
  const MatmulCase& c = GetParam();
  std::mt19937 rng(7);
  Tensor a = RandomTensor(c.a, rng), b = RandomTensor(c.b, rng);
  bool ta = c.flags & 1, tb = c.flags & 2, relu = c.flags & 4;
  int nd = static_cast<int>(c.a.size());
  std::vector<int64_t> out_shape(c.a.begin(), c.a.end() - 2);
  out_shape.push_back(ta ? c.a[nd - 1] : c.a[nd - 2]);
  size_t bd = c.b.size();
  out_shape.push_back(tb ? c.b[bd - 2] : c.b[bd - 1]);
  Tensor bias = RandomTensor({out_shape.back()}, rng);
  Tensor out = Tensor::Empty(out_shape, DType::kFloat32);
  if (c.bias) {
    Call("dnnl.matmul_bias", {a, b, bias, Int(c.flags), out});
  } else {
    Call("dnnl.matmul", {a, b, Int(c.flags), out});
  }
  ExpectClose(out, ReferenceMatmul(a, b, c.bias ? bias.data_as<float>() : nullptr, ta, tb, relu));
}

INSTANTIATE_TEST_SUITE_P(Shapes, DnnlMatmul,
                         ::testing::Values(MatmulCase{{1, 784}, {784, 128}, 0, false},
                                           MatmulCase{{64, 784}, {784, 128}, 4, true},
                                           MatmulCase{{64, 128}, {128, 10}, 0, true},
                                           MatmulCase{{2, 3, 5}, {5, 4}, 0, false},
                                           MatmulCase{{2, 5, 3}, {5, 4}, 1, true},
                                           MatmulCase{{7, 5}, {4, 5}, 2, false},
                                           MatmulCase{{5, 7}, {4, 5}, 3 | 4, true},
                                           MatmulCase{{3, 0}, {0, 4}, 0, true},
                                           // At least 2^20 multiply-adds: cut into blocks over
                                           // the host's pool (3 threads here, see below), by
                                           // columns when there are more columns than rows.
                                           MatmulCase{{64, 784}, {64, 128}, 1, false},
                                           MatmulCase{{3, 64, 200}, {64, 100}, 1 | 4, true},
                                           MatmulCase{{100, 300}, {257, 300}, 2 | 4, true},
                                           MatmulCase{{2, 50, 301}, {301, 70}, 0, true},
                                           // One row (row_gemv.h): 128 + 72 columns, a batch of
                                           // transposed single rows, exactly one vector; from
                                           // 2^16 multiply-adds the columns are cut over the
                                           // pool (80 + 80 + 40 here, the first case 48 + 48 + 32).
                                           MatmulCase{{1, 300}, {300, 200}, 4, true},
                                           MatmulCase{{1, 400}, {400, 200}, 4, true},
                                           MatmulCase{{3, 7, 1}, {7, 20}, 1, true},
                                           MatmulCase{{1, 5}, {5, 16}, 4, false},
                                           // b with a's batch dims (attention): oneDNN's matmul
                                           // primitive, the batch split over the pool from 2^20
                                           // multiply-adds; K = 0 gives the bias.
                                           MatmulCase{{2, 3, 5}, {2, 5, 4}, 0, false},
                                           MatmulCase{{2, 3, 4, 5}, {2, 3, 5, 6}, 4, true},
                                           MatmulCase{{3, 5, 4}, {3, 6, 5}, 1 | 2, true},
                                           MatmulCase{{128, 32, 16}, {128, 16, 32}, 0, false},
                                           MatmulCase{{5, 32, 32}, {5, 32, 16}, 0, true},
                                           MatmulCase{{1, 4, 5}, {1, 5, 3}, 0, false},
                                           MatmulCase{{4, 1, 5}, {4, 5, 16}, 4, true},
                                           MatmulCase{{2, 3, 0}, {2, 0, 4}, 0, true}));

// Direct convolution, NCHW / OIHW, with groups, strides, dilation and asymmetric padding.
std::vector<float> ReferenceConv(const Tensor& x, const Tensor& w, const float* bias, const int64_t s[2],
                                 const int64_t pad[4], const int64_t d[2], int64_t groups, bool relu,
                                 const std::vector<int64_t>& out_shape) {
  int64_t n = x.shape()[0], c = x.shape()[1], h = x.shape()[2], wd = x.shape()[3];
  int64_t o = w.shape()[0], ci = w.shape()[1], kh = w.shape()[2], kw = w.shape()[3];
  int64_t oh = out_shape[2], ow = out_shape[3];
  std::vector<float> out(n * o * oh * ow);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t oc = 0; oc < o; ++oc) {
      int64_t g = oc / (o / groups);
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xo = 0; xo < ow; ++xo) {
          double acc = bias ? bias[oc] : 0.0;
          for (int64_t ic = 0; ic < ci; ++ic)
            for (int64_t ky = 0; ky < kh; ++ky)
              for (int64_t kx = 0; kx < kw; ++kx) {
                int64_t iy = y * s[0] - pad[0] + ky * d[0], ix = xo * s[1] - pad[1] + kx * d[1];
                if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
                acc += double(x.data_as<float>()[((b * c + g * ci + ic) * h + iy) * wd + ix]) *
                       w.data_as<float>()[((oc * ci + ic) * kh + ky) * kw + kx];
              }
          float v = static_cast<float>(acc);
          out[((b * o + oc) * oh + y) * ow + xo] = relu ? std::max(v, 0.0f) : v;
        }
    }
  return out;
}

struct ConvCase {
  std::vector<int64_t> x, w;
  int64_t stride[2], pad[4], dilation[2], groups;
  bool relu, bias;
};

class DnnlConv2d : public ::testing::TestWithParam<ConvCase> {};

TEST_P(DnnlConv2d, MatchesLoops) {
  const ConvCase& c = GetParam();
  std::mt19937 rng(11);
  Tensor x = RandomTensor(c.x, rng), w = RandomTensor(c.w, rng), bias = RandomTensor({c.w[0]}, rng);
  auto size = [&](int64_t in, int64_t k, int64_t pa, int64_t pb, int64_t s, int64_t d) {
    return (in + pa + pb - d * (k - 1) - 1) / s + 1;
  };
  std::vector<int64_t> out_shape = {c.x[0], c.w[0], size(c.x[2], c.w[2], c.pad[0], c.pad[2], c.stride[0], c.dilation[0]),
                                    size(c.x[3], c.w[3], c.pad[1], c.pad[3], c.stride[1], c.dilation[1])};
  Tensor out = Tensor::Empty(out_shape, DType::kFloat32);
  std::vector<Tensor> args = {x, w};
  if (c.bias) args.push_back(bias);
  for (int64_t v : {c.stride[0], c.stride[1], c.pad[0], c.pad[1], c.pad[2], c.pad[3], c.dilation[0], c.dilation[1],
                    c.groups, int64_t{c.relu}}) {
    args.push_back(Int(v));
  }
  args.push_back(out);
  Call(c.bias ? "dnnl.conv2d_bias" : "dnnl.conv2d", args);
  ExpectClose(out, ReferenceConv(x, w, c.bias ? bias.data_as<float>() : nullptr, c.stride, c.pad, c.dilation,
                                 c.groups, c.relu, out_shape));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, DnnlConv2d,
    ::testing::Values(ConvCase{{2, 1, 28, 28}, {6, 1, 5, 5}, {1, 1}, {2, 2, 2, 2}, {1, 1}, 1, true, true},  // LeNet 1
                      ConvCase{{2, 6, 14, 14}, {16, 6, 5, 5}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1, true, true},  // LeNet 2
                      ConvCase{{1, 4, 9, 7}, {6, 2, 3, 3}, {2, 1}, {1, 0, 2, 1}, {1, 2}, 2, false, false},
                      ConvCase{{3, 3, 8, 8}, {4, 3, 1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1, false, true},
                      // One input channel (single_channel_conv.h): 8 + 2 filters, a row shorter
                      // than one vector, asymmetric padding; rows of 16 + 15; a 7x4 kernel.
                      ConvCase{{3, 1, 40, 7}, {10, 1, 3, 3}, {1, 1}, {1, 0, 2, 1}, {1, 1}, 1, false, false},
                      ConvCase{{2, 1, 9, 35}, {3, 1, 5, 5}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1, true, true},
                      ConvCase{{2, 1, 6, 6}, {2, 1, 7, 4}, {1, 1}, {1, 0, 0, 0}, {1, 1}, 1, true, false},
                      // Output maps of at most 4 pixels (small_map_conv.h): a 3x3 kernel on a 1x1
                      // map (one live tap); 1x2 (3 live taps, pixels transposed); 2x2 (all
                      // taps, large enough to be split over the pool); dilated, strided, on 1x1.
                      ConvCase{{3, 20, 1, 1}, {24, 20, 3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1, true, true},
                      ConvCase{{2, 8, 1, 2}, {5, 8, 3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1, false, true},
                      ConvCase{{2, 17, 2, 2}, {9, 17, 3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1, true, false},
                      ConvCase{{8, 128, 2, 2}, {128, 128, 3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1, false, true},
                      ConvCase{{2, 5, 4, 4}, {3, 5, 2, 2}, {2, 2}, {0, 0, 0, 0}, {3, 3}, 1, false, false}));

// A last int before the output is the weights' content id (plugins/lib_dnnl/constant_weights.h):
// the weights reordered into oneDNN's layout are kept by it, so a second call with the same id
// computes with the first call's weights (the id promises the content), another id with its
// own. LeNet-5's second convolution, on oneDNN's path with blocked weights.
TEST(DnnlConv2dWeightsId, ReordersOncePerId) {
  std::mt19937 rng(3);
  Tensor x = RandomTensor({2, 6, 14, 14}, rng), w1 = RandomTensor({16, 6, 5, 5}, rng), w2 = RandomTensor({16, 6, 5, 5}, rng);
  const int64_t stride[2] = {1, 1}, pad[4] = {0, 0, 0, 0}, dilation[2] = {1, 1};
  std::vector<int64_t> out_shape = {2, 16, 10, 10};
  auto run = [&](const Tensor& w, int64_t id) {
    Tensor out = Tensor::Empty(out_shape, DType::kFloat32);
    std::vector<Tensor> args = {x, w};
    for (int64_t v : {1, 1, 0, 0, 0, 0, 1, 1, 1, 0}) args.push_back(Int(v));
    args.push_back(Int(id));
    args.push_back(out);
    Call("dnnl.conv2d", args);
    return out;
  };
  std::vector<float> with_w1 = ReferenceConv(x, w1, nullptr, stride, pad, dilation, 1, false, out_shape);
  std::vector<float> with_w2 = ReferenceConv(x, w2, nullptr, stride, pad, dilation, 1, false, out_shape);
  int64_t id = 4242424242;
  ExpectClose(run(w1, id), with_w1);
  ExpectClose(run(w2, id), with_w1);
  ExpectClose(run(w2, id + 1), with_w2);
  ExpectClose(run(w2, 0), with_w2);  // 0: no id, reordered per call
  std::vector<Tensor> args = {x, w1};
  for (int64_t v : {1, 1, 0, 0, 0, 0, 1, 1, 1, 0, -1}) args.push_back(Int(v));
  args.push_back(Tensor::Empty(out_shape, DType::kFloat32));
  EXPECT_NE(CallError("dnnl.conv2d", args).find("weights_id is -1, expected >= 0"), std::string::npos);
}

// On maps of a few pixels whose pixels read fewer than half the taps (3x3 kernels with padding
// 1 on 2x2 maps: 4 of 9 each), constant weights take one GEMM per pixel over its own taps
// (plugins/lib_dnnl/small_map_conv.h), with the weights gathered once per id: equal to the
// loops, with bias and ReLU, on the second call (kept weights) too, and another id computes with
// its own weights. Stride 2 from 4x4 (4, 6, 6 and 9 taps) stays on the one GEMM over all taps.
TEST(DnnlConv2dWeightsId, SmallMapsComputeEachPixelOverItsOwnTaps) {
  struct Case {
    std::vector<int64_t> x, w;
    int64_t stride;
  };
  for (const Case& c : {Case{{3, 8, 2, 2}, {5, 8, 3, 3}, 1}, Case{{4, 6, 4, 4}, {7, 6, 3, 3}, 2}}) {
    SCOPED_TRACE(c.stride);
    std::mt19937 rng(5);
    Tensor x = RandomTensor(c.x, rng), w1 = RandomTensor(c.w, rng), w2 = RandomTensor(c.w, rng);
    Tensor bias = RandomTensor({c.w[0]}, rng);
    const int64_t stride[2] = {c.stride, c.stride}, pad[4] = {1, 1, 1, 1}, dilation[2] = {1, 1};
    std::vector<int64_t> out_shape = {c.x[0], c.w[0], 2, 2};
    auto run = [&](const Tensor& w, int64_t id) {
      Tensor out = Tensor::Empty(out_shape, DType::kFloat32);
      std::vector<Tensor> args = {x, w, bias};
      for (int64_t v : {c.stride, c.stride, int64_t{1}, int64_t{1}, int64_t{1}, int64_t{1}, int64_t{1}, int64_t{1},
                        int64_t{1}, int64_t{1}, id}) {
        args.push_back(Int(v));
      }
      args.push_back(out);
      Call("dnnl.conv2d_bias", args);
      return out;
    };
    std::vector<float> with_w1 = ReferenceConv(x, w1, bias.data_as<float>(), stride, pad, dilation, 1, true, out_shape);
    std::vector<float> with_w2 = ReferenceConv(x, w2, bias.data_as<float>(), stride, pad, dilation, 1, true, out_shape);
    const int64_t id = 777000 + c.stride;
    ExpectClose(run(w1, id), with_w1);
    ExpectClose(run(w1, id), with_w1);
    ExpectClose(run(w2, id + 10), with_w2);
    ExpectClose(run(w2, 0), with_w2);
  }
}

// softmax along |axis| in double: exp(x - max) / sum.
std::vector<float> ReferenceSoftmax(const Tensor& x, int axis) {
  int64_t outer = 1, n = x.shape()[axis], inner = 1;
  for (int i = 0; i < axis; ++i) outer *= x.shape()[i];
  for (size_t i = axis + 1; i < x.shape().size(); ++i) inner *= x.shape()[i];
  const float* v = x.data_as<float>();
  std::vector<float> out(x.numel());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      auto at = [&](int64_t j) { return (o * n + j) * inner + in; };
      double max = v[at(0)], sum = 0;
      for (int64_t j = 1; j < n; ++j) max = std::max<double>(max, v[at(j)]);
      for (int64_t j = 0; j < n; ++j) sum += std::exp(v[at(j)] - max);
      for (int64_t j = 0; j < n; ++j) out[at(j)] = static_cast<float>(std::exp(v[at(j)] - max) / sum);
    }
  }
  return out;
}

struct SoftmaxCase {
  std::vector<int64_t> shape;
  int axis;
};

class DnnlSoftmax : public ::testing::TestWithParam<SoftmaxCase> {};

TEST_P(DnnlSoftmax, MatchesLoops) {
  const SoftmaxCase& c = GetParam();
  std::mt19937 rng(11);
  Tensor x = RandomTensor(c.shape, rng);
  for (int64_t i = 0; i < x.numel(); ++i) x.data_as<float>()[i] *= 8;  // exps over a wide range
  Tensor out = Tensor::Empty(c.shape, DType::kFloat32);
  Call("dnnl.softmax", {x, Int(c.axis), out});
  ExpectClose(out, ReferenceSoftmax(x, c.axis), 1e-5f);
}

// The last axis (attention's rows; 128 x 32 x 32 is split over the pool), a middle and the first
// axis, one row, a row of one element.
INSTANTIATE_TEST_SUITE_P(Shapes, DnnlSoftmax,
                         ::testing::Values(SoftmaxCase{{2, 5}, 1}, SoftmaxCase{{128, 32, 32}, 2},
                                           SoftmaxCase{{3, 7, 4}, 1}, SoftmaxCase{{6, 5}, 0},
                                           SoftmaxCase{{1, 100}, 1}, SoftmaxCase{{4, 1}, 1},
                                           SoftmaxCase{{9}, 0}));

TEST(DnnlArguments, ErrorsNameTheArgument) {
  std::mt19937 rng(3);
  Tensor a = RandomTensor({4, 5}, rng), b = RandomTensor({5, 3}, rng), out = Tensor::Empty({4, 3}, DType::kFloat32);
  Tensor a64 = Tensor::Empty({4, 5}, DType::kFloat64);
  EXPECT_NE(CallError("dnnl.matmul", {a64, b, Int(0), out}).find("argument 0 (a) must be float32"), std::string::npos);
  EXPECT_NE(CallError("dnnl.matmul", {b, b, Int(0), out}).find("inner dims differ"), std::string::npos);
  EXPECT_NE(CallError("dnnl.matmul", {a, b, out}).find("takes 4 arguments"), std::string::npos);
  EXPECT_NE(CallError("dnnl.matmul", {a, b, Int(64), out}).find("unknown bits in flags 64"), std::string::npos);
  EXPECT_NE(CallError("dnnl.matmul", {a, b, a, out}).find("argument flags must be an int64 scalar"), std::string::npos);
  Tensor wrong_out = Tensor::Empty({4, 4}, DType::kFloat32);
  EXPECT_NE(CallError("dnnl.matmul", {a, b, Int(0), wrong_out}).find("the output has shape (4, 4), expected (4, 3)"),
            std::string::npos);
  Tensor b3 = RandomTensor({2, 5, 3}, rng), a3 = RandomTensor({3, 4, 5}, rng), out3 = Tensor::Empty({3, 4, 3}, DType::kFloat32);
  EXPECT_NE(CallError("dnnl.matmul", {a3, b3, Int(0), out3}).find("batch dims differ: a (3, 4, 5), b (2, 5, 3)"),
            std::string::npos);
  EXPECT_NE(CallError("dnnl.matmul", {a, b3, Int(0), out}).find("must be 2-D or have a's batch dims"), std::string::npos);
  EXPECT_NE(CallError("dnnl.softmax", {a, Int(2), out}).find("axis 2 is out of range for x (4, 5)"), std::string::npos);
  EXPECT_NE(CallError("dnnl.softmax", {a, Int(1), out}).find("the output has shape (4, 3), expected (4, 5)"),
            std::string::npos);
  Tensor bias4 = Tensor::Empty({4}, DType::kFloat32);
  EXPECT_NE(CallError("dnnl.matmul_bias", {a, b, bias4, Int(0), out}).find("bias has 4 elements, expected 3"),
            std::string::npos);
  // The message is prefixed with nothing of the VM here; the VM adds the function's name.
  Tensor x = RandomTensor({1, 3, 8, 8}, rng), w = RandomTensor({4, 2, 3, 3}, rng), y = Tensor::Empty({1, 4, 6, 6}, DType::kFloat32);
  std::vector<Tensor> conv = {x, w};
  for (int64_t v : {1, 1, 0, 0, 0, 0, 1, 1, 1, 0}) conv.push_back(Int(v));
  conv.push_back(y);
  EXPECT_NE(CallError("dnnl.conv2d", conv).find("do not match with groups 1"), std::string::npos);
  conv[2] = Int(0);  // stride_h 0
  EXPECT_NE(CallError("dnnl.conv2d", conv).find("stride_h is 0"), std::string::npos);
}

}  // namespace
}  // namespace rxt
