// Convolutions. conv2d's adjoints are the core's gradient ops, nn.conv2d_backward_data and
// nn.conv2d_backward_weight (one call each, which kernel libraries take whole). Those ops are
// linear in each argument and adjoint to conv2d, so their own rules are conv2d and each other;
// so is nn.conv2d_transpose's (the data gradient of conv2d with its weight).
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

/// The adjoint of conv2d's data: nn.conv2d_backward_data of |grad| (the conv's output adjoint)
/// with |weight|, sized like |data|.
Expr ConvDataGrad(Rule& r, const ConvAttrs& a, Expr grad, Expr weight, Expr data) {
  int h = HeightAxis(a.data_layout);
  const char* why = "the spatial dims of the data";
  std::vector<int64_t> size = {r.StaticDim(data, h, why), r.StaticDim(data, h + 1, why)};
  return r.Op("nn.conv2d_backward_data", {grad, weight}, WindowAttrs(a, false) + ", data_size=" + IntsText(size));
}

/// The adjoint of conv2d's weight (in a.kernel_layout) from the conv's |data| and output
/// adjoint |grad|: nn.conv2d_backward_weight, sized like |weight|.
Expr ConvWeightGrad(Rule& r, const ConvAttrs& a, Expr data, Expr grad, Expr weight) {
  int h = HeightAxis(a.kernel_layout);
  const char* why = "the kernel's spatial dims";
  std::vector<int64_t> size = {r.StaticDim(weight, h, why), r.StaticDim(weight, h + 1, why)};
  return r.Op("nn.conv2d_backward_weight", {grad, data}, WindowAttrs(a, false) + ", kernel_size=" + IntsText(size));
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

// dx = conv2d_backward_data(dz, w) is linear in both: d dz = conv2d(g, w) (g: dx's adjoint, shaped
// like the data) and d w = conv2d_backward_weight(dz, g).
void Conv2dBackwardDataGrad(Rule& r) {
  ConvAttrs a = ReadConvAttrs(r, false);
  Expr dz = r.arg(0), weight = r.arg(1), g = InDType(r, r.grad(), r.arg(0));
  r.SetGrad(0, r.Op("nn.conv2d", {g, weight}, WindowAttrs(a, false)));
  r.SetGrad(1, ConvWeightGrad(r, a, g, dz, weight));
}

// dw = conv2d_backward_weight(dz, x): <dw, G> = <dz, conv2d(x, G)> = <x, conv2d_backward_data(dz,
// G)>, so d dz = conv2d(x, G) and d x = conv2d_backward_data(dz, G) (G: dw's adjoint).
void Conv2dBackwardWeightGrad(Rule& r) {
  ConvAttrs a = ReadConvAttrs(r, false);
  Expr dz = r.arg(0), data = r.arg(1), g = InDType(r, r.grad(), r.arg(1));
  r.SetGrad(0, r.Op("nn.conv2d", {data, g}, WindowAttrs(a, false)));
  r.SetGrad(1, ConvDataGrad(r, a, dz, g, data));
}

const rxt_gradient_rule_t kRules[] = {
    RXT_GRADIENT_RULE("nn.conv2d",
                      "ddata = conv2d_backward_data(dz, weight); dweight = conv2d_backward_weight(dz, data)",
                      Conv2dGrad),
    RXT_GRADIENT_RULE("nn.conv2d_transpose",
                      "ddata = conv2d(dz, weight); dweight = conv2d_backward_weight(data, dz)", Conv2dTransposeGrad),
    RXT_GRADIENT_RULE("nn.conv2d_backward_data",
                      "doutput_grad = conv2d(dz, weight); dweight = conv2d_backward_weight(output_grad, dz)",
                      Conv2dBackwardDataGrad),
    RXT_GRADIENT_RULE("nn.conv2d_backward_weight",
                      "doutput_grad = conv2d(data, dz); ddata = conv2d_backward_data(output_grad, dz)",
                      Conv2dBackwardWeightGrad),
};

}  // namespace

std::span<const rxt_gradient_rule_t> ConvGradients() { return kRules; }

}  // namespace rxt::grad_std
