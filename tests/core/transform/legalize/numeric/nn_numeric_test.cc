// Neural-network ops: activations, conv2d, pooling.
#include <cmath>
#include <limits>

#include "core/transform/legalize/numeric/numeric_test_util.h"
#include "rxt/support/error.h"

namespace rxt::numeric {
namespace {

constexpr DType kF32 = DType::kFloat32;

TEST(NNNumeric, Activations) {
  Array x = Random({3, 4}, kF32, 1, -4, 4);
  EXPECT_TRUE(Near(RunOp("%x: Tensor((n, 4), float32)", "nn.relu(%x)", {x})[0],
                   Map(x.shape, kF32, [&](const Idx& i) { return std::max(x.at(i), 0.0); })));
  EXPECT_TRUE(Near(RunOp("%x: Tensor((n, 4), float32)", "nn.gelu(%x)", {x})[0],
                   Map(x.shape, kF32, [&](const Idx& i) { return x.at(i) * 0.5 * (1 + std::erf(x.at(i) / std::sqrt(2.0))); }),
                   1e-5, 1e-6));
  EXPECT_TRUE(Near(RunOp("%x: Tensor((n, 4), float32)", "nn.silu(%x)", {x})[0],
                   Map(x.shape, kF32, [&](const Idx& i) { return x.at(i) / (1 + std::exp(-x.at(i))); }), 1e-5, 1e-6));
  Array y = Random({5}, DType::kInt32, 2, -5, 5);
  EXPECT_TRUE(Near(RunOp("%y: Tensor((5,), int32)", "nn.relu(%y)", {y})[0],
                   Map(y.shape, DType::kInt32, [&](const Idx& i) { return std::max(y.at(i), 0.0); })));
}

/// Positions of N, C, H, W in a layout name ("NCHW", "NHWC"; kernels "OIHW", "HWIO" with O as N, I as C).
struct Layout {
  int n, c, h, w;
  explicit Layout(const std::string& s) {
    auto pos = [&](char a, char b) { return static_cast<int>(s.find(a) != std::string::npos ? s.find(a) : s.find(b)); };
    n = pos('N', 'O'), c = pos('C', 'I'), h = pos('H', 'H'), w = pos('W', 'W');
  }
  Idx Index(int64_t n_, int64_t c_, int64_t h_, int64_t w_) const {
    Idx i(4);
    i[n] = n_, i[c] = c_, i[h] = h_, i[w] = w_;
    return i;
  }
  Shape ShapeOf(int64_t n_, int64_t c_, int64_t h_, int64_t w_) const { return Index(n_, c_, h_, w_); }
};

struct Window {
  int64_t kernel, stride, pad_before, pad_after, dilation;
  /// Output positions (floor mode).
  int64_t Outputs(int64_t size) const { return (size + pad_before + pad_after - dilation * (kernel - 1) - 1) / stride + 1; }
  int64_t Input(int64_t out, int64_t k) const { return out * stride - pad_before + k * dilation; }
};

Array ReferenceConv2d(const Array& data, const Array& weight, const Layout& dl, const Layout& kl, const Window& wh,
                      const Window& ww, int64_t groups) {
  int64_t n = data.shape[dl.n], c = data.shape[dl.c], h = data.shape[dl.h], w = data.shape[dl.w];
  int64_t o = weight.shape[kl.n], ig = weight.shape[kl.c];
  int64_t oh = wh.Outputs(h), ow = ww.Outputs(w);
  (void)c;
  return Map(dl.ShapeOf(n, o, oh, ow), kF32, [&](const Idx& i) {
    int64_t b = i[dl.n], oc = i[dl.c], y = i[dl.h], x = i[dl.w];
    int64_t g = oc / (o / groups);
    double sum = 0;
    for (int64_t ic = 0; ic < ig; ++ic) {
      for (int64_t ky = 0; ky < weight.shape[kl.h]; ++ky) {
        for (int64_t kx = 0; kx < weight.shape[kl.w]; ++kx) {
          int64_t iy = wh.Input(y, ky), ix = ww.Input(x, kx);
          if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
          sum += data.at(dl.Index(b, g * ig + ic, iy, ix)) * weight.at(kl.Index(oc, ic, ky, kx));
        }
      }
    }
    return sum;
  });
}

struct ConvCase {
  std::string data_layout, kernel_layout;
  int64_t batch, channels, height, width, out_channels, kh, kw, groups;
  std::array<int64_t, 2> strides, dilation;
  std::array<int64_t, 4> pad;  // top, left, bottom, right
};

std::string Dims4(const Shape& s, const std::string& first) {
  return StrCat("(", first.empty() ? std::to_string(s[0]) : first, ", ", s[1], ", ", s[2], ", ", s[3], ")");
}

TEST(NNNumeric, Conv2dLayoutsStridesPaddingDilationGroups) {
  const ConvCase cases[] = {
      {"NCHW", "OIHW", 2, 3, 5, 5, 4, 3, 3, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}},
      {"NCHW", "OIHW", 1, 2, 6, 7, 3, 3, 2, 1, {2, 1}, {1, 2}, {1, 2, 0, 1}},
      {"NCHW", "OIHW", 2, 4, 5, 5, 6, 3, 3, 2, {1, 2}, {1, 1}, {1, 1, 1, 1}},
      {"NHWC", "HWIO", 2, 3, 6, 5, 2, 2, 3, 1, {2, 2}, {1, 1}, {1, 0, 1, 0}},
      {"NHWC", "OIHW", 1, 4, 5, 6, 4, 3, 1, 4, {1, 1}, {2, 1}, {2, 0, 2, 0}},  // depthwise
  };
  uint32_t seed = 10;
  for (const ConvCase& c : cases) {
    Layout dl(c.data_layout), kl(c.kernel_layout);
    Shape data_shape = dl.ShapeOf(c.batch, c.channels, c.height, c.width);
    Shape weight_shape = kl.ShapeOf(c.out_channels, c.channels / c.groups, c.kh, c.kw);
    std::string call = StrCat("nn.conv2d(%d, %w, strides=[", c.strides[0], ", ", c.strides[1], "], padding=[", c.pad[0],
                              ", ", c.pad[1], ", ", c.pad[2], ", ", c.pad[3], "], dilation=[", c.dilation[0], ", ",
                              c.dilation[1], "], groups=", c.groups, ", data_layout=\"", c.data_layout,
                              "\", kernel_layout=\"", c.kernel_layout, "\")");
    // The batch dim symbolic when it leads.
    std::string params = StrCat("%d: Tensor(", Dims4(data_shape, dl.n == 0 ? "n" : ""), ", float32), %w: Tensor(",
                                Dims4(weight_shape, ""), ", float32)");
    SCOPED_TRACE(call);
    Array data = Random(data_shape, kF32, seed++), weight = Random(weight_shape, kF32, seed++);
    std::vector<Array> out = RunOp(params, call, {data, weight});
    Window wh{c.kh, c.strides[0], c.pad[0], c.pad[2], c.dilation[0]};
    Window ww{c.kw, c.strides[1], c.pad[1], c.pad[3], c.dilation[1]};
    EXPECT_TRUE(Near(out[0], ReferenceConv2d(data, weight, dl, kl, wh, ww, c.groups), 1e-5, 1e-5));
  }
}

/// 2-D pooling reference: every window position inside the input takes part; |average|
/// divides by the positions inside the input (or, with |include_pad|, inside the padded input).
Array ReferencePool(const Array& data, const Layout& l, const Window& wh, const Window& ww, int64_t oh, int64_t ow,
                    bool average, bool include_pad) {
  int64_t h = data.shape[l.h], w = data.shape[l.w];
  return Map(l.ShapeOf(data.shape[l.n], data.shape[l.c], oh, ow), kF32, [&](const Idx& i) {
    double acc = average ? 0 : -std::numeric_limits<double>::infinity();
    int64_t count = 0;
    for (int64_t ky = 0; ky < wh.kernel; ++ky) {
      for (int64_t kx = 0; kx < ww.kernel; ++kx) {
        int64_t iy = wh.Input(i[l.h], ky), ix = ww.Input(i[l.w], kx);
        bool inside = iy >= 0 && iy < h && ix >= 0 && ix < w;
        bool in_padded = iy >= -wh.pad_before && iy < h + wh.pad_after && ix >= -ww.pad_before && ix < w + ww.pad_after;
        if (include_pad ? in_padded : inside) ++count;
        if (!inside) continue;
        double v = data.at(l.Index(i[l.n], i[l.c], iy, ix));
        acc = average ? acc + v : std::max(acc, v);
      }
    }
    return average ? acc / count : acc;
  });
}

struct PoolCase {
  const char* layout;
  Shape shape;  // N, C, H, W
  int64_t kh, kw, sh, sw, dh, dw;
  std::array<int64_t, 4> pad;
  bool ceil_mode;
  int64_t oh, ow;  // expected output size
};

TEST(NNNumeric, MaxAndAvgPool2d) {
  const PoolCase cases[] = {
      {"NCHW", {2, 2, 6, 6}, 2, 2, 2, 2, 1, 1, {0, 0, 0, 0}, false, 3, 3},
      {"NCHW", {1, 2, 5, 7}, 3, 3, 2, 2, 1, 1, {1, 1, 1, 1}, false, 3, 4},
      {"NHWC", {2, 5, 5, 3}, 3, 2, 2, 1, 1, 2, {1, 0, 0, 1}, true, 3, 2},
      {"NCHW", {1, 1, 6, 5}, 2, 2, 2, 2, 2, 1, {0, 0, 0, 0}, true, 3, 3},
      {"NCHW", {1, 2, 9, 8}, 4, 4, 3, 2, 1, 1, {1, 2, 1, 1}, false, 3, 4},  // 16 positions: loaded one by one
      {"NCHW", {1, 2, 9, 8}, 5, 5, 2, 3, 1, 1, {2, 2, 2, 2}, true, 5, 4},   // 25: reduced over
  };
  uint32_t seed = 30;
  for (const PoolCase& c : cases) {
    Layout l(c.layout);
    Shape shape = l.ShapeOf(c.shape[0], c.shape[1], c.shape[2], c.shape[3]);
    Array data = Random(shape, kF32, seed++, -5, 5);
    Window wh{c.kh, c.sh, c.pad[0], c.pad[2], c.dh}, ww{c.kw, c.sw, c.pad[1], c.pad[3], c.dw};
    std::string attrs = StrCat("pool_size=[", c.kh, ", ", c.kw, "], strides=[", c.sh, ", ", c.sw, "], dilation=[", c.dh,
                               ", ", c.dw, "], padding=[", c.pad[0], ", ", c.pad[1], ", ", c.pad[2], ", ", c.pad[3],
                               "], ceil_mode=", c.ceil_mode ? "true" : "false", ", layout=\"", c.layout, "\"");
    std::string params = StrCat("%x: Tensor(", Dims4(shape, "n"), ", float32)");
    SCOPED_TRACE(attrs);
    EXPECT_TRUE(Near(RunOp(params, StrCat("nn.max_pool2d(%x, ", attrs, ")"), {data})[0],
                     ReferencePool(data, l, wh, ww, c.oh, c.ow, false, false)));
    for (bool include_pad : {false, true}) {
      std::string call = StrCat("nn.avg_pool2d(%x, ", attrs, ", count_include_pad=", include_pad ? "true" : "false", ")");
      EXPECT_TRUE(Near(RunOp(params, call, {data})[0], ReferencePool(data, l, wh, ww, c.oh, c.ow, true, include_pad),
                       1e-5, 1e-6))
          << call;
    }
  }
}

TEST(NNNumeric, AdaptiveAvgPool2dUsesPyTorchWindows) {
  struct Case {
    const char* layout;
    Shape shape;  // N, C, H, W
    const char* output_size;
    int64_t oh, ow;
  };
  const Case cases[] = {{"NCHW", {2, 3, 7, 5}, "[3, 2]", 3, 2},
                        {"NHWC", {1, 2, 6, 6}, "[4]", 4, 4},
                        {"NCHW", {1, 2, 5, 4}, "none", 5, 4},
                        {"NCHW", {1, 1, 3, 2}, "[5, 3]", 5, 3}};  // windows overlap when out > in
  uint32_t seed = 40;
  for (const Case& c : cases) {
    Layout l(c.layout);
    Shape shape = l.ShapeOf(c.shape[0], c.shape[1], c.shape[2], c.shape[3]);
    Array data = Random(shape, kF32, seed++);
    std::string call = StrCat("nn.adaptive_avg_pool2d(%x, output_size=", c.output_size, ", layout=\"", c.layout, "\")");
    SCOPED_TRACE(call);
    int64_t h = c.shape[2], w = c.shape[3];
    Array expected = Map(l.ShapeOf(c.shape[0], c.shape[1], c.oh, c.ow), kF32, [&](const Idx& i) {
      int64_t y0 = i[l.h] * h / c.oh, y1 = ((i[l.h] + 1) * h + c.oh - 1) / c.oh;
      int64_t x0 = i[l.w] * w / c.ow, x1 = ((i[l.w] + 1) * w + c.ow - 1) / c.ow;
      double sum = 0;
      for (int64_t y = y0; y < y1; ++y) {
        for (int64_t x = x0; x < x1; ++x) sum += data.at(l.Index(i[l.n], i[l.c], y, x));
      }
      return sum / ((y1 - y0) * (x1 - x0));
    });
    EXPECT_TRUE(Near(RunOp(StrCat("%x: Tensor(", Dims4(shape, "n"), ", float32)"), call, {data})[0], expected, 1e-5, 1e-6));
  }
  // Symbolic spatial dims: the window bound is computed at run time.
  Array data = Random({1, 1, 7, 4}, kF32, 50);
  std::vector<Array> out = RunOp("%x: Tensor((1, 1, h, w), float32)", "nn.adaptive_avg_pool2d(%x, output_size=[2, 3])", {data});
  EXPECT_EQ(out[0].shape, (Shape{1, 1, 2, 3}));
  EXPECT_NEAR(out[0].data[0], (data.at({0, 0, 0, 0}) + data.at({0, 0, 0, 1}) + data.at({0, 0, 1, 0}) +
                               data.at({0, 0, 1, 1}) + data.at({0, 0, 2, 0}) + data.at({0, 0, 2, 1}) +
                               data.at({0, 0, 3, 0}) + data.at({0, 0, 3, 1})) / 8,
              1e-5);
}

// Average pooling sums its windows in float64: a global average over a 96x96 map of values
// near 1000 is the exact mean rounded once.
TEST(NNNumeric, AveragePoolingSumsInFloat64) {
  Array data = Map({1, 2, 96, 96}, kF32, [](const Idx& i) { return 1000 + std::sin(0.01 * (i[2] * 96 + i[3]) + i[1]); });
  Array mean = Map({1, 2, 1, 1}, kF32, [&](const Idx& i) {
    double sum = 0;
    for (int64_t y = 0; y < 96; ++y) {
      for (int64_t x = 0; x < 96; ++x) sum += data.at({0, i[1], y, x});
    }
    return sum / (96 * 96);
  });
  const std::string params = "%x: Tensor((1, 2, 96, 96), float32)";
  EXPECT_TRUE(Near(RunOp(params, "nn.adaptive_avg_pool2d(%x, output_size=[1, 1])", {data})[0], mean, 1e-7, 0));
  EXPECT_TRUE(Near(RunOp(params, "nn.avg_pool2d(%x, pool_size=[96, 96])", {data})[0], mean, 1e-7, 0));
}

}  // namespace
}  // namespace rxt::numeric
