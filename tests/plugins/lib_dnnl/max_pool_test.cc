// dnnl.max_pool2d against straightforward loops: 2x2 windows (the AVX-512 path: rows of fewer
// and more than 16 windows, odd sizes whose last row and column no window covers), other
// windows (the portable loops), ties and negative values; dnnl.max_pool2d_strided (oneDNN's
// pooling on NCHW) with overlapping windows, padding and partial last windows; argument errors.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "extern_call.h"

namespace rxt {
namespace {

using test::CallExtern;
using test::CallExternError;
using test::IntScalar;

std::vector<double> Reference(const Tensor& x, int64_t kh, int64_t kw) {
  const auto& s = x.shape();
  int64_t h = s[2], w = s[3], oh = h / kh, ow = w / kw;
  std::vector<double> out;
  for (int64_t p = 0; p < s[0] * s[1]; ++p) {
    const float* xp = x.data_as<float>() + p * h * w;
    for (int64_t oy = 0; oy < oh; ++oy) {
      for (int64_t ox = 0; ox < ow; ++ox) {
        float best = xp[oy * kh * w + ox * kw];
        for (int64_t a = 0; a < kh; ++a) {
          for (int64_t b = 0; b < kw; ++b) best = std::max(best, xp[(oy * kh + a) * w + ox * kw + b]);
        }
        out.push_back(best);
      }
    }
  }
  return out;
}

struct PoolCase {
  std::vector<int64_t> x;
  int64_t kh, kw;
};

class DnnlMaxPool : public ::testing::TestWithParam<PoolCase> {};

TEST_P(DnnlMaxPool, MatchesLoops) {
  const PoolCase& c = GetParam();
  std::mt19937 rng(9);
  std::uniform_int_distribution<int> pick(-8, 8);  // ties, and windows of negative values only
  Tensor x = Tensor::Empty(c.x, DType::kFloat32);
  for (int64_t i = 0; i < x.numel(); ++i) x.data_as<float>()[i] = 0.25f * static_cast<float>(pick(rng)) - 1.0f;
  Tensor out = Tensor::Empty({c.x[0], c.x[1], c.x[2] / c.kh, c.x[3] / c.kw}, DType::kFloat32);
  for (int64_t i = 0; i < out.numel(); ++i) out.data_as<float>()[i] = 99.0f;  // every element must be written
  CallExtern("dnnl.max_pool2d", {x, IntScalar(c.kh), IntScalar(c.kw), out});
  test::ExpectClose(out, Reference(x, c.kh, c.kw), 0.0);
}

const auto CaseName = [](const auto& info) { return "Case" + std::to_string(info.index); };

INSTANTIATE_TEST_SUITE_P(Shapes, DnnlMaxPool,
                         ::testing::Values(PoolCase{{3, 6, 28, 28}, 2, 2},   // LeNet's first (14 windows a row)
                                           PoolCase{{2, 16, 10, 10}, 2, 2},  // LeNet's second
                                           PoolCase{{1, 2, 7, 41}, 2, 2},    // 20 windows a row; odd sizes
                                           PoolCase{{2, 3, 9, 12}, 3, 3},    // portable loops
                                           PoolCase{{1, 2, 8, 9}, 2, 3}),    // a window that is not square
                         CaseName);

TEST(DnnlMaxPoolArguments, ErrorsNameTheArgument) {
  Tensor x = Tensor::Empty({1, 2, 4, 4}, DType::kFloat32), out = Tensor::Empty({1, 2, 2, 2}, DType::kFloat32);
  auto error = [&](std::vector<Tensor> args) { return CallExternError("dnnl.max_pool2d", args); };
  auto has = [](const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; };
  EXPECT_TRUE(has(error({x, IntScalar(2), IntScalar(2), out}), "(no error)"));
  EXPECT_TRUE(has(error({x, IntScalar(2), IntScalar(0), out}), "the window is 2x0"));
  EXPECT_TRUE(has(error({x, IntScalar(3), IntScalar(2), out}),
                  "the output has shape (1, 2, 2, 2), expected (1, 2, 1, 2)"));
  EXPECT_TRUE(has(error({x, IntScalar(2), out}), "takes 4 arguments"));
  EXPECT_TRUE(has(error({Tensor::Empty({1, 2, 4, 4}, DType::kFloat64), IntScalar(2), IntScalar(2), out}),
                  "argument 0 (data)"));
  EXPECT_TRUE(has(error({Tensor::Empty({2, 4, 4}, DType::kFloat32), IntScalar(2), IntScalar(2), out}),
                  "argument 0 (data)"));
}

// Max over the window's elements inside x (padding never wins), for any undilated window.
std::vector<double> StridedReference(const Tensor& x, const int64_t k[2], const int64_t st[2], const int64_t pad[2],
                                     const std::vector<int64_t>& out) {
  const auto& s = x.shape();
  std::vector<double> result;
  for (int64_t p = 0; p < s[0] * s[1]; ++p) {
    const float* xp = x.data_as<float>() + p * s[2] * s[3];
    for (int64_t oy = 0; oy < out[2]; ++oy) {
      for (int64_t ox = 0; ox < out[3]; ++ox) {
        double best = -INFINITY;
        for (int64_t a = 0; a < k[0]; ++a) {
          for (int64_t b = 0; b < k[1]; ++b) {
            int64_t iy = oy * st[0] - pad[0] + a, ix = ox * st[1] - pad[1] + b;
            if (iy >= 0 && iy < s[2] && ix >= 0 && ix < s[3]) best = std::max<double>(best, xp[iy * s[3] + ix]);
          }
        }
        result.push_back(best);
      }
    }
  }
  return result;
}

struct StridedCase {
  std::vector<int64_t> x, out;
  int64_t window[2], stride[2], pad[2];  // pad: top, left
};

class DnnlMaxPoolStrided : public ::testing::TestWithParam<StridedCase> {};

TEST_P(DnnlMaxPoolStrided, MatchesLoops) {
  const StridedCase& c = GetParam();
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> pick(-8, 8);
  Tensor x = Tensor::Empty(c.x, DType::kFloat32);
  for (int64_t i = 0; i < x.numel(); ++i) x.data_as<float>()[i] = 0.25f * static_cast<float>(pick(rng)) - 1.0f;
  Tensor out = Tensor::Empty(c.out, DType::kFloat32);
  for (int64_t i = 0; i < out.numel(); ++i) out.data_as<float>()[i] = 99.0f;
  CallExtern("dnnl.max_pool2d_strided", {x, IntScalar(c.window[0]), IntScalar(c.window[1]), IntScalar(c.stride[0]),
                                         IntScalar(c.stride[1]), IntScalar(c.pad[0]), IntScalar(c.pad[1]), out});
  test::ExpectClose(out, StridedReference(x, c.window, c.stride, c.pad, c.out), 0.0);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, DnnlMaxPoolStrided,
    ::testing::Values(StridedCase{{5, 4, 16, 16}, {5, 4, 8, 8}, {3, 3}, {2, 2}, {1, 1}},  // resnet's stem, odd batch
                      StridedCase{{1, 2, 7, 9}, {1, 2, 6, 8}, {2, 2}, {1, 1}, {0, 0}},    // overlapping windows
                      StridedCase{{1, 2, 9, 9}, {1, 2, 5, 5}, {2, 2}, {2, 2}, {0, 0}},    // ceil mode's last window
                      StridedCase{{2, 3, 10, 7}, {2, 3, 5, 6}, {3, 2}, {2, 1}, {1, 0}}),  // every side different
    CaseName);

TEST(DnnlMaxPoolStridedArguments, ErrorsNameTheArgument) {
  Tensor x = Tensor::Empty({1, 2, 8, 8}, DType::kFloat32), out = Tensor::Empty({1, 2, 4, 4}, DType::kFloat32);
  auto error = [&](int64_t k, int64_t s, int64_t pad, const Tensor& o) {
    return CallExternError("dnnl.max_pool2d_strided",
                           {x, IntScalar(k), IntScalar(k), IntScalar(s), IntScalar(s), IntScalar(pad), IntScalar(pad), o});
  };
  auto has = [](const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; };
  EXPECT_TRUE(has(error(3, 2, 1, out), "(no error)"));
  EXPECT_TRUE(has(error(0, 2, 0, out), "the window is 0x0"));
  EXPECT_TRUE(has(error(3, 0, 0, out), "the strides are 0x0"));
  EXPECT_TRUE(has(error(3, 2, 3, out), "padding 3 before"));
  // Eight windows of stride 2 over 8 rows would need 8 rows of padding after them.
  EXPECT_TRUE(has(error(2, 2, 0, Tensor::Empty({1, 2, 8, 8}, DType::kFloat32)), "that needs padding 8 after"));
  EXPECT_TRUE(has(error(3, 2, 1, Tensor::Empty({1, 3, 4, 4}, DType::kFloat32)), "batch and channels"));
}

}  // namespace
}  // namespace rxt
