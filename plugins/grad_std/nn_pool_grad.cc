// Pooling. Each pooling op has a backward op in the core registry that spreads dz over the
// windows (nn.max_pool2d_backward: to the first maximum of each window, as PyTorch). The
// average poolings' backward ops are linear in dz, so their own adjoints are the forward
// poolings again (second derivatives); nn.max_pool2d_backward has no rule.
#include "families.h"
#include "grad_util.h"

namespace rxt::grad_std {
namespace {

std::string WindowAttrs(Rule& r, bool average) {
  std::string attrs = CopyAttrs(r, {"pool_size", "strides", "padding", "dilation", "ceil_mode", "layout"});
  if (average) attrs += ", count_include_pad=" + std::string(r.AttrText("count_include_pad"));
  return attrs;
}

void MaxPool2dGrad(Rule& r) {
  r.SetGrad(0, r.Op("nn.max_pool2d_backward", {r.grad(), r.arg(0)}, WindowAttrs(r, false)));
}

void AvgPool2dGrad(Rule& r) {
  r.SetGrad(0, r.Op("nn.avg_pool2d_backward", {r.grad(), r.arg(0)}, WindowAttrs(r, true)));
}

void AdaptiveAvgPool2dGrad(Rule& r) {
  r.SetGrad(0, r.Op("nn.adaptive_avg_pool2d_backward", {r.grad(), r.arg(0)}, CopyAttrs(r, {"layout"})));
}

// dx = avg_pool2d_backward(dy, data) is linear in dy: d(dy) = avg_pool2d(d dx). data gives
// only its shape.
void AvgPool2dBackwardGrad(Rule& r) { r.SetGrad(0, r.Op("nn.avg_pool2d", {r.grad()}, WindowAttrs(r, true))); }

void AdaptiveAvgPool2dBackwardGrad(Rule& r) {
  Expr dy = r.arg(0);
  std::string layout = r.String("layout");
  int h = static_cast<int>(layout.find('H'));
  int64_t oh = r.StaticDim(dy, h, "the pooled size"), ow = r.StaticDim(dy, h + 1, "the pooled size");
  r.SetGrad(0, r.Op("nn.adaptive_avg_pool2d", {r.grad()},
                    "output_size=" + IntsText({oh, ow}) + ", layout=" + Quoted(layout)));
}

const rxt_gradient_rule_t kRules[] = {
    RXT_GRADIENT_RULE("nn.max_pool2d", "dx = max_pool2d_backward(dz, x): dz to each window's first maximum", MaxPool2dGrad),
    RXT_GRADIENT_RULE("nn.avg_pool2d", "dx = avg_pool2d_backward(dz, x): dz / count spread over each window",
                  AvgPool2dGrad),
    RXT_GRADIENT_RULE("nn.adaptive_avg_pool2d", "dx = adaptive_avg_pool2d_backward(dz, x)", AdaptiveAvgPool2dGrad),
    RXT_GRADIENT_RULE("nn.avg_pool2d_backward", "d output_grad = avg_pool2d(dz); none for data (only its shape)",
                  AvgPool2dBackwardGrad),
    RXT_GRADIENT_RULE("nn.adaptive_avg_pool2d_backward",
                  "d output_grad = adaptive_avg_pool2d(dz); none for data (only its shape)",
                  AdaptiveAvgPool2dBackwardGrad),
};

}  // namespace

std::span<const rxt_gradient_rule_t> PoolGradients() { return kRules; }

}  // namespace rxt::grad_std
