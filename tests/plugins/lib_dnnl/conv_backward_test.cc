// dnnl.conv2d_pool / conv2d_bias_pool, dnnl.conv2d_backward_data and
// dnnl.conv2d_backward_weights(_bias) called as the VM calls them, against plain C++ loops
// written from the forward definition, against the adjoint identities that define them
// (<conv(x, w), dz> = <x, dx> = <w, dw>, with the forward extern), and their argument errors.
#include <gtest/gtest.h>

#include <random>

#include "extern_call.h"
#include "test_util/seed_mlp_reference.h"

namespace rxt {
namespace {

using test::RandomTensor;

struct Window {
  int64_t stride[2], pad[4], dilation[2], groups;
  int64_t OutSize(int axis, int64_t in, int64_t k) const {
    return (in + pad[axis] + pad[axis + 2] - dilation[axis] * (k - 1) - 1) / stride[axis] + 1;
  }
  void Append(std::vector<Tensor>& args) const {
    for (int64_t v : {stride[0], stride[1], pad[0], pad[1], pad[2], pad[3], dilation[0], dilation[1], groups}) {
      args.push_back(test::IntScalar(v));
    }
  }
};

// Calls |visit(b, o, oy, ox, c, iy, ix, ky, kx)| for every product term of the convolution
// out[b, o, oy, ox] += x[b, c, iy, ix] * w[o, c % (C/g), ky, kx].
template <class Visit>
void ForEachTerm(const std::vector<int64_t>& x, const std::vector<int64_t>& w, const Window& win, Visit visit) {
  int64_t oh = win.OutSize(0, x[2], w[2]), ow = win.OutSize(1, x[3], w[3]);
  int64_t per_group_out = w[0] / win.groups;
  for (int64_t b = 0; b < x[0]; ++b)
    for (int64_t o = 0; o < w[0]; ++o)
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox)
          for (int64_t ci = 0; ci < w[1]; ++ci)
            for (int64_t ky = 0; ky < w[2]; ++ky)
              for (int64_t kx = 0; kx < w[3]; ++kx) {
                int64_t iy = oy * win.stride[0] - win.pad[0] + ky * win.dilation[0];
                int64_t ix = ox * win.stride[1] - win.pad[1] + kx * win.dilation[1];
                if (iy < 0 || iy >= x[2] || ix < 0 || ix >= x[3]) continue;
                visit(b, o, oy, ox, (o / per_group_out) * w[1] + ci, ci, iy, ix, ky, kx);
              }
}

struct GradCase {
  std::vector<int64_t> x, w;
  Window window;
};

std::vector<int64_t> OutShape(const GradCase& c) {
  return {c.x[0], c.w[0], c.window.OutSize(0, c.x[2], c.w[2]), c.window.OutSize(1, c.x[3], c.w[3])};
}

class DnnlConvGrad : public ::testing::TestWithParam<GradCase> {};

TEST_P(DnnlConvGrad, DataGradientMatchesLoops) {
  const GradCase& c = GetParam();
  std::mt19937 rng(5);
  std::vector<int64_t> z = OutShape(c);
  Tensor w = RandomTensor(c.w, rng), dz = RandomTensor(z, rng), dx = Tensor::Empty(c.x, DType::kFloat32);
  std::vector<Tensor> args = {dz, w};
  c.window.Append(args);
  args.push_back(dx);
  test::CallExtern("dnnl.conv2d_backward_data", args);
  std::vector<double> expected(dx.numel(), 0.0);
  const float* wp = w.data_as<float>();
  const float* zp = dz.data_as<float>();
  ForEachTerm(c.x, c.w, c.window, [&](int64_t b, int64_t o, int64_t oy, int64_t ox, int64_t ch, int64_t ci, int64_t iy,
                                      int64_t ix, int64_t ky, int64_t kx) {
    expected[((b * c.x[1] + ch) * c.x[2] + iy) * c.x[3] + ix] +=
        double(zp[((b * z[1] + o) * z[2] + oy) * z[3] + ox]) * wp[((o * c.w[1] + ci) * c.w[2] + ky) * c.w[3] + kx];
  });
  test::ExpectClose(dx, expected);
}

TEST_P(DnnlConvGrad, WeightAndBiasGradientsMatchLoops) {
  const GradCase& c = GetParam();
  std::mt19937 rng(6);
  std::vector<int64_t> z = OutShape(c);
  Tensor x = RandomTensor(c.x, rng), dz = RandomTensor(z, rng);
  Tensor dw = Tensor::Empty(c.w, DType::kFloat32), dw2 = Tensor::Empty(c.w, DType::kFloat32);
  Tensor db = Tensor::Empty({1, c.w[0], 1, 1}, DType::kFloat32);
  std::vector<Tensor> args = {x, dz};
  c.window.Append(args);
  std::vector<Tensor> with_bias = args;
  args.push_back(dw);
  with_bias.push_back(dw2);
  with_bias.push_back(db);
  test::CallExtern("dnnl.conv2d_backward_weights", args);
  test::CallExtern("dnnl.conv2d_backward_weights_bias", with_bias);
  std::vector<double> expected(dw.numel(), 0.0), expected_bias(c.w[0], 0.0);
  const float* xp = x.data_as<float>();
  const float* zp = dz.data_as<float>();
  ForEachTerm(c.x, c.w, c.window, [&](int64_t b, int64_t o, int64_t oy, int64_t ox, int64_t ch, int64_t ci, int64_t iy,
                                      int64_t ix, int64_t ky, int64_t kx) {
    expected[((o * c.w[1] + ci) * c.w[2] + ky) * c.w[3] + kx] +=
        double(zp[((b * z[1] + o) * z[2] + oy) * z[3] + ox]) * xp[((b * c.x[1] + ch) * c.x[2] + iy) * c.x[3] + ix];
  });
  for (int64_t i = 0; i < dz.numel(); ++i) expected_bias[(i / (z[2] * z[3])) % z[1]] += zp[i];
  test::ExpectClose(dw, expected);
  test::ExpectClose(dw2, expected);
  test::ExpectClose(db, expected_bias);
}

double Dot(const Tensor& a, const Tensor& b) {
  double s = 0;
  for (int64_t i = 0; i < a.numel(); ++i) s += double(a.data_as<float>()[i]) * b.data_as<float>()[i];
  return s;
}

// The gradients are the adjoints of the forward extern: <conv(x, w), dz> = <x, dx> = <w, dw>.
TEST_P(DnnlConvGrad, AdjointsOfTheForwardExtern) {
  const GradCase& c = GetParam();
  std::mt19937 rng(8);
  std::vector<int64_t> z = OutShape(c);
  Tensor x = RandomTensor(c.x, rng), w = RandomTensor(c.w, rng), dz = RandomTensor(z, rng);
  Tensor y = Tensor::Empty(z, DType::kFloat32), dx = Tensor::Empty(c.x, DType::kFloat32);
  Tensor dw = Tensor::Empty(c.w, DType::kFloat32);
  std::vector<Tensor> fwd = {x, w}, bd = {dz, w}, bw = {x, dz};
  for (auto* args : {&fwd, &bd, &bw}) c.window.Append(*args);
  fwd.push_back(test::IntScalar(0));  // relu
  fwd.push_back(y);
  bd.push_back(dx);
  bw.push_back(dw);
  test::CallExtern("dnnl.conv2d", fwd);
  test::CallExtern("dnnl.conv2d_backward_data", bd);
  test::CallExtern("dnnl.conv2d_backward_weights", bw);
  double forward = Dot(y, dz);
  EXPECT_NEAR(Dot(x, dx), forward, 1e-3 * (1 + std::abs(forward)));
  EXPECT_NEAR(Dot(w, dw), forward, 1e-3 * (1 + std::abs(forward)));
}

/// Stable test names (Case0, Case1, ...): the default prints the case's bytes, pointers included.
const auto CaseName = [](const auto& info) { return "Case" + std::to_string(info.index); };

INSTANTIATE_TEST_SUITE_P(
    Shapes, DnnlConvGrad,
    ::testing::Values(GradCase{{4, 1, 28, 28}, {6, 1, 5, 5}, {{1, 1}, {2, 2, 2, 2}, {1, 1}, 1}},  // LeNet conv 1
                      GradCase{{4, 6, 14, 14}, {16, 6, 5, 5}, {{1, 1}, {0, 0, 0, 0}, {1, 1}, 1}},  // LeNet conv 2
                      GradCase{{2, 4, 9, 8}, {6, 2, 3, 3}, {{2, 1}, {1, 0, 2, 1}, {1, 2}, 2}},   // groups, asymmetric
                      GradCase{{1, 3, 10, 11}, {5, 3, 3, 2}, {{2, 3}, {0, 1, 1, 0}, {2, 1}, 1}},  // strides, dilation
                      GradCase{{3, 16, 6, 6}, {32, 16, 1, 1}, {{1, 1}, {0, 0, 0, 0}, {1, 1}, 1}},  // 1x1, blocked
                      GradCase{{2, 5, 7, 7}, {4, 5, 3, 3}, {{2, 2}, {1, 1, 1, 1}, {1, 1}, 1}},  // stride 2: unused rows
                      // At most 8 channels, stride 1 (narrow_conv_backward_data.h): a row of 16 +
                      // 4, all 8 channels, padding wider than the kernel on the right.
                      GradCase{{2, 8, 9, 20}, {5, 8, 3, 3}, {{1, 1}, {1, 1, 1, 1}, {1, 1}, 1}},
                      GradCase{{3, 3, 6, 5}, {4, 3, 2, 3}, {{1, 1}, {0, 2, 3, 6}, {1, 1}, 1}},
                      // One input channel (single_channel_conv.h): 3x3 and 7x4 kernels (the
                      // latter in the portable loops), rows of 16 + 15 and shorter than 16.
                      GradCase{{3, 1, 12, 32}, {10, 1, 3, 3}, {{1, 1}, {1, 0, 2, 1}, {1, 1}, 1}},
                      GradCase{{2, 1, 9, 6}, {3, 1, 7, 4}, {{1, 1}, {1, 1, 0, 2}, {1, 1}, 1}},
                      // Output maps of at most 4 pixels (small_map_conv.h): one live tap on 1x1;
                      // 1x2 with 3 live taps; 2x2 with all (once large enough to be split over the
                      // pool); stride 2 onto 1x1 with 4 live taps.
                      GradCase{{3, 20, 1, 1}, {24, 20, 3, 3}, {{1, 1}, {1, 1, 1, 1}, {1, 1}, 1}},
                      GradCase{{2, 8, 1, 2}, {5, 8, 3, 3}, {{1, 1}, {1, 1, 1, 1}, {1, 1}, 1}},
                      GradCase{{2, 17, 2, 2}, {9, 17, 3, 3}, {{1, 1}, {1, 1, 1, 1}, {1, 1}, 1}},
                      GradCase{{8, 128, 2, 2}, {128, 128, 3, 3}, {{1, 1}, {1, 1, 1, 1}, {1, 1}, 1}},
                      GradCase{{2, 6, 2, 2}, {4, 6, 3, 3}, {{2, 2}, {1, 1, 1, 1}, {1, 1}, 1}}),
    CaseName);

struct PoolCase {
  GradCase conv;
  bool bias, relu;
  int64_t pool[8];  // kh, kw, sh, sw, pt, pl, pb, pr
};

class DnnlConvPool : public ::testing::TestWithParam<PoolCase> {};

TEST_P(DnnlConvPool, MatchesConvThenLoops) {
  const PoolCase& c = GetParam();
  std::mt19937 rng(9);
  std::vector<int64_t> z = OutShape(c.conv);
  Tensor x = RandomTensor(c.conv.x, rng), w = RandomTensor(c.conv.w, rng), bias = RandomTensor({c.conv.w[0]}, rng);
  Tensor conv = Tensor::Empty(z, DType::kFloat32);
  std::vector<Tensor> args = {x, w};
  if (c.bias) args.push_back(bias);
  c.conv.window.Append(args);
  args.push_back(test::IntScalar(c.relu));
  std::vector<Tensor> conv_args = args;
  conv_args.push_back(conv);
  test::CallExtern(c.bias ? "dnnl.conv2d_bias" : "dnnl.conv2d", conv_args);
  const int64_t* p = c.pool;
  int64_t ph = (z[2] + p[4] + p[6] - p[0]) / p[2] + 1, pw = (z[3] + p[5] + p[7] - p[1]) / p[3] + 1;
  Tensor pooled = Tensor::Empty({z[0], z[1], ph, pw}, DType::kFloat32);
  for (int i = 0; i < 8; ++i) args.push_back(test::IntScalar(p[i]));
  args.push_back(pooled);
  test::CallExtern(c.bias ? "dnnl.conv2d_bias_pool" : "dnnl.conv2d_pool", args);
  std::vector<double> expected(pooled.numel());
  const float* cp = conv.data_as<float>();
  for (int64_t bc = 0; bc < z[0] * z[1]; ++bc)
    for (int64_t y = 0; y < ph; ++y)
      for (int64_t xo = 0; xo < pw; ++xo) {
        float best = -INFINITY;
        for (int64_t ky = 0; ky < p[0]; ++ky)
          for (int64_t kx = 0; kx < p[1]; ++kx) {
            int64_t iy = y * p[2] - p[4] + ky, ix = xo * p[3] - p[5] + kx;
            if (iy >= 0 && iy < z[2] && ix >= 0 && ix < z[3]) best = std::max(best, cp[(bc * z[2] + iy) * z[3] + ix]);
          }
        expected[(bc * ph + y) * pw + xo] = best;
      }
  test::ExpectClose(pooled, expected);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, DnnlConvPool,
    ::testing::Values(PoolCase{{{3, 1, 28, 28}, {6, 1, 5, 5}, {{1, 1}, {2, 2, 2, 2}, {1, 1}, 1}}, true, true,
                               {2, 2, 2, 2, 0, 0, 0, 0}},  // LeNet 1
                      PoolCase{{{3, 6, 14, 14}, {16, 6, 5, 5}, {{1, 1}, {0, 0, 0, 0}, {1, 1}, 1}}, true, true,
                               {2, 2, 2, 2, 0, 0, 0, 0}},  // LeNet 2
                      PoolCase{{{2, 4, 9, 9}, {6, 2, 3, 3}, {{1, 1}, {1, 1, 1, 1}, {1, 1}, 2}}, false, false,
                               {3, 2, 2, 1, 1, 0, 1, 1}},  // groups, overlapping padded windows
                      PoolCase{{{1, 3, 8, 7}, {5, 3, 2, 2}, {{2, 1}, {0, 0, 1, 0}, {1, 2}, 1}}, true, false,
                               {2, 3, 1, 2, 0, 1, 0, 0}}),
    CaseName);

// No output channels: nothing flows back, the data gradient is zero (oneDNN is not called).
TEST(DnnlConvGradEmpty, NoOutputChannelsGiveAZeroDataGradient) {
  std::mt19937 rng(2);
  Tensor dz = Tensor::Empty({2, 0, 6, 6}, DType::kFloat32), w = Tensor::Empty({0, 3, 3, 3}, DType::kFloat32);
  Tensor dx = RandomTensor({2, 3, 8, 8}, rng);
  std::vector<Tensor> args = {dz, w};
  Window{{1, 1}, {0, 0, 0, 0}, {1, 1}, 1}.Append(args);
  args.push_back(dx);
  test::CallExtern("dnnl.conv2d_backward_data", args);
  test::ExpectClose(dx, std::vector<double>(dx.numel(), 0.0));
}

TEST(DnnlConvArguments, ErrorsNameTheFunctionAndArgument) {
  std::mt19937 rng(4);
  Tensor x = RandomTensor({2, 3, 8, 8}, rng), w = RandomTensor({4, 3, 3, 3}, rng);
  Tensor dz = RandomTensor({2, 4, 6, 6}, rng), dx = Tensor::Empty({2, 3, 8, 8}, DType::kFloat32);
  Tensor dw = Tensor::Empty({4, 3, 3, 3}, DType::kFloat32), db = Tensor::Empty({1, 4, 1, 1}, DType::kFloat32);
  Window win{{1, 1}, {0, 0, 0, 0}, {1, 1}, 1};
  auto call = [&](const std::string& name, std::vector<Tensor> head, std::vector<Tensor> tail, Window wd = {}) {
    std::vector<Tensor> args = std::move(head);
    (wd.stride[0] == 0 ? win : wd).Append(args);
    args.insert(args.end(), tail.begin(), tail.end());
    return test::CallExternError(name, args);
  };
  auto has = [](const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos ? ::testing::AssertionSuccess()
                                                : ::testing::AssertionFailure() << "'" << text << "' lacks '" << part << "'";
  };
  // Wrong rank, wrong dtype, shape mismatch, bad window values, arity.
  EXPECT_TRUE(has(call("dnnl.conv2d_backward_data", {RandomTensor({2, 4, 36}, rng), w}, {dx}),
                  "argument 0 (output gradient) must have 4 dims, got 3"));
  EXPECT_TRUE(has(call("dnnl.conv2d_backward_data", {dz, Tensor::Empty({4, 3, 3, 3}, DType::kFloat64)}, {dx}),
                  "argument 1 (weight) must be float32"));
  EXPECT_TRUE(has(call("dnnl.conv2d_backward_data", {RandomTensor({2, 4, 5, 6}, rng), w}, {dx}),
                  "dnnl.conv2d_backward_data: argument 0 (output gradient) has shape (2, 4, 5, 6), expected (2, 4, 6, 6)"));
  EXPECT_TRUE(has(call("dnnl.conv2d_backward_data", {dz, w}, {Tensor::Empty({2, 6, 8, 8}, DType::kFloat32)}),
                  "dnnl.conv2d_backward_data: the output (data gradient) (2, 6, 8, 8) and argument 1 (weight) "
                  "(4, 3, 3, 3) do not match with groups 1"));
  EXPECT_TRUE(has(call("dnnl.conv2d_backward_data", {dz, w}, {dx}, Window{{1, 1}, {0, -1, 0, 0}, {1, 1}, 1}),
                  "pad_left is -1"));
  EXPECT_TRUE(has(call("dnnl.conv2d_backward_data", {dz, w}, {dx, dx}), "dnnl.conv2d_backward_data takes 12 arguments"));
  EXPECT_TRUE(has(call("dnnl.conv2d_backward_weights", {x, dz}, {Tensor::Empty({4, 3, 2, 2}, DType::kFloat32)}),
                  "dnnl.conv2d_backward_weights: argument 1 (output gradient) has shape (2, 4, 6, 6), expected (2, 4, 7, 7)"));
  EXPECT_TRUE(has(call("dnnl.conv2d_backward_weights", {x, dz}, {dw}, Window{{1, 0}, {0, 0, 0, 0}, {1, 1}, 1}),
                  "stride_w is 0"));
  EXPECT_TRUE(has(call("dnnl.conv2d_backward_weights_bias", {x, dz}, {dw, Tensor::Empty({3}, DType::kFloat32)}),
                  "dnnl.conv2d_backward_weights_bias: output 1 (bias gradient) has 3 elements, expected 4"));
  EXPECT_TRUE(has(call("dnnl.conv2d_backward_weights_bias", {x, dz}, {dw}), "takes 13 arguments"));
  EXPECT_TRUE(has(call("dnnl.conv2d_backward_weights", {x, dz}, {dw}, Window{{1, 1}, {0, 0, 0, 0}, {1, 1}, 0}),
                  "groups is 0"));
  // The pooled forward: pool window values and the pooled shape.
  std::vector<Tensor> pool_args = {x, w};
  win.Append(pool_args);
  pool_args.push_back(test::IntScalar(1));
  for (int64_t v : {2, 2, 2, 2, 0, 0, 0, 0}) pool_args.push_back(test::IntScalar(v));
  pool_args.push_back(Tensor::Empty({2, 4, 3, 4}, DType::kFloat32));
  EXPECT_TRUE(has(test::CallExternError("dnnl.conv2d_pool", pool_args),
                  "dnnl.conv2d_pool: the output has shape (2, 4, 3, 4), expected (2, 4, 3, 3)"));
  pool_args[pool_args.size() - 9] = test::IntScalar(0);  // pool_h 0
  EXPECT_TRUE(has(test::CallExternError("dnnl.conv2d_pool", pool_args), "pool_h is 0"));
  pool_args[pool_args.size() - 9] = test::IntScalar(2);
  pool_args[pool_args.size() - 5] = test::IntScalar(2);  // pool_pad_top 2 >= pool_h
  EXPECT_TRUE(has(test::CallExternError("dnnl.conv2d_pool", pool_args), "pool padding must be smaller than the pool window"));
  pool_args[pool_args.size() - 5] = test::IntScalar(0);
  pool_args[pool_args.size() - 10] = test::IntScalar(2);  // relu 2
  EXPECT_TRUE(has(test::CallExternError("dnnl.conv2d_pool", pool_args), "relu is 2, expected 0 or 1"));
}

}  // namespace
}  // namespace rxt
