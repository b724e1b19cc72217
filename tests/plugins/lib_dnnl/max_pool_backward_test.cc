// dnnl.max_pool2d_backward against straightforward loops: each window's gradient to its first
// maximum (ties included: inputs from a few values), with and without the folded ReLU mask,
// 2x2 windows (the AVX-512 path, rows of more and fewer than 16 windows, odd sizes with a row
// and a column no window covers) and other windows (the portable loops); its argument errors.
// dnnl.max_pool2d_backward_strided the same way for windows with strides and padding: resnet's
// stem pooling, overlapping windows, gaps between windows, ceil mode's partial windows, more
// and fewer than 16 windows a plane (the AVX-512 path; the portable loops run when the test
// binary runs with ONEDNN_MAX_CPU_ISA=AVX2, test lib_dnnl_without_avx512).
#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "extern_call.h"

namespace rxt {
namespace {

using test::CallExtern;
using test::CallExternError;
using test::IntScalar;

Tensor FewValues(std::vector<int64_t> shape, std::mt19937& rng) {
  Tensor t = Tensor::Empty(shape, DType::kFloat32);
  std::uniform_int_distribution<int> pick(-2, 2);  // many ties, many windows <= 0
  for (int64_t i = 0; i < t.numel(); ++i) t.data_as<float>()[i] = 0.5f * static_cast<float>(pick(rng));
  return t;
}

std::vector<double> Reference(const Tensor& dz, const Tensor& x, int64_t kh, int64_t kw, bool relu) {
  const auto& s = x.shape();
  int64_t h = s[2], w = s[3], oh = h / kh, ow = w / kw;
  std::vector<double> dx(x.numel(), 0.0);
  for (int64_t p = 0; p < s[0] * s[1]; ++p) {
    const float* xp = x.data_as<float>() + p * h * w;
    for (int64_t oy = 0; oy < oh; ++oy) {
      for (int64_t ox = 0; ox < ow; ++ox) {
        int64_t best = -1;
        for (int64_t a = 0; a < kh; ++a) {
          for (int64_t b = 0; b < kw; ++b) {
            int64_t at = (oy * kh + a) * w + ox * kw + b;
            if (best < 0 || xp[at] > xp[best]) best = at;
          }
        }
        if (relu && !(xp[best] > 0.0f)) continue;
        dx[p * h * w + best] = dz.data_as<float>()[p * oh * ow + oy * ow + ox];
      }
    }
  }
  return dx;
}

struct PoolCase {
  std::vector<int64_t> x;
  int64_t kh, kw;
};

class DnnlMaxPoolBackward : public ::testing::TestWithParam<PoolCase> {};

TEST_P(DnnlMaxPoolBackward, MatchesLoops) {
  const PoolCase& c = GetParam();
  std::mt19937 rng(5);
  Tensor x = FewValues(c.x, rng);
  Tensor dz = FewValues({c.x[0], c.x[1], c.x[2] / c.kh, c.x[3] / c.kw}, rng);
  for (int relu : {0, 1}) {
    Tensor dx = Tensor::Empty(c.x, DType::kFloat32);
    for (int64_t i = 0; i < dx.numel(); ++i) dx.data_as<float>()[i] = 7.0f;  // every element must be written
    CallExtern("dnnl.max_pool2d_backward", {dz, x, IntScalar(c.kh), IntScalar(c.kw), IntScalar(relu), dx});
    test::ExpectClose(dx, Reference(dz, x, c.kh, c.kw, relu == 1), 0.0);
  }
}

const auto CaseName = [](const auto& info) { return "Case" + std::to_string(info.index); };

INSTANTIATE_TEST_SUITE_P(Shapes, DnnlMaxPoolBackward,
                         ::testing::Values(PoolCase{{3, 6, 28, 28}, 2, 2},    // LeNet's first (14 windows a row)
                                           PoolCase{{2, 16, 10, 10}, 2, 2},   // LeNet's second
                                           PoolCase{{1, 2, 7, 41}, 2, 2},     // 20 windows a row; odd sizes
                                           PoolCase{{2, 3, 9, 12}, 3, 3},     // portable loops
                                           PoolCase{{1, 2, 8, 9}, 2, 3}),     // a window that is not square
                         CaseName);

// Windows at (oy * sh - pt, ox * sw - pl) of kh x kw, clipped to x: each window's dz added to its
// first maximum (the first element inside, then strictly greater values), windows in row-major
// order; with relu nothing from windows whose maximum is <= 0.
struct StridedCase {
  std::vector<int64_t> x;
  int64_t kh, kw, sh, sw, pt, pl, oh, ow;
};

std::vector<double> StridedReference(const Tensor& dz, const Tensor& x, const StridedCase& c, bool relu) {
  const auto& s = x.shape();
  int64_t h = s[2], w = s[3];
  std::vector<float> dx(x.numel(), 0.0f);  // float sums, in the library's order
  for (int64_t p = 0; p < s[0] * s[1]; ++p) {
    const float* xp = x.data_as<float>() + p * h * w;
    for (int64_t oy = 0; oy < c.oh; ++oy) {
      for (int64_t ox = 0; ox < c.ow; ++ox) {
        int64_t best = -1;
        for (int64_t a = 0; a < c.kh; ++a) {
          for (int64_t b = 0; b < c.kw; ++b) {
            int64_t y = oy * c.sh - c.pt + a, col = ox * c.sw - c.pl + b;
            if (y < 0 || y >= h || col < 0 || col >= w) continue;
            if (best < 0 || xp[y * w + col] > xp[best]) best = y * w + col;
          }
        }
        if (best < 0) {
          ADD_FAILURE() << "a window without an element of x";
          continue;
        }
        if (relu && !(xp[best] > 0.0f)) continue;
        dx[p * h * w + best] += dz.data_as<float>()[(p * c.oh + oy) * c.ow + ox];
      }
    }
  }
  return std::vector<double>(dx.begin(), dx.end());
}

class DnnlMaxPoolBackwardStrided : public ::testing::TestWithParam<StridedCase> {};

TEST_P(DnnlMaxPoolBackwardStrided, MatchesLoops) {
  const StridedCase& c = GetParam();
  std::mt19937 rng(7);
  Tensor x = FewValues(c.x, rng);
  Tensor dz = FewValues({c.x[0], c.x[1], c.oh, c.ow}, rng);
  for (int relu : {0, 1}) {
    Tensor dx = Tensor::Empty(c.x, DType::kFloat32);
    for (int64_t i = 0; i < dx.numel(); ++i) dx.data_as<float>()[i] = 7.0f;  // every element must be written
    CallExtern("dnnl.max_pool2d_backward_strided",
               {dz, x, IntScalar(c.kh), IntScalar(c.kw), IntScalar(c.sh), IntScalar(c.sw), IntScalar(c.pt),
                IntScalar(c.pl), IntScalar(relu), dx});
    test::ExpectClose(dx, StridedReference(dz, x, c, relu == 1), 0.0);
  }
}

// Windows of negative values and -inf (padding must not win where x is -inf), and a NaN-free
// plane of one value (every window a tie).
TEST(DnnlMaxPoolBackwardStridedValues, NegativeInfinityAndTies) {
  StridedCase c{{1, 2, 9, 9}, 3, 3, 2, 2, 1, 1, 5, 5};
  for (float fill : {-std::numeric_limits<float>::infinity(), -3.0f}) {
    Tensor x = Tensor::Empty(c.x, DType::kFloat32);
    for (int64_t i = 0; i < x.numel(); ++i) x.data_as<float>()[i] = fill;
    Tensor dz = Tensor::Empty({1, 2, 5, 5}, DType::kFloat32);
    for (int64_t i = 0; i < dz.numel(); ++i) dz.data_as<float>()[i] = 1.0f + static_cast<float>(i);
    Tensor dx = Tensor::Empty(c.x, DType::kFloat32);
    CallExtern("dnnl.max_pool2d_backward_strided", {dz, x, IntScalar(3), IntScalar(3), IntScalar(2), IntScalar(2),
                                                    IntScalar(1), IntScalar(1), IntScalar(0), dx});
    test::ExpectClose(dx, StridedReference(dz, x, c, false), 0.0);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, DnnlMaxPoolBackwardStrided,
    ::testing::Values(StridedCase{{2, 3, 16, 16}, 3, 3, 2, 2, 1, 1, 8, 8},    // resnet's stem at 32x32 input
                      StridedCase{{1, 2, 15, 15}, 3, 3, 2, 2, 1, 1, 8, 8},    // odd size: the last window cut
                      StridedCase{{1, 3, 7, 9}, 2, 2, 1, 1, 0, 0, 6, 8},      // overlapping windows
                      StridedCase{{1, 2, 8, 7}, 2, 2, 3, 3, 0, 0, 3, 2},      // gaps between windows
                      StridedCase{{2, 2, 7, 7}, 2, 2, 2, 2, 0, 0, 4, 4},      // ceil mode: partial windows
                      StridedCase{{1, 2, 11, 9}, 5, 4, 2, 1, 2, 1, 6, 8},     // padding on one side only
                      StridedCase{{1, 1, 37, 45}, 3, 3, 2, 2, 1, 1, 19, 23},  // 437 windows: 27 rounds + 5
                      StridedCase{{1, 2, 3, 3}, 3, 3, 2, 2, 1, 1, 2, 2}),     // fewer than 16 windows
    CaseName);

TEST(DnnlMaxPoolBackwardStridedArguments, ErrorsNameTheArgument) {
  Tensor x = Tensor::Empty({1, 2, 5, 5}, DType::kFloat32), dz = Tensor::Empty({1, 2, 3, 3}, DType::kFloat32);
  Tensor dx = Tensor::Empty({1, 2, 5, 5}, DType::kFloat32);
  auto error = [&](Tensor g, int64_t kh, int64_t sh, int64_t pt, int64_t relu, Tensor out) {
    return CallExternError("dnnl.max_pool2d_backward_strided", {g, x, IntScalar(kh), IntScalar(3), IntScalar(sh),
                                                               IntScalar(2), IntScalar(pt), IntScalar(1),
                                                               IntScalar(relu), out});
  };
  auto has = [](const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; };
  EXPECT_TRUE(has(error(dz, 3, 2, 1, 0, dx), "(no error)"));
  EXPECT_TRUE(has(error(dz, 0, 2, 1, 0, dx), "the window is 0x3"));
  EXPECT_TRUE(has(error(dz, 3, 0, 1, 0, dx), "the strides are 0x2"));
  EXPECT_TRUE(has(error(dz, 3, 2, 3, 0, dx), "the padding (top 3, left 1) must be at least 0 and less than the window"));
  EXPECT_TRUE(has(error(dz, 3, 2, 1, 2, dx), "relu is 2"));
  EXPECT_TRUE(has(error(dz, 3, 2, 1, 0, Tensor::Empty({1, 2, 5, 4}, DType::kFloat32)), "the output has shape (1, 2, 5, 4)"));
  EXPECT_TRUE(has(error(Tensor::Empty({1, 2, 4, 3}, DType::kFloat32), 3, 2, 1, 0, dx),
                  "argument 0 (output gradient) has shape (1, 2, 4, 3): more windows than the data (1, 2, 5, 5) holds"));
  EXPECT_TRUE(has(error(Tensor::Empty({1, 3, 3, 3}, DType::kFloat32), 3, 2, 1, 0, dx), "argument 0 (output gradient)"));
  EXPECT_TRUE(has(CallExternError("dnnl.max_pool2d_backward_strided", {dz, x, IntScalar(3), dx}), "takes 10 arguments"));
}

TEST(DnnlMaxPoolBackwardArguments, ErrorsNameTheArgument) {
  Tensor x = Tensor::Empty({1, 2, 4, 4}, DType::kFloat32), dz = Tensor::Empty({1, 2, 2, 2}, DType::kFloat32);
  Tensor dx = Tensor::Empty({1, 2, 4, 4}, DType::kFloat32);
  auto error = [&](std::vector<Tensor> args) { return CallExternError("dnnl.max_pool2d_backward", args); };
  auto has = [](const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; };
  EXPECT_TRUE(has(error({dz, x, IntScalar(2), IntScalar(2), IntScalar(0), dx}), "(no error)"));
  EXPECT_TRUE(has(error({dz, x, IntScalar(0), IntScalar(2), IntScalar(0), dx}), "the window is 0x2"));
  EXPECT_TRUE(has(error({dz, x, IntScalar(2), IntScalar(2), IntScalar(3), dx}), "relu is 3"));
  EXPECT_TRUE(has(error({dz, x, IntScalar(2), IntScalar(2), IntScalar(0), Tensor::Empty({1, 2, 4, 3}, DType::kFloat32)}),
                  "the output has shape (1, 2, 4, 3)"));
  EXPECT_TRUE(has(error({dz, x, IntScalar(3), IntScalar(2), IntScalar(0), dx}),
                  "argument 0 (output gradient) has shape (1, 2, 2, 2), expected (1, 2, 1, 2)"));
  EXPECT_TRUE(has(error({dz, x, IntScalar(2), IntScalar(2), dx}), "takes 6 arguments"));
  EXPECT_TRUE(has(error({dz, Tensor::Empty({1, 2, 4, 4}, DType::kFloat64), IntScalar(2), IntScalar(2), IntScalar(0), dx}),
                  "argument 1 (data)"));
}

}  // namespace
}  // namespace rxt
