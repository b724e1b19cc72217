#include "gradient_cases.h"

namespace rxt::grad_test {
namespace {

const Range kPositive{0.5, 2};

void AddElementwise(std::vector<GradCase>& cases) {
  struct Unary {
    const char* op;
    Range range;
  };
  for (Unary u :
       {Unary{"negative", {}}, Unary{"abs", {}}, Unary{"exp", {}}, Unary{"log", kPositive}, Unary{"sqrt", kPositive},
        Unary{"rsqrt", kPositive}, Unary{"tanh", {}}, Unary{"sigmoid", {}}, Unary{"erf", {}},
        // Piecewise constant: inputs away from the jumps (integers; halves for round; 0 for sign).
        Unary{"sin", {}}, Unary{"cos", {}}, Unary{"tan", {-1, 1}}, Unary{"asin", {-0.8, 0.8}},
        Unary{"acos", {-0.8, 0.8}}, Unary{"atan", {}}, Unary{"sinh", {}}, Unary{"cosh", {}}, Unary{"asinh", {}},
        Unary{"acosh", {1.2, 3}}, Unary{"atanh", {-0.8, 0.8}},
        Unary{"floor", {0.1, 0.9}}, Unary{"ceil", {1.1, 1.9}}, Unary{"round", {0.1, 0.4}}, Unary{"sign", kPositive}}) {
    std::string call = std::string("  %r = ") + u.op + "(%x)";
    cases.push_back({u.op, "%x: Tensor((n, 3), float64)", call, {{"n", 2}}, {{"x", u.range}}});
    cases.push_back({u.op, "%x: Tensor((5,), float64)", call, {}, {{"x", u.range}}});
  }
  // Binary ops: same shapes, broadcasting both ways, symbolic dims.
  struct Binary {
    const char* op;
    Range a, b;
  };
  for (Binary o :
       {Binary{"add", {}, {}}, Binary{"subtract", {}, {}}, Binary{"multiply", {}, {}}, Binary{"divide", {}, kPositive},
        Binary{"power", kPositive, {-1, 2}}, Binary{"maximum", {}, {}}, Binary{"minimum", {}, {}},
        // Quotients in (3.05, 3.8) and (-3.8, -3.05): away from the jumps of floor and trunc.
        Binary{"mod", {3.2, 3.8}, {1.0, 1.05}}, Binary{"fmod", {-3.8, -3.2}, {1.0, 1.05}}}) {
    std::string call = std::string("  %r = ") + o.op + "(%a, %b)";
    std::map<std::string, Range> ranges = {{"a", o.a}, {"b", o.b}};
    cases.push_back({o.op, "%a: Tensor((2, 3), float64), %b: Tensor((2, 3), float64)", call, {}, ranges});
    cases.push_back({o.op, "%a: Tensor((4, 1, 3), float64), %b: Tensor((2, 1), float64)", call, {}, ranges});
    cases.push_back({o.op, "%a: Tensor((n, 3), float64), %b: Tensor((1, 3), float64)", call, {{"n", 3}}, ranges});
    cases.push_back({o.op, "%a: Tensor((), float64), %b: Tensor((3,), float64)", call, {}, ranges});
  }
  cases.push_back({"where", "%c: Tensor((2, 3), bool), %a: Tensor((3,), float64), %b: Tensor((2, 1), float64)",
                   "  %r = where(%c, %a, %b)"});
  cases.push_back({"where",
                   "%c: Tensor((n, 1), bool), %a: Tensor((n, 4), float64), %b: Tensor((), float64)",
                   "  %r = where(%c, %a, %b)",
                   {{"n", 3}}});
  cases.push_back({"astype", "%x: Tensor((2, 3), float64)", "  %r = astype(%x, dtype=float64)"});
  cases.push_back({"astype", "%x: Tensor((2, 3), float64), %i: Tensor((2, 3), int64)",
                   "  %f = astype(%i, dtype=float64)\n  %r = multiply(%f, %x)"});
  cases.push_back(
      {"clip", "%x: Tensor((n, 4), float64)", "  %r = clip(%x, min=-0.5, max=0.75)", {{"n", 3}}, {{"x", {-2, 2}}}});
}

void AddLinalg(std::vector<GradCase>& cases) {
  auto mm = [&](const std::string& a, const std::string& b, std::map<std::string, int64_t> dims = {}) {
    cases.push_back(
        {"matmul", "%a: Tensor(" + a + ", float64), %b: Tensor(" + b + ", float64)", "  %r = matmul(%a, %b)", dims});
  };
  mm("(3, 4)", "(4, 2)");
  mm("(2, 3, 4)", "(4, 5)");
  mm("(2, 1, 3, 4)", "(3, 4, 2)");  // batch dims broadcast
  mm("(4,)", "(4,)");
  mm("(4,)", "(2, 4, 3)");
  mm("(2, 3, 4)", "(4,)");
  mm("(n, 4)", "(4, 3)", {{"n", 2}});
  // linear: PyTorch's layout, with and without a bias, 1-D to 3-D inputs, symbolic dims.
  auto linear = [&](const std::string& x, const std::string& w, const char* bias,
                    std::map<std::string, int64_t> dims = {}) {
    std::string params = "%x: Tensor(" + x + ", float64), %w: Tensor(" + w + ", float64)";
    if (bias != nullptr) params += std::string(", %b: Tensor(") + bias + ", float64)";
    cases.push_back({"linear", params, bias != nullptr ? "  %r = linear(%x, %w, %b)" : "  %r = linear(%x, %w)", dims});
  };
  linear("(3, 4)", "(2, 4)", "(2,)");
  linear("(3, 4)", "(2, 4)", nullptr);
  linear("(4,)", "(3, 4)", "(3,)");
  linear("(2, 3, 4)", "(5, 4)", "(5,)");
  linear("(n, 3, 4)", "(o, 4)", "(o,)", {{"n", 2}, {"o", 3}});  // symbolic out: a batched product
}

void AddManipulate(std::vector<GradCase>& cases) {
  cases.push_back({"permute_dims", "%x: Tensor((2, 3, 4), float64)", "  %r = permute_dims(%x, axes=[2, 0, -2])"});
  cases.push_back({"permute_dims", "%x: Tensor((n, 3), float64)", "  %r = permute_dims(%x)", {{"n", 2}}});
  cases.push_back({"reshape", "%x: Tensor((2, 6), float64)", "  %r = reshape(%x, shape(3, 4))"});
  cases.push_back({"reshape", "%x: Tensor((n, 6), float64)", "  %r = reshape(%x, shape(n, 2, 3))", {{"n", 2}}});
  cases.push_back({"broadcast_to", "%x: Tensor((3,), float64)", "  %r = broadcast_to(%x, shape(2, 3))"});
  cases.push_back({"broadcast_to", "%x: Tensor((2, 1), float64)", "  %r = broadcast_to(%x, shape(3, 2, 4))"});
  cases.push_back({"collapse_sum_to", "%x: Tensor((2, 3), float64)", "  %r = collapse_sum_to(%x, shape(1, 3))"});
  cases.push_back({"collapse_sum_to", "%x: Tensor((2, 3, 4), float64)", "  %r = collapse_sum_to(%x, shape(3, 1))"});
  cases.push_back({"expand_dims", "%x: Tensor((n, 3), float64)", "  %r = expand_dims(%x, axis=[0, 3])", {{"n", 2}}});
  cases.push_back({"squeeze", "%x: Tensor((2, 1, 3, 1), float64)", "  %r = squeeze(%x, axis=[1])"});
  cases.push_back({"squeeze", "%x: Tensor((2, 1, 3, 1), float64)", "  %r = squeeze(%x)"});
  cases.push_back({"flatten", "%x: Tensor((n, 3), float64)", "  %r = flatten(%x)", {{"n", 2}}});
  cases.push_back({"flatten", "%x: Tensor((n, 3, 2), float64)", "  %r = flatten(%x, start_dim=1)", {{"n", 2}}});
}

void AddIndexManipulate(std::vector<GradCase>& cases) {
  cases.push_back(
      {"concat", "%x: Tensor((2, 3), float64), %y: Tensor((2, 2), float64)", "  %r = concat((%x, %y), axis=1)"});
  cases.push_back({"concat", "%x: Tensor((2, 3), float64)", "  %r = concat((%x, %x, %x), axis=-2)"});
  cases.push_back({"concat",
                   "%x: Tensor((2, 3), float64), %y: Tensor((n, 3), float64)",
                   "  %t = (%x, %y)\n  %r = concat(%t, axis=0)",
                   {{"n", 3}}});
  cases.push_back({"split", "%x: Tensor((2, 5), float64)", "  %r = split(%x, indices=[1, 3], axis=1)"});
  cases.push_back({"split", "%x: Tensor((4, 3), float64)",
                   "  %p = split(%x, sections=2)\n  %r = %p[1]"});  // a part without adjoint
  cases.push_back({"strided_slice", "%x: Tensor((5, 7), float64)",
                   "  %r = strided_slice(%x, axes=[0, 1], begin=[1, 0], end=[4, 7], strides=[1, 3])"});
  cases.push_back({"strided_slice", "%x: Tensor((3, 6), float64)",
                   "  %r = strided_slice(%x, axes=[1], begin=[5], end=[0], strides=[-2])"});
  cases.push_back({"strided_slice",
                   "%x: Tensor((n, 6), float64)",
                   "  %r = strided_slice(%x, axes=[0, 1], begin=[1, -5], end=[2147483647, 6], strides=[1, 2])",
                   {{"n", 3}}});
  cases.push_back({"strided_slice", "%x: Tensor((4,), float64)",
                   "  %r = strided_slice(%x, axes=[0], begin=[-1], end=[-10], strides=[-1])"});
  cases.push_back({"take",
                   "%x: Tensor((5, 3), float64), %i: Tensor((6,), int64)",
                   "  %r = take(%x, %i, axis=0)",
                   {},
                   {{"i", {-5, 4}}}});
  cases.push_back({"take",
                   "%x: Tensor((n, 3), float64), %i: Tensor((2, 2), int64)",
                   "  %r = take(%x, %i, axis=1)",
                   {{"n", 2}},
                   {{"i", {0, 2}}}});
  cases.push_back(
      {"take", "%x: Tensor((2, 3), float64), %i: Tensor((4,), int64)", "  %r = take(%x, %i)", {}, {{"i", {0, 5}}}});
  cases.push_back({"pad", "%x: Tensor((2, 3), float64)", "  %r = pad(%x, pad_width=[1, 0, 2, 1], pad_value=0.5)"});
  cases.push_back({"pad", "%x: Tensor((n, 3), float64)", "  %r = pad(%x, pad_width=[1, 0, 0, 2])", {{"n", 2}}});
}

void AddReduce(std::vector<GradCase>& cases) {
  for (const char* op : {"sum", "mean", "max", "min", "prod", "variance"}) {
    std::string name = op;
    cases.push_back({op, "%x: Tensor((2, 3, 4), float64)", "  %r = " + name + "(%x, axis=[0, 2])"});
    cases.push_back(
        {op, "%x: Tensor((n, 3), float64)", "  %r = " + name + "(%x, axis=[-1], keepdims=true)", {{"n", 3}}});
    cases.push_back({op, "%x: Tensor((n, 3), float64)", "  %r = " + name + "(%x)", {{"n", 2}}});
    cases.push_back({op, "%x: Tensor((n, 3), float64)", "  %r = " + name + "(%x, axis=[0])", {{"n", 4}}});
  }
  // prod at zeros (a parameter in [0, 0] is exactly 0, differentiated like the others): groups
  // with one zero (its adjoint the others' product, theirs 0), then one group with two (all 0).
  cases.push_back({"prod", "%x: Tensor((2, 3), float64), %w: Tensor((2, 1), float64)",
                   "  %y = concat((%x, %w), axis=1)\n  %r = prod(%y, axis=[1])", {}, {{"w", {0, 0}}}});
  cases.push_back({"prod", "%x: Tensor((3, 2), float64), %w: Tensor((1, 2), float64)",
                   "  %y = concat((%w, %x), axis=0)\n  %r = prod(%y, axis=[0], keepdims=true)", {}, {{"w", {0, 0}}}});
  cases.push_back({"prod", "%x: Tensor((2, 2), float64), %w: Tensor((1, 2), float64)",
                   "  %y = concat((%x, %w), axis=0)\n  %r = prod(%y)", {}, {{"w", {0, 0}}}});
  // cumsum: every combination of exclusive and reverse, a symbolic dim, a negative axis.
  for (const char* flags : {"", ", exclusive=true", ", reverse=true", ", exclusive=true, reverse=true"}) {
    cases.push_back({"cumsum", "%x: Tensor((n, 4), float64)", std::string("  %r = cumsum(%x, axis=1") + flags + ")",
                     {{"n", 2}}});
    cases.push_back(
        {"cumsum", "%x: Tensor((3, 2, 2), float64)", std::string("  %r = cumsum(%x, axis=-3") + flags + ")"});
  }
  for (const char* op : {"softmax", "log_softmax"}) {
    std::string name = op;
    cases.push_back({op, "%x: Tensor((n, 5), float64)", "  %r = " + name + "(%x)", {{"n", 2}}, {{"x", {-2, 2}}}});
    cases.push_back({op, "%x: Tensor((2, 3, 4), float64)", "  %r = " + name + "(%x, axis=1)"});
  }
}

void AddCreate(std::vector<GradCase>& cases) {
  cases.push_back({"zeros_like", "%x: Tensor((2, 3), float64)", "  %z = zeros_like(%x)\n  %r = add(%z, %x)"});
  cases.push_back({"ones_like", "%x: Tensor((2, 3), float64)", "  %o = ones_like(%x)\n  %r = multiply(%o, %x)"});
  cases.push_back({"full", "%v: Tensor((), float64)", "  %r = full(shape(2, 3), %v)"});
  cases.push_back({"full_like",
                   "%x: Tensor((n, 3), float64), %v: Tensor((), float64)",
                   "  %f = full_like(%x, %v)\n  %r = multiply(%f, %x)",
                   {{"n", 2}}});
}

void AddNN(std::vector<GradCase>& cases) {
  for (const char* op : {"nn.relu", "nn.gelu", "nn.silu"}) {
    cases.push_back(
        {op, "%x: Tensor((n, 4), float64)", std::string("  %r = ") + op + "(%x)", {{"n", 3}}, {{"x", {-3, 3}}}});
  }
  cases.push_back({"nn.dropout",
                   "%x: Tensor((n, 8), float64), %s: Tensor((), int64)",
                   "  %d = nn.dropout(%x, %s, rate=0.4)\n  %r = %d[0]",
                   {{"n", 4}}});
  cases.push_back({"nn.dropout", "%x: Tensor((3, 4), float64)", "  %d = nn.dropout(%x, rate=0.4)\n  %r = %d[0]"});
}

void AddConv(std::vector<GradCase>& cases) {
  auto conv = [&](const std::string& op, const std::string& data, const std::string& weight, const std::string& attrs,
                  std::map<std::string, int64_t> dims = {}) {
    cases.push_back({op, "%d: Tensor(" + data + ", float64), %w: Tensor(" + weight + ", float64)",
                     "  %r = " + op + "(%d, %w" + (attrs.empty() ? "" : ", " + attrs) + ")", dims});
  };
  conv("nn.conv2d", "(2, 3, 5, 5)", "(4, 3, 3, 3)", "");
  conv("nn.conv2d", "(n, 2, 6, 5)", "(3, 2, 2, 3)", "strides=[2, 1], padding=[1, 0, 0, 2]", {{"n", 2}});
  conv("nn.conv2d", "(1, 4, 7, 6)", "(6, 2, 3, 2)", "dilation=[2, 1], padding=[1], groups=2, strides=[2]");
  conv("nn.conv2d", "(2, 5, 6, 4)", "(3, 3, 2, 4)",
       "strides=[2], padding=[1, 2], data_layout=\"NHWC\", kernel_layout=\"HWIO\", groups=2");
  conv("nn.conv2d", "(1, 6, 5, 3)", "(2, 3, 2, 2)", "data_layout=\"NHWC\", dilation=[2]");
  conv("nn.conv2d_transpose", "(2, 3, 4, 4)", "(3, 2, 3, 3)", "");
  conv("nn.conv2d_transpose", "(n, 4, 3, 4)", "(4, 2, 3, 2)",
       "strides=[2], padding=[1, 0], output_padding=[1], groups=2", {{"n", 2}});
  conv("nn.conv2d_transpose", "(1, 4, 3, 4)", "(2, 3, 1, 4)",
       "dilation=[2], strides=[3, 2], data_layout=\"NHWC\", kernel_layout=\"HWOI\", output_padding=[2, 0]");
  // conv2d's gradient ops (conv2d's second derivatives): the output gradient and the other argument.
  auto backward = [&](const std::string& op, const std::string& grad, const std::string& other,
                      const std::string& attrs, std::map<std::string, int64_t> dims = {}) {
    cases.push_back({op, "%g: Tensor(" + grad + ", float64), %o: Tensor(" + other + ", float64)",
                     "  %r = " + op + "(%g, %o, " + attrs + ")", dims});
  };
  backward("nn.conv2d_backward_data", "(2, 4, 3, 3)", "(4, 3, 3, 3)", "data_size=[5, 5]");
  backward("nn.conv2d_backward_data", "(n, 6, 2, 3)", "(6, 2, 2, 2)",
           "strides=[2], padding=[1, 0], groups=2, data_size=[3, 6]", {{"n", 2}});
  backward("nn.conv2d_backward_weight", "(2, 4, 3, 3)", "(2, 3, 5, 5)", "kernel_size=[3, 3]");
  backward("nn.conv2d_backward_weight", "(1, 2, 2, 2)", "(1, 5, 6, 4)",
           "strides=[2], dilation=[1, 2], groups=2, data_layout=\"NHWC\", kernel_layout=\"HWIO\", kernel_size=[2, 2]");
}

void AddPool(std::vector<GradCase>& cases) {
  auto pool = [&](const std::string& op, const std::string& data, const std::string& attrs,
                  std::map<std::string, int64_t> dims = {}) {
    cases.push_back(
        {op, "%x: Tensor(" + data + ", float64)", "  %r = " + op + "(%x, " + attrs + ")", dims, {{"x", {-4, 4}}}});
  };
  for (const char* op : {"nn.max_pool2d", "nn.avg_pool2d"}) {
    pool(op, "(n, 2, 5, 6)", "pool_size=[2, 2], strides=[2, 2]", {{"n", 2}});
    pool(op, "(1, 3, 5, 5)", "pool_size=[3, 2], strides=[2, 1], padding=[1, 0, 1, 1], ceil_mode=true");
    pool(op, "(1, 6, 5, 2)", "pool_size=[2, 2], dilation=[2, 1], padding=[1], layout=\"NHWC\"");
  }
  pool("nn.avg_pool2d", "(1, 2, 5, 5)", "pool_size=[3, 3], strides=[2, 2], padding=[1], count_include_pad=true");
  pool("nn.adaptive_avg_pool2d", "(n, 2, 7, 5)", "output_size=[3, 2]", {{"n", 2}});
  pool("nn.adaptive_avg_pool2d", "(1, 3, 2, 2)", "output_size=[3], layout=\"NHWC\"");  // windows overlap
  // The backward ops of the average poolings (second derivatives): the data gives a shape only.
  cases.push_back({"nn.avg_pool2d_backward",
                   "%g: Tensor((2, 2, 3, 3), float64), %x: Tensor((2, 2, 5, 6), float64)",
                   "  %r = nn.avg_pool2d_backward(%g, %x, pool_size=[3, 2], strides=[2, 2], padding=[1, 0])",
                   {},
                   {},
                   {"x"}});
  cases.push_back({"nn.adaptive_avg_pool2d_backward",
                   "%g: Tensor((1, 3, 2, 3), float64), %x: Tensor((1, 3, 5, 4), float64)",
                   "  %r = nn.adaptive_avg_pool2d_backward(%g, %x)",
                   {},
                   {},
                   {"x"}});
}

void AddNorm(std::vector<GradCase>& cases) {
  const std::string bn_params =
      "%x: Tensor((n, 3, 2, 2), float64), %g: Tensor((3,), float64), %b: Tensor((3,), float64), "
      "%m: Tensor((3,), float64), %v: Tensor((3,), float64)";
  cases.push_back({"nn.batch_norm",
                   bn_params,
                   "  %t = nn.batch_norm(%x, %g, %b, %m, %v)\n  %r = %t[0]",
                   {{"n", 3}},
                   {{"v", kPositive}},
                   {"m", "v"}});
  cases.push_back({"nn.batch_norm",
                   "%x: Tensor((4, 5), float64), %g: Tensor((5,), float64), %b: Tensor((5,), float64), "
                   "%m: Tensor((5,), float64), %v: Tensor((5,), float64)",
                   "  %t = nn.batch_norm(%x, %g, %b, %m, %v, axis=-1, epsilon=0.01, training=false)\n  %r = %t[0]",
                   {},
                   {{"v", kPositive}},
                   {"m", "v"}});
  cases.push_back({"nn.batch_norm",
                   "%x: Tensor((2, 2, 3), float64), %g: Tensor((3,), float64), %b: Tensor((3,), float64), "
                   "%m: Tensor((3,), float64), %v: Tensor((3,), float64)",
                   "  %t = nn.batch_norm(%x, %g, %b, %m, %v, axis=2)\n  %r = %t[0]",
                   {},
                   {{"v", kPositive}},
                   {"m", "v"}});
  cases.push_back({"nn.layer_norm",
                   "%x: Tensor((n, 3, 4), float64), %g: Tensor((4,), float64), %b: Tensor((4,), float64)",
                   "  %r = nn.layer_norm(%x, %g, %b, axes=[-1])",
                   {{"n", 2}}});
  cases.push_back({"nn.layer_norm",
                   "%x: Tensor((2, 3, 4), float64), %g: Tensor((4, 3), float64), %b: Tensor((4, 3), float64)",
                   "  %r = nn.layer_norm(%x, %g, %b, axes=[2, 1], epsilon=0.001)"});
}

void AddLoss(std::vector<GradCase>& cases) {
  for (const char* reduction : {"mean", "sum", "none"}) {
    std::string attrs = std::string("reduction=\"") + reduction + "\"";
    cases.push_back({"nn.nll_loss",
                     "%p: Tensor((n, 4), float64), %t: Tensor((n,), int64)",
                     "  %r = nn.nll_loss(%p, %t, " + attrs + ")",
                     {{"n", 5}},
                     {{"t", {0, 3}}}});
    cases.push_back({"nn.nll_loss",
                     "%p: Tensor((2, 3, 2, 2), float64), %t: Tensor((2, 2, 2), int64), %w: Tensor((3,), float64)",
                     "  %r = nn.nll_loss(%p, %t, %w, ignore_index=1, " + attrs + ")",
                     {},
                     {{"t", {0, 2}}, {"w", kPositive}}});
  }
  cases.push_back({"nn.nll_loss",
                   "%p: Tensor((4,), float64), %t: Tensor((), int64), %w: Tensor((4,), float64)",
                   "  %r = nn.nll_loss(%p, %t, %w)",
                   {},
                   {{"t", {0, 3}}, {"w", kPositive}}});
  cases.push_back({"nn.cross_entropy_with_logits",
                   "%p: Tensor((n, 4), float64), %l: Tensor((n, 4), float64)",
                   "  %r = nn.cross_entropy_with_logits(%p, %l)",
                   {{"n", 3}}});
  cases.push_back({"nn.cross_entropy_with_logits", "%p: Tensor((5,), float64), %l: Tensor((5,), float64)",
                   "  %r = nn.cross_entropy_with_logits(%p, %l)"});
}

}  // namespace

std::vector<GradCase> GradientCases() {
  std::vector<GradCase> cases;
  AddElementwise(cases);
  AddLinalg(cases);
  AddManipulate(cases);
  AddIndexManipulate(cases);
  AddReduce(cases);
  AddCreate(cases);
  AddNN(cases);
  AddConv(cases);
  AddPool(cases);
  AddNorm(cases);
  AddLoss(cases);
  return cases;
}

}  // namespace rxt::grad_test
