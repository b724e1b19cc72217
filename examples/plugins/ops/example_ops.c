/* Two new ops for rxt, as a plugin in C99 that sees only the installed headers:
 *
 *   example.softplus(x, beta=1.0)            log(1 + exp(beta * x)) / beta
 *   example.leaky_relu(x, negative_slope=0.01)   x if x > 0 else negative_slope * x
 *
 * Each op gives its struct info (the input's, for a float tensor), its kernel as tensor
 * expressions (rxt/tensor_expr.h) and a gradient rule built from core ops (rxt/ir_builder.h).
 * README.md shows how to build it, use it in a model, train it and check its gradients. */
#include <rxt/plugin.h>
#include <stdio.h>
#include <string.h>

static const rxt_host_api_t* g_host; /* for status_create */

static rxt_status_t Fail(const char* message) { return g_host->status_create(RXT_INVALID_ARGUMENT, message); }

static int IsFloat(const char* dtype) { return strcmp(dtype, "float32") == 0 || strcmp(dtype, "float64") == 0; }

/* Both ops: the result is the input's struct info; only floats are accepted. */
static rxt_status_t InferLikeInput(void* state, const rxt_ir_api_t* ir, rxt_ir_builder_t* b, rxt_ir_expr_t call) {
  (void)state;
  rxt_ir_expr_t x = ir->arg(b, call, 0);
  const char* dtype = ir->dtype(b, x);
  if (!IsFloat(dtype)) {
    char message[128];
    snprintf(message, sizeof message, "x must be float32 or float64, got '%s'", dtype);
    return Fail(message);
  }
  ir->set_struct_info(b, ir->struct_info_text(b, x));
  return NULL;
}

/* The kernel of an elementwise op: y[i] = fn(x[i]) over every index i of x. */
typedef rxt_te_expr_t (*ElementFn)(const rxt_te_api_t* te, rxt_te_builder_t* kb, rxt_te_expr_t v, double attr,
                                   const char* dtype);

static rxt_status_t LegalizeElementwise(const rxt_te_api_t* te, rxt_te_builder_t* kb, const char* name, ElementFn fn,
                                        double attr) {
  rxt_te_tensor_t x = te->input(kb, 0);
  int n = te->ndim(kb, x);
  if (n < 0 || n > RXT_TE_MAX_NDIM) return NULL; /* input() recorded why */
  rxt_te_expr_t shape[RXT_TE_MAX_NDIM], i[RXT_TE_MAX_NDIM];
  for (int d = 0; d < n; ++d) shape[d] = te->dim(kb, x, d);
  te->axes(kb, n, i);
  rxt_te_expr_t y = fn(te, kb, te->load(kb, x, i, n), attr, te->dtype(kb, x));
  te->output(kb, te->compute(kb, name, shape, n, i, y));
  return NULL; /* a failed call above is reported from the builder */
}

/* ---- softplus ---- */

/* log(1 + exp(b x)) / b, computed as max(b x, 0) + log(1 + exp(-|b x|)), which neither
 * overflows for large b x nor loses it for small. */
static rxt_te_expr_t SoftplusElement(const rxt_te_api_t* te, rxt_te_builder_t* kb, rxt_te_expr_t v, double beta,
                                     const char* dtype) {
  rxt_te_expr_t bx = te->binary(kb, RXT_TE_MUL, v, te->constant(kb, beta, dtype));
  rxt_te_expr_t zero = te->constant(kb, 0, dtype), one = te->constant(kb, 1, dtype);
  rxt_te_expr_t tail = te->call(kb, "exp", te->call(kb, "neg", te->call(kb, "abs", bx)));
  rxt_te_expr_t soft = te->binary(kb, RXT_TE_ADD, te->binary(kb, RXT_TE_MAX, bx, zero),
                                  te->call(kb, "log", te->binary(kb, RXT_TE_ADD, one, tail)));
  return te->binary(kb, RXT_TE_DIV, soft, te->constant(kb, beta, dtype));
}

static rxt_status_t SoftplusBeta(const rxt_ir_api_t* ir, rxt_ir_builder_t* b, rxt_ir_expr_t call, double* beta) {
  if (ir->attr_float(b, call, "beta", beta) != RXT_OK) return Fail("cannot read attribute beta");
  if (!(*beta > 0)) return Fail("beta must be positive");
  return NULL;
}

static rxt_status_t InferSoftplus(void* state, const rxt_ir_api_t* ir, rxt_ir_builder_t* b, rxt_ir_expr_t call) {
  double beta;
  rxt_status_t bad = SoftplusBeta(ir, b, call, &beta);
  return bad != NULL ? bad : InferLikeInput(state, ir, b, call);
}

static rxt_status_t LegalizeSoftplus(void* state, const rxt_te_api_t* te, rxt_te_builder_t* kb, const rxt_ir_api_t* ir,
                                     rxt_ir_builder_t* b, rxt_ir_expr_t call) {
  (void)state;
  double beta;
  rxt_status_t bad = SoftplusBeta(ir, b, call, &beta);
  return bad != NULL ? bad : LegalizeElementwise(te, kb, "softplus", SoftplusElement, beta);
}

/* d softplus(x) / dx = sigmoid(beta x). */
static rxt_status_t SoftplusGrad(void* state, const rxt_ir_api_t* ir, rxt_ir_builder_t* b, rxt_ir_expr_t call,
                                 rxt_ir_expr_t y, rxt_ir_expr_t dy, rxt_ir_expr_t* grads) {
  (void)state;
  (void)y;
  double beta;
  rxt_status_t bad = SoftplusBeta(ir, b, call, &beta);
  if (bad != NULL) return bad;
  rxt_ir_expr_t x = ir->arg(b, call, 0);
  rxt_ir_expr_t scaled[2] = {x, ir->scalar(b, beta, ir->dtype(b, x))};
  rxt_ir_expr_t sig = ir->op(b, "sigmoid", (rxt_ir_expr_t[]){ir->op(b, "multiply", scaled, 2, NULL)}, 1, NULL);
  grads[0] = ir->op(b, "multiply", (rxt_ir_expr_t[]){dy, sig}, 2, NULL);
  return NULL;
}

/* ---- leaky_relu ---- */

static rxt_te_expr_t LeakyReluElement(const rxt_te_api_t* te, rxt_te_builder_t* kb, rxt_te_expr_t v, double slope,
                                      const char* dtype) {
  rxt_te_expr_t positive = te->binary(kb, RXT_TE_GT, v, te->constant(kb, 0, dtype));
  return te->select(kb, positive, v, te->binary(kb, RXT_TE_MUL, v, te->constant(kb, slope, dtype)));
}

static rxt_status_t LegalizeLeakyRelu(void* state, const rxt_te_api_t* te, rxt_te_builder_t* kb,
                                      const rxt_ir_api_t* ir, rxt_ir_builder_t* b, rxt_ir_expr_t call) {
  (void)state;
  double slope;
  if (ir->attr_float(b, call, "negative_slope", &slope) != RXT_OK) return Fail("cannot read negative_slope");
  return LegalizeElementwise(te, kb, "leaky_relu", LeakyReluElement, slope);
}

/* d leaky_relu(x) / dx = 1 where x > 0, negative_slope elsewhere. */
static rxt_status_t LeakyReluGrad(void* state, const rxt_ir_api_t* ir, rxt_ir_builder_t* b, rxt_ir_expr_t call,
                                  rxt_ir_expr_t y, rxt_ir_expr_t dy, rxt_ir_expr_t* grads) {
  (void)state;
  (void)y;
  double slope;
  if (ir->attr_float(b, call, "negative_slope", &slope) != RXT_OK) return Fail("cannot read negative_slope");
  rxt_ir_expr_t x = ir->arg(b, call, 0);
  const char* dtype = ir->dtype(b, x);
  rxt_ir_expr_t positive = ir->op(b, "greater", (rxt_ir_expr_t[]){x, ir->scalar(b, 0, dtype)}, 2, NULL);
  rxt_ir_expr_t leaked = ir->op(b, "multiply", (rxt_ir_expr_t[]){dy, ir->scalar(b, slope, dtype)}, 2, NULL);
  grads[0] = ir->op(b, "where", (rxt_ir_expr_t[]){positive, dy, leaked}, 3, NULL);
  return NULL;
}

/* ---- The plugin ---- */

static const char* const kInputs[] = {"x"};
static const rxt_op_attr_t kSoftplusAttrs[] = {{"beta", RXT_ATTR_FLOAT, "1.0", "Sharpness: larger is closer to relu."}};
static const rxt_op_attr_t kLeakyReluAttrs[] = {
    {"negative_slope", RXT_ATTR_FLOAT, "0.01", "The slope for x <= 0."}};

static const rxt_op_t kSoftplus = {sizeof(rxt_op_t), "example.softplus", "log(1 + exp(beta x)) / beta.", NULL,
                                   kInputs, 1, kSoftplusAttrs, 1, InferSoftplus, LegalizeSoftplus};
static const rxt_op_t kLeakyRelu = {sizeof(rxt_op_t), "example.leaky_relu", "x if x > 0 else negative_slope x.", NULL,
                                    kInputs, 1, kLeakyReluAttrs, 1, InferLikeInput, LegalizeLeakyRelu};
static const rxt_op_t* const kOps[] = {&kSoftplus, &kLeakyRelu};

static const rxt_gradient_rule_t kSoftplusGrad = {sizeof(rxt_gradient_rule_t), "example.softplus",
                                                  "dx = dy sigmoid(beta x)", NULL, SoftplusGrad};
static const rxt_gradient_rule_t kLeakyReluGrad = {sizeof(rxt_gradient_rule_t), "example.leaky_relu",
                                                   "dx = where(x > 0, dy, negative_slope dy)", NULL, LeakyReluGrad};
static const rxt_gradient_rule_t* const kRules[] = {&kSoftplusGrad, &kLeakyReluGrad};

/* Designated initializers: lists appended to the descriptor in later versions start empty. */
static const rxt_plugin_descriptor_t kPlugin = {
    .struct_size = sizeof(rxt_plugin_descriptor_t),
    .abi_version = RXT_PLUGIN_ABI_VERSION,
    .name = "example_ops",
    .version = "1.0.0",
    .summary = "Example ops: example.softplus and example.leaky_relu, with their gradients.",
    .gradient_rules = kRules,
    .num_gradient_rules = 2,
    .ops = kOps,
    .num_ops = 2};

RXT_PLUGIN_EXPORT const rxt_plugin_descriptor_t* rxt_plugin_entry(uint32_t host_abi_version,
                                                                  const rxt_host_api_t* host) {
  /* Ops came within version 3: a host whose table has no register_op does not know them. */
  if (host_abi_version < RXT_PLUGIN_ABI_VERSION || !RXT_HOST_API_HAS(host, register_op)) {
    if (host != NULL) host->log(host->host, RXT_LOG_WARNING, "needs a host that knows ops (rxt 0.1 or later)");
    return NULL;
  }
  g_host = host;
  return &kPlugin;
}
