#include "nn_window.h"

namespace rxt::infer {
namespace {
// Bounds sizes, strides, dilations and padding so that window arithmetic cannot overflow.
constexpr int64_t kMaxWindowAttr = (int64_t{1} << 31) - 1;
}  // namespace

Layout2D LayoutAttr(const CallNode& call, const std::string& name, const std::vector<std::string>& allowed) {
  std::string layout = ChoiceAttr(call, name, allowed);
  auto pos = [&](char a, char b) {
    size_t p = layout.find(a);
    return static_cast<int>(p != std::string::npos ? p : layout.find(b));
  };
  return {pos('N', 'O'), pos('C', 'I'), pos('H', 'H'), pos('W', 'W')};
}

std::array<int64_t, 2> PairAttr(const CallNode& call, const std::string& name, int64_t min) {
  std::vector<int64_t> v = IntListAttr(call, name);
  if (v.size() != 1 && v.size() != 2) {
    OpError(call, StrCat("attribute ", name, " must have 1 or 2 ints, got ", IntListToString(v)));
  }
  for (int64_t x : v) {
    if (x < min || x > kMaxWindowAttr) {
      OpError(call,
              StrCat("attribute ", name, " ", IntListToString(v), " must be in [", min, ", ", kMaxWindowAttr, "]"));
    }
  }
  return {v[0], v.back()};
}

std::array<int64_t, 4> PaddingAttr(const CallNode& call, const std::string& name) {
  std::vector<int64_t> v = IntListAttr(call, name);
  for (int64_t x : v) {
    if (x < 0 || x > kMaxWindowAttr) {
      OpError(call, StrCat("attribute ", name, " ", IntListToString(v), " must be in [0, ", kMaxWindowAttr, "]"));
    }
  }
  switch (v.size()) {
    case 1: return {v[0], v[0], v[0], v[0]};
    case 2: return {v[0], v[1], v[0], v[1]};
    case 4: return {v[0], v[1], v[2], v[3]};
    default: OpError(call, StrCat("attribute ", name, " must have 1, 2 or 4 ints, got ", IntListToString(v)));
  }
}

PrimExpr WindowOutputSize(const CallNode& call, const char* what, const PrimExpr& size, const PrimExpr& kernel,
                          int64_t pad_before, int64_t pad_after, int64_t stride, int64_t dilation, bool ceil_mode) {
  std::optional<int64_t> n = StaticDim(size), k = StaticDim(kernel);
  if (n && k) {
    int64_t span = *n + pad_before + pad_after - dilation * (*k - 1) - 1;  // room left after the first window
    int64_t out = span < 0 ? 0 : (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
    if (ceil_mode && out > 0 && (out - 1) * stride >= *n + pad_before) --out;
    if (out < 1) {
      OpError(call,
              StrCat("the ", what, " of the result would be ", out, ": the window (", *k, " dilated by ", dilation,
                     ") does not fit the padded input (", *n, " + ", pad_before, " + ", pad_after, ")"));
    }
    return IntImm(out);
  }
  if (ceil_mode) return nullptr;
  if (k) return AddConst(FloorDivConst(AddConst(size, pad_before + pad_after - dilation * (*k - 1) - 1), stride), 1);
  // A symbolic kernel: (size + pads + dilation - 1 - dilation * kernel) / stride + 1.
  PrimExpr dilated = MulDims(IntImm(dilation), kernel);
  if (stride == 1) return MakeBinary(BinaryOp::kSub, AddConst(size, pad_before + pad_after + dilation), dilated);
  PrimExpr span = MakeBinary(BinaryOp::kSub, AddConst(size, pad_before + pad_after + dilation - 1), dilated);
  return AddConst(FloorDivConst(span, stride), 1);
}

void Require4D(const CallNode& call, int arg) {
  const TensorSINode& t = TensorArg(call, arg);
  if (t.ndim >= 0 && t.ndim != 4) OpError(call, StrCat(DescribeArg(call, arg), " must be 4-D"));
}

}  // namespace rxt::infer
