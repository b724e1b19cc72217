// Convolutions. conv2d's data adjoint is a transposed convolution of dz with the same weight
// (nn.conv2d_transpose); its weight adjoint is itself a convolution: of the data, channels
// and batch swapped, with dz as the kernel (strides and dilation trade places), cropped to the
// kernel's size. nn.conv2d_transpose is the adjoint map of conv2d, so its rule reuses both.
#include <array>

#include "families.h"
#include "grad_util.h"

namespace rxt::grad_std {
namespace {

struct ConvAttrs {
  std::array<int64_t, 2> strides, dilation;
  std::array<int64_t, 4> pad;  // top, left, bottom, right
  int64_t groups;
  std::string data_layout, kernel_layout;  // kernel_layout in conv2d's terms: OIHW or HWIO
};

std::array<int64_t, 2> Pair(Rule& r, const char* name) {
  std::vector<int64_t> v = r.Ints(name);
  if (v.size() != 1 && v.size() != 2) r.Fail(std::string("attribute ") + name + " must have 1 or 2 ints");
  return {v[0], v.back()};
}

ConvAttrs ReadConvAttrs(Rule& r, bool transposed) {
  ConvAttrs a;
  a.strides = Pair(r, "strides");
  a.dilation = Pair(r, "dilation");
  std::vector<int64_t> p = r.Ints("padding");
  if (p.size() == 1)
    a.pad = {p[0], p[0], p[0], p[0]};
  else if (p.size() == 2)
    a.pad = {p[0], p[1], p[0], p[1]};
  else if (p.size() == 4)
    a.pad = {p[0], p[1], p[2], p[3]};
  else
    r.Fail("attribute padding must have 1, 2 or 4 ints");
  a.groups = r.Int("groups");
  a.data_layout = r.String("data_layout");
  a.kernel_layout = r.String("kernel_layout");
  if (transposed) a.kernel_layout = a.kernel_layout == "IOHW" ? "OIHW" : "HWIO";
  return a;
}

std::string PadText(const std::array<int64_t, 4>& pad) { return IntsText({pad[0], pad[1], pad[2], pad[3]}); }

/// The attributes conv2d and conv2d_transpose share, for a call on the same weight.
std::string WindowAttrs(const ConvAttrs& a, bool transposed) {
  std::string kernel = a.kernel_layout;
  if (transposed) kernel = kernel == "OIHW" ? "IOHW" : "HWOI";
  return "strides=" + IntsText({a.strides[0], a.strides[1]}) + ", padding=" + PadText(a.pad) +
         ", dilation=" + IntsText({a.dilation[0], a.dilation[1]}) + ", groups=" + std::to_string(a.groups) +
         ", data_layout=" + Quoted(a.data_layout) + ", kernel_layout=" + Quoted(kernel);
}

// Positions of the height and width dims in a data or kernel layout.
int HeightAxis(const std::string& layout) { return static_cast<int>(layout.find('H')); }

/// The adjoint of conv2d's data: conv2d_transpose of |grad| (the conv's output adjoint) with
/// |weight|, sized to |data| by output_padding.
Expr ConvDataGrad(Rule& r, const ConvAttrs& a, Expr grad, Expr weight, Expr data) {
  int dh = HeightAxis(a.data_layout), kh = HeightAxis(a.kernel_layout);
  std::vector<int64_t> output_padding;
  for (int i = 0; i < 2; ++i) {
    int64_t size = r.StaticDim(data, dh + i, "the spatial dims of the data");
    int64_t out = r.StaticDim(grad, dh + i, "the spatial dims of the result");
    int64_t kernel = r.StaticDim(weight, kh + i, "the kernel's spatial dims");
    int64_t covered = (out - 1) * a.strides[i] - a.pad[i] - a.pad[i + 2] + a.dilation[i] * (kernel - 1) + 1;
    output_padding.push_back(size - covered);
  }
  return r.Op("nn.conv2d_transpose", {grad, weight},
              WindowAttrs(a, true) + ", output_padding=" + IntsText(output_padding));
}

/// The adjoint of conv2d's weight (in a.kernel_layout) from the conv's |data| and output
/// adjoint |grad|: conv2d of data (C, N, H, W) with grad (O, N, oH, oW) as the kernel, groups
/// folded into the channels, cropped to the kernel's size.
Expr ConvWeightGrad(Rule& r, const ConvAttrs& a, Expr data, Expr grad, Expr weight) {
  bool nhwc = a.data_layout == "NHWC";
  if (nhwc) {
    data = r.Op("permute_dims", {data}, "axes=[0, 3, 1, 2]");
    grad = r.Op("permute_dims", {grad}, "axes=[0, 3, 1, 2]");
  }
  int64_t g = a.groups;
  Expr swapped_data, swapped_grad;
  if (g == 1) {
    swapped_data = r.Op("permute_dims", {data}, "axes=[1, 0, 2, 3]");
    swapped_grad = r.Op("permute_dims", {grad}, "axes=[1, 0, 2, 3]");
  } else {
    const char* why = "grouped conv2d's weight gradient regroups the data";
    int64_t c = r.StaticDim(data, 1, why), h = r.StaticDim(data, 2, why), w = r.StaticDim(data, 3, why);
    int64_t o = r.StaticDim(grad, 1, why), oh = r.StaticDim(grad, 2, why), ow = r.StaticDim(grad, 3, why);
    // (N, g, C/g, H, W) -> (C/g, g, N, H, W) -> (C/g, g N, H, W): channel group-major.
    Expr d5 = r.Op("reshape", {data, r.Shape({-1, g, c / g, h, w})});
    swapped_data = r.Op("reshape", {r.Op("permute_dims", {d5}, "axes=[2, 1, 0, 3, 4]"), r.Shape({c / g, -1, h, w})});
    // (N, g, O/g, oH, oW) -> (g, O/g, N, oH, oW) -> (O, N, oH, oW).
    Expr g5 = r.Op("reshape", {grad, r.Shape({-1, g, o / g, oh, ow})});
    swapped_grad = r.Op("reshape", {r.Op("permute_dims", {g5}, "axes=[1, 2, 0, 3, 4]"), r.Shape({o, -1, oh, ow})});
  }
  std::string attrs = "strides=" + IntsText({a.dilation[0], a.dilation[1]}) + ", padding=" + PadText(a.pad) +
                      ", dilation=" + IntsText({a.strides[0], a.strides[1]}) + ", groups=" + std::to_string(g);
  Expr full = r.Op("nn.conv2d", {swapped_data, swapped_grad}, attrs);  // (C/g, O, kH', kW'), kH' >= kH
  int kh_axis = HeightAxis(a.kernel_layout);
  int64_t kh = r.StaticDim(weight, kh_axis, "the kernel's spatial dims");
  int64_t kw = r.StaticDim(weight, kh_axis + 1, "the kernel's spatial dims");
  if (r.Dim(full, 2) != kh || r.Dim(full, 3) != kw) {
    full = r.Op("strided_slice", {full}, "axes=[2, 3], begin=[0, 0], end=" + IntsText({kh, kw}));
  }
  return r.Op("permute_dims", {full}, a.kernel_layout == "OIHW" ? "axes=[1, 0, 2, 3]" : "axes=[2, 3, 0, 1]");
}

Expr InDType(Rule& r, Expr value, Expr like) {
  return r.DType(value) == r.DType(like) ? value : r.Op("astype", {value}, "dtype=" + r.DType(like));
}

void Conv2dGrad(Rule& r) {
  ConvAttrs a = ReadConvAttrs(r, false);
  Expr data = r.arg(0), weight = r.arg(1), dz = InDType(r, r.grad(), r.arg(0));
  r.SetGrad(0, ConvDataGrad(r, a, dz, weight, data));
  r.SetGrad(1, ConvWeightGrad(r, a, data, dz, weight));
}

// y = conv2d_transpose(x, w) is the data adjoint of z = conv2d(., w) at dz = x: so dx =
// conv2d(dy, w) and dw = the conv weight gradient for data dy and output adjoint x.
void Conv2dTransposeGrad(Rule& r) {
  ConvAttrs a = ReadConvAttrs(r, true);
  Expr x = r.arg(0), weight = r.arg(1), dy = InDType(r, r.grad(), r.arg(0));
  std::vector<int64_t> output_padding = r.Ints("output_padding");
  for (int i = 0; i < 2; ++i) {
    if (output_padding[output_padding.size() == 1 ? 0 : i] >= a.strides[i]) {
      r.Fail("the gradient of conv2d_transpose needs output_padding < strides");
    }
  }
  r.SetGrad(0, r.Op("nn.conv2d", {dy, weight}, WindowAttrs(a, false)));
  r.SetGrad(1, ConvWeightGrad(r, a, dy, x, weight));
}

const rxt_gradient_rule_t kRules[] = {
    RXT_GRADIENT_RULE("nn.conv2d",
                  "ddata = conv2d_transpose(dz, weight); dweight = conv2d(data, dz) with batch and channels swapped",
                  Conv2dGrad),
    RXT_GRADIENT_RULE("nn.conv2d_transpose",
                  "ddata = conv2d(dz, weight); dweight = conv2d(dz, data) with batch and channels swapped",
                  Conv2dTransposeGrad),
};

}  // namespace

std::span<const rxt_gradient_rule_t> ConvGradients() { return kRules; }

}  // namespace rxt::grad_std
