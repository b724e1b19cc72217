// ONNX's training ops (domain ai.onnx.preview.training): the optimizers Adagrad, Momentum
// (standard and Nesterov) and Adam, as the formulas ONNX defines them by (onnx/defs/training),
// one update per optimized tensor: inputs R (learning rate), T (update count), then the
// tensors, their gradients and their optimizer states; outputs the new tensors, then the new
// states. ONNX Runtime refuses these ops.
#include "convert_util.h"
#include "converters.h"

namespace rxt::import_onnx {
namespace {

/// What every optimizer node shares: its tensors' count, dtype, R and T as that dtype's scalars.
struct Update {
  int n = 0;            // tensors optimized
  std::string dtype;    // of the first tensor
  std::string r, t;     // learning rate and update count, in dtype
  std::string t_positive;  // bool: T > 0
};

Update Begin(NodeContext& ctx, int groups) {
  Update u;
  if ((ctx.num_inputs() - 2) % groups != 0 || ctx.num_inputs() < 2 + groups) {
    ctx.fail("expects R, T and " + std::to_string(groups) + " groups of tensors, got " +
             std::to_string(ctx.num_inputs()) + " inputs");
  }
  u.n = (ctx.num_inputs() - 2) / groups;
  u.dtype = ctx.dtype(2);
  u.r = ctx.expr(0);
  if (ctx.dtype(0) != u.dtype) u.r = ctx.bind(Call("astype", {u.r}, "dtype=" + u.dtype));
  std::string t = ctx.expr(1);
  u.t_positive = ctx.bind(Call("greater", {t, ctx.scalar_const(0, ctx.dtype(1))}));
  u.t = ctx.bind(Call("astype", {t}, "dtype=" + u.dtype));
  return u;
}

/// norm_coefficient * x + g.
std::string Regularized(NodeContext& ctx, const Update& u, const std::string& x, const std::string& g) {
  const float c = ctx.attr_float("norm_coefficient", 0.0f);
  if (c == 0) return g;
  return ctx.bind(Call("add", {Call("multiply", {x, ctx.scalar_const(c, u.dtype)}), g}));
}

std::string Scaled(NodeContext& ctx, const std::string& x, double factor, const std::string& dtype) {
  return ctx.bind(Call("multiply", {x, ctx.scalar_const(factor, dtype)}));
}

void Adagrad(NodeContext& ctx) {
  Update u = Begin(ctx, 3);
  const float epsilon = ctx.attr_float("epsilon", 1e-6f), decay = ctx.attr_float("decay_factor", 0.0f);
  // r / (1 + t * decay_factor)
  std::string r = ctx.bind(Call("divide", {u.r, Call("add", {ctx.scalar_const(1, u.dtype), Scaled(ctx, u.t, decay, u.dtype)})}));
  for (int i = 0; i < u.n; ++i) {
    std::string x = ctx.expr(2 + i), g = Regularized(ctx, u, x, ctx.expr(2 + u.n + i)), h = ctx.expr(2 + 2 * u.n + i);
    std::string h_new = ctx.bind(Call("add", {h, Call("multiply", {g, g})}));
    std::string h_sqrt = ctx.bind(Call("add", {Call("sqrt", {h_new}), ctx.scalar_const(epsilon, u.dtype)}));
    std::string step = ctx.bind(Call("divide", {Call("multiply", {r, g}), h_sqrt}));
    ctx.set_output(i, Call("subtract", {x, step}));
    ctx.set_output(u.n + i, h_new);
  }
}

void Momentum(NodeContext& ctx) {
  for (const char* required : {"alpha", "beta", "mode", "norm_coefficient"}) {
    if (!ctx.has_attr(required)) ctx.fail(std::string("attribute ") + required + " is required");
  }
  Update u = Begin(ctx, 3);
  const float alpha = ctx.attr_float("alpha", 0.0f), beta = ctx.attr_float("beta", 0.0f);
  const std::string mode = ctx.attr_string("mode", "standard");
  if (mode != "standard" && mode != "nesterov") ctx.fail("mode '" + mode + "' is not standard or nesterov");
  // The gradient's coefficient is 1 at the first update (T = 0).
  std::string beta_t = ctx.bind(Call("where", {u.t_positive, ctx.scalar_const(beta, u.dtype), ctx.scalar_const(1, u.dtype)}));
  for (int i = 0; i < u.n; ++i) {
    std::string x = ctx.expr(2 + i), g = Regularized(ctx, u, x, ctx.expr(2 + u.n + i)), v = ctx.expr(2 + 2 * u.n + i);
    std::string v_new = ctx.bind(Call("add", {Scaled(ctx, v, alpha, u.dtype), Call("multiply", {beta_t, g})}));
    std::string direction = mode == "standard" ? v_new : ctx.bind(Call("add", {g, Scaled(ctx, v_new, alpha, u.dtype)}));
    ctx.set_output(i, Call("subtract", {x, Call("multiply", {u.r, direction})}));
    ctx.set_output(u.n + i, v_new);
  }
}

void Adam(NodeContext& ctx) {
  Update u = Begin(ctx, 4);
  const float alpha = ctx.attr_float("alpha", 0.9f), beta = ctx.attr_float("beta", 0.999f);
  const float epsilon = ctx.attr_float("epsilon", 1e-6f), post = ctx.attr_float("norm_coefficient_post", 0.0f);
  // Bias correction once T > 0: r * sqrt(1 - beta^t) / (1 - alpha^t).
  const std::string one = ctx.scalar_const(1, u.dtype);
  std::string beta_t = ctx.bind(Call("power", {ctx.scalar_const(beta, u.dtype), u.t}));
  std::string alpha_t = ctx.bind(Call("power", {ctx.scalar_const(alpha, u.dtype), u.t}));
  std::string corrected = ctx.bind(Call("divide", {Call("multiply", {u.r, Call("sqrt", {Call("subtract", {one, beta_t})})}),
                                                   Call("subtract", {one, alpha_t})}));
  std::string r = ctx.bind(Call("where", {u.t_positive, corrected, u.r}));
  for (int i = 0; i < u.n; ++i) {
    std::string x = ctx.expr(2 + i), g = Regularized(ctx, u, x, ctx.expr(2 + u.n + i));
    std::string v = ctx.expr(2 + 2 * u.n + i), h = ctx.expr(2 + 3 * u.n + i);
    std::string v_new = ctx.bind(Call("add", {Scaled(ctx, v, alpha, u.dtype), Scaled(ctx, g, 1.0 - alpha, u.dtype)}));
    std::string g2 = ctx.bind(Call("multiply", {g, g}));
    std::string h_new = ctx.bind(Call("add", {Scaled(ctx, h, beta, u.dtype), Scaled(ctx, g2, 1.0 - beta, u.dtype)}));
    std::string h_sqrt = ctx.bind(Call("add", {Call("sqrt", {h_new}), ctx.scalar_const(epsilon, u.dtype)}));
    std::string x_new = ctx.bind(Call("subtract", {x, Call("multiply", {r, Call("divide", {v_new, h_sqrt})})}));
    ctx.set_output(i, post == 0 ? x_new : Call("multiply", {x_new, ctx.scalar_const(1.0 - post, u.dtype)}));
    ctx.set_output(u.n + i, v_new);
    ctx.set_output(2 * u.n + i, h_new);
  }
}

/// ONNX's Gradient: the gradient of y (seeded with ones) for each tensor named by xs, through
/// the nodes computing y from xs and zs, as rxt's gradient_of (the LowerGradientOf pass makes it
/// the Gradient pass's backward pass). The inputs are the values of xs then zs; rxt
/// differentiates at the values the graph computes y from, so each input must be that very value.
void Gradient(NodeContext& ctx) {
  const onnx::AttributeProto* xs = ctx.find_attr("xs");
  const onnx::AttributeProto* zs = ctx.find_attr("zs");
  const std::string y = ctx.attr_string("y", "");
  if (xs == nullptr || xs->strings_size() == 0) ctx.fail("attribute xs (the names differentiated for) is required");
  if (y.empty()) ctx.fail("attribute y (the name differentiated) is required");
  const int num_xs = xs->strings_size(), num_zs = zs != nullptr ? zs->strings_size() : 0;
  if (ctx.num_inputs() != num_xs + num_zs) {
    ctx.fail("has " + std::to_string(ctx.num_inputs()) + " inputs for " + std::to_string(num_xs + num_zs) +
             " names in xs and zs");
  }
  if (ctx.num_outputs() != num_xs) {
    ctx.fail("has " + std::to_string(ctx.num_outputs()) + " outputs for " + std::to_string(num_xs) + " names in xs");
  }
  for (int i = 0; i < num_xs + num_zs; ++i) {
    const std::string& name = i < num_xs ? xs->strings(i) : zs->strings(i - num_xs);
    if (ctx.node().input(i) != name) {
      ctx.unsupported("Gradient with input " + std::to_string(i) + " '" + ctx.node().input(i) + "' differs from '" + name +
                      "' (a gradient at other values than the graph's)");
    }
  }
  std::vector<std::string> wrt;
  for (int i = 0; i < num_xs; ++i) wrt.push_back(ctx.expr(i));
  std::string tuple = "(";
  for (size_t i = 0; i < wrt.size(); ++i) tuple += (i ? ", " : "") + wrt[i];
  std::string gradients = ctx.bind(Call("gradient_of", {ctx.named_expr(y), tuple + (wrt.size() == 1 ? ",)" : ")")}));
  for (int i = 0; i < num_xs; ++i) ctx.set_output(i, gradients + "[" + std::to_string(i) + "]");
}

}  // namespace

void AddTrainingConverters(ConverterMap& map) {
  map["ai.onnx.preview.training.Adagrad"] = &Adagrad;
  map["ai.onnx.preview.training.Momentum"] = &Momentum;
  map["ai.onnx.preview.training.Adam"] = &Adam;
  map["ai.onnx.preview.training.Gradient"] = &Gradient;
}

}  // namespace rxt::import_onnx
