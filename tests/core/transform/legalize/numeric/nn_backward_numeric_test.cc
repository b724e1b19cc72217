// The ops gradient rules build on: nn.conv2d_transpose, conv2d's gradient ops, the pooling
// backward ops and nn.dropout with a seed, against C++ references that scatter where the
// kernels gather.
#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "core/transform/legalize/numeric/numeric_test_util.h"
#include "rxt/support/error.h"

namespace rxt::numeric {
namespace {

constexpr DType kF32 = DType::kFloat32;

/// Positions of N, C, H, W in a layout name; kernels: "IOHW"/"HWOI" with I as C, O as N.
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
};

std::string Dims4(const Shape& s, bool symbolic_batch) {
  return StrCat("(", symbolic_batch ? std::string("n") : std::to_string(s[0]), ", ", s[1], ", ", s[2], ", ", s[3], ")");
}

struct TransposeCase {
  std::string data_layout, kernel_layout;
  int64_t batch, in_channels, height, width, group_outputs, kh, kw, groups;
  int64_t stride, dilation, output_padding;
  std::array<int64_t, 4> pad;  // top, left, bottom, right
};

TEST(NNBackwardNumeric, Conv2dTransposeScattersEveryInput) {
  const TransposeCase cases[] = {
      {"NCHW", "IOHW", 2, 3, 4, 5, 2, 3, 3, 1, 1, 1, 0, {0, 0, 0, 0}},
      {"NCHW", "IOHW", 1, 2, 3, 4, 3, 3, 2, 1, 2, 1, 1, {1, 0, 1, 1}},
      {"NHWC", "HWOI", 2, 4, 3, 3, 1, 2, 3, 2, 2, 2, 1, {0, 1, 0, 0}},
      {"NCHW", "HWOI", 1, 4, 2, 3, 2, 3, 3, 4, 3, 1, 2, {2, 1, 0, 1}},
  };
  uint32_t seed = 70;
  for (const TransposeCase& c : cases) {
    Layout dl(c.data_layout), kl(c.kernel_layout);
    int64_t out_channels = c.group_outputs * c.groups, in_per_group = c.in_channels / c.groups;
    int64_t oh = (c.height - 1) * c.stride - c.pad[0] - c.pad[2] + c.dilation * (c.kh - 1) + c.output_padding + 1;
    int64_t ow = (c.width - 1) * c.stride - c.pad[1] - c.pad[3] + c.dilation * (c.kw - 1) + c.output_padding + 1;
    Shape data_shape = dl.Index(c.batch, c.in_channels, c.height, c.width);
    Shape weight_shape = kl.Index(c.group_outputs, c.in_channels, c.kh, c.kw);
    Array data = Random(data_shape, kF32, seed++), weight = Random(weight_shape, kF32, seed++);
    Array expected = Map(dl.Index(c.batch, out_channels, oh, ow), kF32, [](const Idx&) { return 0.0; });
    for (int64_t n = 0; n < c.batch; ++n) {
      for (int64_t ci = 0; ci < c.in_channels; ++ci) {
        int64_t g = ci / in_per_group;
        for (int64_t y = 0; y < c.height; ++y) {
          for (int64_t x = 0; x < c.width; ++x) {
            for (int64_t j = 0; j < c.group_outputs; ++j) {
              for (int64_t ky = 0; ky < c.kh; ++ky) {
                for (int64_t kx = 0; kx < c.kw; ++kx) {
                  int64_t oy = y * c.stride - c.pad[0] + ky * c.dilation,
                          ox = x * c.stride - c.pad[1] + kx * c.dilation;
                  if (oy < 0 || oy >= oh || ox < 0 || ox >= ow) continue;
                  expected.at(dl.Index(n, g * c.group_outputs + j, oy, ox)) +=
                      data.at(dl.Index(n, ci, y, x)) * weight.at(kl.Index(j, ci, ky, kx));
                }
              }
            }
          }
        }
      }
    }
    std::string call = StrCat("nn.conv2d_transpose(%d, %w, strides=[", c.stride, "], dilation=[", c.dilation,
                              "], output_padding=[", c.output_padding, "], padding=[", c.pad[0], ", ", c.pad[1], ", ",
                              c.pad[2], ", ", c.pad[3], "], groups=", c.groups, ", data_layout=\"", c.data_layout,
                              "\", kernel_layout=\"", c.kernel_layout, "\")");
    std::string params = StrCat("%d: Tensor(", Dims4(data_shape, dl.n == 0), ", float32), %w: Tensor(",
                                Dims4(weight_shape, false), ", float32)");
    SCOPED_TRACE(call);
    EXPECT_TRUE(Near(RunOp(params, call, {data, weight})[0], expected, 1e-5, 1e-5));
  }
}

// conv2d's gradients, nn.conv2d_backward_data and nn.conv2d_backward_weight, against a C++
// reference that walks the convolution's windows, and (NCHW) against the formulation grad_std
// used before they existed: a transposed convolution for the data, a convolution of the
// permuted data and output gradient for the weight.
struct ConvGradCase {
  std::string data_layout, kernel_layout;
  int64_t batch, in_channels, height, width, out_channels, kh, kw, groups, stride, dilation;
  std::array<int64_t, 4> pad;  // top, left, bottom, right
  bool symbolic_batch;
};

int64_t ConvOutSize(int64_t size, int64_t kernel, int64_t stride, int64_t dilation, int64_t before, int64_t after) {
  return (size + before + after - dilation * (kernel - 1) - 1) / stride + 1;
}

std::string ConvGradAttrs(const ConvGradCase& c) {
  return StrCat("strides=[", c.stride, "], dilation=[", c.dilation, "], padding=[", c.pad[0], ", ", c.pad[1], ", ",
                c.pad[2], ", ", c.pad[3], "], groups=", c.groups, ", data_layout=\"", c.data_layout,
                "\", kernel_layout=\"", c.kernel_layout, "\"");
}

TEST(NNBackwardNumeric, Conv2dGradientOpsSumOverTheConvolutionsWindows) {
  const ConvGradCase cases[] = {
      {"NCHW", "OIHW", 2, 3, 7, 6, 4, 3, 3, 1, 1, 1, {0, 0, 0, 0}, false},
      {"NCHW", "OIHW", 2, 2, 9, 8, 3, 3, 2, 1, 2, 1, {1, 0, 0, 1}, true},  // strides leave rows unread
      {"NCHW", "OIHW", 2, 1, 10, 10, 3, 5, 5, 1, 1, 1, {2, 2, 2, 2}, false},  // LeNet's first layer
      {"NCHW", "OIHW", 1, 4, 7, 7, 6, 3, 3, 2, 2, 2, {1, 1, 1, 1}, false},
      {"NHWC", "HWIO", 2, 4, 6, 5, 2, 2, 3, 2, 1, 2, {0, 1, 1, 0}, true},
  };
  uint32_t seed = 300;
  for (const ConvGradCase& c : cases) {
    Layout dl(c.data_layout), kl(c.kernel_layout);
    int64_t oh = ConvOutSize(c.height, c.kh, c.stride, c.dilation, c.pad[0], c.pad[2]);
    int64_t ow = ConvOutSize(c.width, c.kw, c.stride, c.dilation, c.pad[1], c.pad[3]);
    int64_t in_per_group = c.in_channels / c.groups, out_per_group = c.out_channels / c.groups;
    Shape data_shape = dl.Index(c.batch, c.in_channels, c.height, c.width);
    Shape weight_shape = kl.Index(c.out_channels, in_per_group, c.kh, c.kw);
    Shape grad_shape = dl.Index(c.batch, c.out_channels, oh, ow);
    Array data = Random(data_shape, kF32, seed++), weight = Random(weight_shape, kF32, seed++);
    Array grad = Random(grad_shape, kF32, seed++);
    Array ddata = Map(data_shape, kF32, [](const Idx&) { return 0.0; });
    Array dweight = Map(weight_shape, kF32, [](const Idx&) { return 0.0; });
    ForEachIndex(grad_shape, [&](const Idx& o) {
      int64_t oc = o[dl.c], g = oc / out_per_group;
      for (int64_t i = 0; i < in_per_group; ++i) {
        for (int64_t ky = 0; ky < c.kh; ++ky) {
          for (int64_t kx = 0; kx < c.kw; ++kx) {
            int64_t y = o[dl.h] * c.stride - c.pad[0] + ky * c.dilation;
            int64_t x = o[dl.w] * c.stride - c.pad[1] + kx * c.dilation;
            if (y < 0 || y >= c.height || x < 0 || x >= c.width) continue;
            Idx d = dl.Index(o[dl.n], g * in_per_group + i, y, x), w = kl.Index(oc, i, ky, kx);
            ddata.at(d) += grad.at(o) * weight.at(w);
            dweight.at(w) += grad.at(o) * data.at(d);
          }
        }
      }
    });
    std::string attrs = ConvGradAttrs(c);
    std::string grad_param = StrCat("%g: Tensor(", Dims4(grad_shape, c.symbolic_batch && dl.n == 0), ", float32)");
    std::string data_param = StrCat("%d: Tensor(", Dims4(data_shape, c.symbolic_batch && dl.n == 0), ", float32)");
    std::string weight_param = StrCat("%w: Tensor(", Dims4(weight_shape, false), ", float32)");
    SCOPED_TRACE(attrs);
    std::string backward_data =
        StrCat("nn.conv2d_backward_data(%g, %w, ", attrs, ", data_size=[", c.height, ", ", c.width, "])");
    Array data_result = RunOp(grad_param + ", " + weight_param, backward_data, {grad, weight})[0];
    EXPECT_TRUE(Near(data_result, ddata, 1e-5, 1e-5));
    std::string backward_weight =
        StrCat("nn.conv2d_backward_weight(%g, %d, ", attrs, ", kernel_size=[", c.kh, ", ", c.kw, "])");
    Array weight_result = RunOp(grad_param + ", " + data_param, backward_weight, {grad, data})[0];
    EXPECT_TRUE(Near(weight_result, dweight, 1e-5, 1e-5));
    if (c.data_layout != "NCHW") continue;

    // What grad_std built before these ops: the same numbers.
    int64_t padding_h = c.height - ((oh - 1) * c.stride - c.pad[0] - c.pad[2] + c.dilation * (c.kh - 1) + 1);
    int64_t padding_w = c.width - ((ow - 1) * c.stride - c.pad[1] - c.pad[3] + c.dilation * (c.kw - 1) + 1);
    std::string transposed = StrCat("nn.conv2d_transpose(%g, %w, ", attrs.substr(0, attrs.find(", data_layout")),
                                    ", kernel_layout=\"IOHW\", output_padding=[", padding_h, ", ", padding_w, "])");
    EXPECT_TRUE(Near(RunOp(grad_param + ", " + weight_param, transposed, {grad, weight})[0], data_result, 1e-5, 1e-5));
    if (c.groups != 1) continue;
    int64_t full_h = ConvOutSize(c.height, oh, c.dilation, c.stride, c.pad[0], c.pad[2]);
    int64_t full_w = ConvOutSize(c.width, ow, c.dilation, c.stride, c.pad[1], c.pad[3]);
    // The full convolution covers the kernel and maybe more: cropped to the kernel.
    std::string crop, kernel = "%full";
    if (full_h != c.kh || full_w != c.kw) {
      crop = StrCat("  %crop = strided_slice(%full, axes=[2, 3], begin=[0, 0], end=[", c.kh, ", ", c.kw, "])\n");
      kernel = "%crop";
    }
    std::string permuted = StrCat(
        "  %sd = permute_dims(%d, axes=[1, 0, 2, 3])\n  %sg = permute_dims(%g, axes=[1, 0, 2, 3])\n",
        "  %full = nn.conv2d(%sd, %sg, strides=[", c.dilation, "], dilation=[", c.stride, "], padding=[", c.pad[0],
        ", ", c.pad[1], ", ", c.pad[2], ", ", c.pad[3], "])\n", crop, "  %r = permute_dims(", kernel,
        ", axes=[1, 0, 2, 3])");
    Array permuted_result = RunFunction(grad_param + ", " + data_param, permuted, {grad, data})[0];
    EXPECT_TRUE(Near(permuted_result, weight_result, 1e-5, 1e-5));
  }
}

struct PoolCase {
  const char* layout;
  Shape shape;  // N, C, H, W
  int64_t kh, kw, stride, dilation;
  std::array<int64_t, 4> pad;
  bool ceil_mode;
};

int64_t PooledSize(int64_t size, int64_t kernel, int64_t stride, int64_t dilation, int64_t before, int64_t after,
                   bool ceil_mode) {
  int64_t span = size + before + after - dilation * (kernel - 1) - 1;
  int64_t out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
  if (ceil_mode && (out - 1) * stride >= size + before) --out;
  return out;
}

std::string PoolAttrs(const PoolCase& c) {
  return StrCat("pool_size=[", c.kh, ", ", c.kw, "], strides=[", c.stride, "], dilation=[", c.dilation, "], padding=[",
                c.pad[0], ", ", c.pad[1], ", ", c.pad[2], ", ", c.pad[3], "], ceil_mode=", c.ceil_mode ? "true" : "false",
                ", layout=\"", c.layout, "\"");
}

/// The data and output_grad shapes of |c|.
std::pair<Shape, Shape> PoolShapes(const PoolCase& c) {
  Layout l(c.layout);
  int64_t h = c.shape[2], w = c.shape[3];
  int64_t oh = PooledSize(h, c.kh, c.stride, c.dilation, c.pad[0], c.pad[2], c.ceil_mode);
  int64_t ow = PooledSize(w, c.kw, c.stride, c.dilation, c.pad[1], c.pad[3], c.ceil_mode);
  return {l.Index(c.shape[0], c.shape[1], h, w), l.Index(c.shape[0], c.shape[1], oh, ow)};
}

/// Calls |fn|(output index, data index) for each window position of each output that lies
/// inside the data, row-major within each window.
template <typename Fn>
void ForEachWindowPosition(const PoolCase& c, const Shape& grad_shape, Fn fn) {
  Layout l(c.layout);
  ForEachIndex(grad_shape, [&](const Idx& o) {
    for (int64_t ky = 0; ky < c.kh; ++ky) {
      for (int64_t kx = 0; kx < c.kw; ++kx) {
        int64_t y = o[l.h] * c.stride - c.pad[0] + ky * c.dilation, x = o[l.w] * c.stride - c.pad[1] + kx * c.dilation;
        if (y >= 0 && y < c.shape[2] && x >= 0 && x < c.shape[3]) fn(o, l.Index(o[l.n], o[l.c], y, x));
      }
    }
  });
}

/// PyTorch's max_pool2d gradient: each window's gradient to its first maximum.
Array MaxPoolBackwardExpected(const PoolCase& c, const Array& grad, const Array& data) {
  auto [data_shape, grad_shape] = PoolShapes(c);
  Array expected = Map(data_shape, kF32, [](const Idx&) { return 0.0; });
  std::map<Idx, std::pair<double, Idx>> best;  // per output: the maximum so far and where
  ForEachWindowPosition(c, grad_shape, [&](const Idx& o, const Idx& at) {
    auto it = best.find(o);
    if (it == best.end() || data.at(at) > it->second.first) best[o] = {data.at(at), at};
  });
  for (const auto& [o, value_at] : best) expected.at(value_at.second) += grad.at(o);
  return expected;
}

TEST(NNBackwardNumeric, PoolBackwardSpreadsEachWindowsGradient) {
  const PoolCase cases[] = {{"NCHW", {2, 1, 5, 6}, 2, 2, 2, 1, {0, 0, 0, 0}, false},
                            {"NHWC", {1, 2, 6, 5}, 3, 2, 2, 1, {1, 1, 1, 0}, true},
                            {"NCHW", {1, 1, 6, 5}, 3, 3, 1, 2, {1, 1, 1, 1}, false},  // overlapping windows
                            {"NCHW", {1, 2, 5, 7}, 2, 2, 2, 1, {0, 0, 0, 0}, true},   // tiling, the last ones cut
                            // Undilated windows visit ceil(size / stride)^2 candidate outputs per input:
                            {"NCHW", {2, 3, 9, 8}, 3, 3, 2, 1, {1, 1, 1, 1}, false},  // resnet's stem pool
                            {"NHWC", {1, 2, 11, 9}, 5, 4, 2, 1, {2, 1, 2, 2}, true},  // 3 x 2 candidates
                            {"NCHW", {1, 2, 8, 7}, 2, 2, 3, 1, {0, 0, 0, 0}, false}};  // gaps between windows
  uint32_t seed = 80;
  for (const PoolCase& c : cases) {
    Layout l(c.layout);
    auto [data_shape, grad_shape] = PoolShapes(c);
    // Small integers: windows hold ties, which must go to the first maximum.
    Array data = Map(data_shape, kF32,
                     [&, r = Random(data_shape, DType::kInt32, seed++, 0, 3)](const Idx& i) { return r.at(i); });
    Array grad = Random(grad_shape, kF32, seed++);
    std::string attrs = PoolAttrs(c);
    std::string params = StrCat("%g: Tensor(", Dims4(grad_shape, l.n == 0), ", float32), %x: Tensor(",
                                Dims4(data_shape, l.n == 0), ", float32)");
    SCOPED_TRACE(attrs);
    auto zeros = [&] { return Map(data_shape, kF32, [](const Idx&) { return 0.0; }); };
    Array avg_expected = zeros(), avg_pad_expected = zeros();
    std::map<Idx, int64_t> inside;  // per output: its window positions inside the data
    ForEachWindowPosition(c, grad_shape, [&](const Idx& o, const Idx&) { ++inside[o]; });
    ForEachWindowPosition(c, grad_shape, [&](const Idx& o, const Idx& at) {
      int64_t in_padded = 0;
      for (int64_t ky = 0; ky < c.kh; ++ky) {
        for (int64_t kx = 0; kx < c.kw; ++kx) {
          int64_t y = o[l.h] * c.stride - c.pad[0] + ky * c.dilation,
                  x = o[l.w] * c.stride - c.pad[1] + kx * c.dilation;
          in_padded += y >= -c.pad[0] && y < c.shape[2] + c.pad[2] && x >= -c.pad[1] && x < c.shape[3] + c.pad[3];
        }
      }
      avg_expected.at(at) += grad.at(o) / static_cast<double>(inside[o]);
      avg_pad_expected.at(at) += grad.at(o) / static_cast<double>(in_padded);
    });
    EXPECT_TRUE(Near(RunOp(params, StrCat("nn.max_pool2d_backward(%g, %x, ", attrs, ")"), {grad, data})[0],
                     MaxPoolBackwardExpected(c, grad, data)));
    EXPECT_TRUE(
        Near(RunOp(params, StrCat("nn.avg_pool2d_backward(%g, %x, ", attrs, ")"), {grad, data})[0], avg_expected));
    EXPECT_TRUE(Near(
        RunOp(params, StrCat("nn.avg_pool2d_backward(%g, %x, ", attrs, ", count_include_pad=true)"), {grad, data})[0],
        avg_pad_expected));
  }
}

// Tiling windows (stride = window, no padding or dilation) take a one-pass kernel up to 16
// window positions and two stages beyond: both give ties to the first maximum, and windows
// of negative values (the ones the edge cuts, in ceil mode, too) their gradient.
TEST(NNBackwardNumeric, MaxPoolBackwardOfTilingWindows) {
  struct Case {
    PoolCase pool;
    double lo, hi;  // the data: integers in [lo, hi]
  };
  const Case cases[] = {
      {{"NCHW", {2, 3, 6, 8}, 2, 2, 2, 1, {0, 0, 0, 0}, false}, -4, -1},  // all negative, ties
      {{"NCHW", {1, 2, 7, 7}, 3, 3, 3, 1, {0, 0, 0, 0}, true}, -3, -1},   // the edge cuts the last windows
      {{"NHWC", {2, 3, 7, 5}, 2, 2, 2, 1, {0, 0, 0, 0}, false}, -1, 1},   // the last row and column in no window
      {{"NCHW", {1, 2, 10, 11}, 4, 4, 4, 1, {0, 0, 0, 0}, true}, -2, 0},  // 16 positions: the last one-pass size
      {{"NCHW", {1, 2, 10, 10}, 5, 5, 5, 1, {0, 0, 0, 0}, false}, -2, 0}, // 25 positions: two stages
  };
  uint32_t seed = 85;
  for (const Case& k : cases) {
    const PoolCase& c = k.pool;
    Layout l(c.layout);
    auto [data_shape, grad_shape] = PoolShapes(c);
    Array data = Map(data_shape, kF32, [&, r = Random(data_shape, DType::kInt32, seed++, k.lo, k.hi)](const Idx& i) {
      return r.at(i);
    });
    Array grad = Random(grad_shape, kF32, seed++, 1, 2);  // never 0: a lost gradient shows
    std::string params = StrCat("%g: Tensor(", Dims4(grad_shape, l.n == 0), ", float32), %x: Tensor(",
                                Dims4(data_shape, l.n == 0), ", float32)");
    std::string call = StrCat("nn.max_pool2d_backward(%g, %x, ", PoolAttrs(c), ")");
    SCOPED_TRACE(call);
    EXPECT_TRUE(Near(RunOp(params, call, {grad, data})[0], MaxPoolBackwardExpected(c, grad, data)));
  }
}

TEST(NNBackwardNumeric, AdaptiveAvgPoolBackwardUsesPyTorchWindows) {
  struct Case {
    const char* layout;
    Shape shape;  // N, C, H, W
    int64_t oh, ow;
    bool symbolic_spatial;
  };
  const Case cases[] = {{"NCHW", {2, 3, 7, 5}, 3, 2, false},
                        {"NHWC", {1, 2, 6, 6}, 4, 4, false},
                        {"NCHW", {1, 1, 3, 2}, 5, 3, false},  // out > in: windows overlap
                        {"NCHW", {1, 2, 7, 4}, 2, 3, true}};
  uint32_t seed = 90;
  for (const Case& c : cases) {
    Layout l(c.layout);
    int64_t h = c.shape[2], w = c.shape[3];
    Shape data_shape = l.Index(c.shape[0], c.shape[1], h, w), grad_shape = l.Index(c.shape[0], c.shape[1], c.oh, c.ow);
    Array data = Random(data_shape, kF32, seed++), grad = Random(grad_shape, kF32, seed++);
    Array expected = Map(data_shape, kF32, [](const Idx&) { return 0.0; });
    ForEachIndex(grad_shape, [&](const Idx& o) {
      int64_t y0 = o[l.h] * h / c.oh, y1 = ((o[l.h] + 1) * h + c.oh - 1) / c.oh;
      int64_t x0 = o[l.w] * w / c.ow, x1 = ((o[l.w] + 1) * w + c.ow - 1) / c.ow;
      for (int64_t y = y0; y < y1; ++y) {
        for (int64_t x = x0; x < x1; ++x) {
          expected.at(l.Index(o[l.n], o[l.c], y, x)) += grad.at(o) / static_cast<double>((y1 - y0) * (x1 - x0));
        }
      }
    });
    std::string data_dims =
        c.symbolic_spatial ? StrCat("(", c.shape[0], ", ", c.shape[1], ", h, w)") : Dims4(data_shape, false);
    std::string params =
        StrCat("%g: Tensor(", Dims4(grad_shape, false), ", float32), %x: Tensor(", data_dims, ", float32)");
    std::string call = StrCat("nn.adaptive_avg_pool2d_backward(%g, %x, layout=\"", c.layout, "\")");
    SCOPED_TRACE(call);
    EXPECT_TRUE(Near(RunOp(params, call, {grad, data})[0], expected));
  }
}

TEST(NNBackwardNumeric, DropoutWithASeedDropsAtTheRateAndScalesTheRest) {
  Array x = Random({40, 50}, kF32, 100, 0.5, 2);
  auto run = [&](int64_t seed, double rate) {
    Array s{DType::kInt64, {}, {static_cast<double>(seed)}};
    return RunOp("%x: Tensor((n, 50), float32), %s: Tensor((), int64)", StrCat("nn.dropout(%x, %s, rate=", rate, ")"),
                 {x, s});
  };
  std::vector<Array> a = run(7, 0.3), b = run(7, 0.3), c = run(8, 0.3);
  int64_t kept = 0, same_as_other_seed = 0, same_as_neighbour = 0;
  for (int64_t i = 0; i < x.numel(); ++i) {
    double m = a[1].data[i];
    ASSERT_TRUE(m == 0 || m == 1) << m;
    kept += m == 1;
    same_as_other_seed += m == c[1].data[i];
    if (i > 0) same_as_neighbour += m == a[1].data[i - 1];
    EXPECT_NEAR(a[0].data[i], x.data[i] * m / 0.7, 1e-5);
  }
  EXPECT_EQ(a[1].data, b[1].data);  // the same seed, the same mask
  double n = static_cast<double>(x.numel());
  EXPECT_NEAR(kept / n, 0.7, 0.03);
  // Independent masks agree on 0.7^2 + 0.3^2 = 58% of the elements.
  EXPECT_NEAR(same_as_other_seed / n, 0.58, 0.04);
  EXPECT_NEAR(same_as_neighbour / (n - 1), 0.58, 0.04);
  // Rate 0 keeps everything.
  std::vector<Array> all = run(3, 0);
  EXPECT_TRUE(Near(all[0], x));
}

TEST(NNBackwardNumeric, DropoutWithoutASeedIsTheIdentity) {
  Array x = Random({3, 4}, kF32, 101);
  std::vector<Array> out = RunOp("%x: Tensor((3, 4), float32)", "nn.dropout(%x, rate=0.5)", {x});
  EXPECT_TRUE(Near(out[0], x));
  EXPECT_TRUE(Near(out[1], Map(x.shape, kF32, [](const Idx&) { return 1.0; })));
}

}  // namespace
}  // namespace rxt::numeric
