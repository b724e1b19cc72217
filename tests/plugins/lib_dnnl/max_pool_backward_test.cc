// dnnl.max_pool2d_backward against straightforward loops: each window's gradient to its first
// maximum (ties included: inputs from a few values), with and without the folded ReLU mask,
// 2x2 windows (the AVX-512 path, rows of more and fewer than 16 windows, odd sizes with a row
// and a column no window covers) and other windows (the portable loops); its argument errors.
#include <gtest/gtest.h>

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
