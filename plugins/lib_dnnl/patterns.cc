// The library "dnnl" (patterns.h): its patterns in the order they are tried, and what their
// bodies share.
#include "patterns.h"

#include <array>

namespace rxt::lib_dnnl {
namespace {

// The ops each pattern may absorb (NULL-terminated, rxt_library_pattern_t).
const char* const kBiasRelu[] = {"add", "nn.relu", nullptr};
const char* const kBiasReluPool[] = {"add", "nn.relu", "nn.max_pool2d", nullptr};
const char* const kTransposes[] = {"permute_dims", nullptr};
const char* const kBiasGradient[] = {"collapse_sum_to", nullptr};
const char* const kReluGradient[] = {"where", nullptr};
const char* const kReluMask[] = {"greater", nullptr};

const rxt_library_pattern_t kPatterns[] = {
    RXT_LIBRARY_PATTERN("dnnl.matmul", "matmul", kBiasRelu, kTransposes, nullptr, MatmulPattern),
    RXT_LIBRARY_PATTERN("dnnl.linear", "linear", kBiasRelu, nullptr, nullptr, LinearPattern),
    RXT_LIBRARY_PATTERN("dnnl.conv2d", "nn.conv2d", kBiasReluPool, nullptr, nullptr, Conv2dPattern),
    RXT_LIBRARY_PATTERN("dnnl.conv2d_backward_data", "nn.conv2d_backward_data", nullptr, nullptr, nullptr,
                        Conv2dBackwardDataPattern),
    RXT_LIBRARY_PATTERN("dnnl.conv2d_transpose", "nn.conv2d_transpose", nullptr, nullptr, nullptr,
                        Conv2dTransposePattern),
    RXT_LIBRARY_PATTERN("dnnl.conv2d_backward_weights", "nn.conv2d_backward_weight", nullptr, nullptr, kBiasGradient,
                        Conv2dBackwardWeightPattern),
    RXT_LIBRARY_PATTERN("dnnl.max_pool2d_backward", "nn.max_pool2d_backward", kReluGradient, kReluMask, nullptr,
                        MaxPool2dBackwardPattern),
    RXT_LIBRARY_PATTERN("dnnl.max_pool2d", "nn.max_pool2d", nullptr, nullptr, nullptr, MaxPool2dPattern),
    RXT_LIBRARY_PATTERN("dnnl.softmax", "softmax", nullptr, nullptr, nullptr, SoftmaxPattern),
};
constexpr size_t kNumPatterns = sizeof(kPatterns) / sizeof(kPatterns[0]);

}  // namespace

const rxt_library_t* DnnlLibrary() {
  static const std::array<const rxt_library_pattern_t*, kNumPatterns> patterns = [] {
    std::array<const rxt_library_pattern_t*, kNumPatterns> pointers{};
    for (size_t i = 0; i < kNumPatterns; ++i) pointers[i] = &kPatterns[i];
    return pointers;
  }();
  static const rxt_library_t library = {sizeof(rxt_library_t), "dnnl",
                                        "oneDNN: GEMM, convolutions and their gradients, max pooling",
                                        nullptr, patterns.data(), kNumPatterns};
  return &library;
}

std::optional<std::vector<int64_t>> StaticFloat32(const Pattern& p, Expr e, int ndim) {
  int n = p.Ndim(e);
  if (n < 0 || (ndim >= 0 && n != ndim) || p.DType(e) != "float32") return std::nullopt;
  std::vector<int64_t> shape;
  for (int axis = 0; axis < n; ++axis) {
    std::optional<int64_t> d = p.Dim(e, axis);
    if (!d) return std::nullopt;
    shape.push_back(*d);
  }
  return shape;
}

bool IsStaticFloat32(const Pattern& p, Expr e, int ndim) { return StaticFloat32(p, e, ndim).has_value(); }

int64_t NumElements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::vector<int64_t> IntsOf(const Pattern& p, Expr call, const char* name) {
  return p.AttrInts(call, name).value_or(std::vector<int64_t>{});
}

std::string StringOf(const Pattern& p, Expr call, const char* name) {
  return p.AttrString(call, name).value_or(std::string());
}

std::vector<int64_t> PairOf(std::vector<int64_t> v) {
  if (v.size() == 1) return {v[0], v[0]};
  return v.size() == 2 ? v : std::vector<int64_t>{};
}

std::vector<int64_t> PaddingOf(std::vector<int64_t> v) {
  if (v.size() == 1) return {v[0], v[0], v[0], v[0]};
  if (v.size() == 2) return {v[0], v[1], v[0], v[1]};
  return v.size() == 4 ? v : std::vector<int64_t>{};
}

Epilogue FollowEpilogue(Pattern& p, const std::function<bool(Expr)>& bias_ok) {
  Epilogue e;
  if (e.num_calls < p.num_calls() && p.OpName(p.call(e.num_calls)) == "add") {
    Expr add = p.call(e.num_calls), mine = p.result(0);
    Expr x1 = p.Arg(add, 0), x2 = p.Arg(add, 1);
    Expr other = x1 == mine ? x2 : x2 == mine ? x1 : nullptr;
    std::optional<std::vector<int64_t>> in = p.StaticShape(mine), out = p.StaticShape(p.result(e.num_calls));
    // An add the call cannot apply ends the epilogue: what follows reads it.
    if (other == nullptr || other == mine || !in || in != out || !bias_ok(other)) return e;
    e.bias = other;
    ++e.num_calls;
  }
  if (e.num_calls < p.num_calls() && p.OpName(p.call(e.num_calls)) == "nn.relu") {
    e.relu = true;
    ++e.num_calls;
  }
  return e;
}

}  // namespace rxt::lib_dnnl
