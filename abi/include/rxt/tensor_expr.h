/* tensor_expr.h: how an op plugin legalizes its op (C99). The legalize function of an rxt_op_t
 * (rxt/plugin.h) describes the kernel of one call as tensor expressions, in the style of TVM's
 * te.compute: each stage gives its shape and the value of one element as an expression of its
 * index variables. The host turns the stages into loop nests, and the kernel into code on every
 * backend (fused with its neighbours where it fits), so the op runs like a core op.
 *
 * Handles (rxt_te_expr_t, rxt_te_tensor_t) are owned by the builder and valid until the
 * legalize function returns. Errors work as in rxt/ir_builder.h: a function that fails (a bad
 * argument, mismatched dtypes) returns NULL and records the error in the builder; a call with
 * a NULL operand returns NULL too, so a legalization may check once at the end. The host
 * reports the first error with the op's and the plugin's names.
 *
 * Example, y = leaky_relu(x) with slope a (the whole op is in examples/op_plugin):
 *
 *   rxt_te_tensor_t x = te->input(kb, 0);
 *   int n = te->ndim(kb, x);
 *   rxt_te_expr_t shape[RXT_TE_MAX_NDIM], i[RXT_TE_MAX_NDIM];
 *   for (int d = 0; d < n; ++d) shape[d] = te->dim(kb, x, d);
 *   te->axes(kb, n, i);
 *   rxt_te_expr_t v = te->load(kb, x, i, n);
 *   rxt_te_expr_t zero = te->constant(kb, 0, te->dtype(kb, x));
 *   rxt_te_expr_t a = te->constant(kb, slope, te->dtype(kb, x));
 *   rxt_te_expr_t y = te->select(kb, te->binary(kb, RXT_TE_GT, v, zero), v,
 *                                te->binary(kb, RXT_TE_MUL, v, a));
 *   te->output(kb, te->compute(kb, "leaky_relu", shape, n, i, y));
 */
#ifndef RXT_TENSOR_EXPR_H_
#define RXT_TENSOR_EXPR_H_

#include <stddef.h>
#include <stdint.h>

#include "rxt/rxt.h" /* rxt_code_t */

#ifdef __cplusplus
extern "C" {
#endif

/* The most dims a stage or tensor may have. */
#define RXT_TE_MAX_NDIM 8

typedef struct rxt_te_builder_s rxt_te_builder_t;
/* A scalar expression: an element value, an index, a dim. */
typedef struct rxt_te_expr_s* rxt_te_expr_t;
/* A tensor of the kernel: an input (an argument of the call) or a stage. */
typedef struct rxt_te_tensor_s* rxt_te_tensor_t;

/* Binary operations; both operands have the same dtype (cast first); comparisons give bool. */
typedef enum rxt_te_binary_e {
  RXT_TE_ADD = 0,
  RXT_TE_SUB = 1,
  RXT_TE_MUL = 2,
  RXT_TE_DIV = 3,       /* floats; for integers it truncates */
  RXT_TE_FLOOR_DIV = 4, /* integers */
  RXT_TE_FLOOR_MOD = 5, /* integers */
  RXT_TE_MIN = 6,
  RXT_TE_MAX = 7,
  RXT_TE_EQ = 8,
  RXT_TE_NE = 9,
  RXT_TE_LT = 10,
  RXT_TE_LE = 11,
  RXT_TE_GT = 12,
  RXT_TE_GE = 13,
  RXT_TE_AND = 14, /* bool */
  RXT_TE_OR = 15   /* bool */
} rxt_te_binary_t;

/* How a reduction combines its values (kinds are only appended: the values never change). */
typedef enum rxt_te_reduce_e {
  RXT_TE_REDUCE_SUM = 0,
  RXT_TE_REDUCE_MAX = 1,
  RXT_TE_REDUCE_MIN = 2,
  RXT_TE_REDUCE_PROD = 3
} rxt_te_reduce_t;

typedef struct rxt_te_api_s {
  size_t struct_size; /* sizeof(rxt_te_api_t); check RXT_TE_API_HAS for members added later */

  /* ---- Tensors ---- */

  /* The call's argument |index| (a tensor of known ndim and dtype) as an input of the kernel. */
  rxt_te_tensor_t (*input)(rxt_te_builder_t* kb, int index);
  /* A tensor's ndim (-1 for NULL), dtype name ("float32"; NULL for NULL) and dim |axis| (an
   * int64 expression: a number or the caller's symbolic dim; a negative axis counts from the
   * end). */
  int (*ndim)(rxt_te_builder_t* kb, rxt_te_tensor_t t);
  const char* (*dtype)(rxt_te_builder_t* kb, rxt_te_tensor_t t);
  rxt_te_expr_t (*dim)(rxt_te_builder_t* kb, rxt_te_tensor_t t, int axis);
  /* The element of |t| at |index| (|ndim| int64 expressions, one per dim). */
  rxt_te_expr_t (*load)(rxt_te_builder_t* kb, rxt_te_tensor_t t, const rxt_te_expr_t* index, int ndim);

  /* ---- Scalar expressions ---- */

  /* |value| as a constant of |dtype| ("float32", "int64", "bool"...). */
  rxt_te_expr_t (*constant)(rxt_te_builder_t* kb, double value, const char* dtype);
  rxt_te_expr_t (*binary)(rxt_te_builder_t* kb, rxt_te_binary_t op, rxt_te_expr_t a, rxt_te_expr_t b);
  /* An intrinsic function of one float argument: "exp", "log", "sqrt", "rsqrt", "tanh",
   * "sigmoid", "erf", "abs", "neg", "floor", "ceil", "round", "sin", "cos", "tan", "asin",
   * "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh". */
  rxt_te_expr_t (*call)(rxt_te_builder_t* kb, const char* intrinsic, rxt_te_expr_t x);
  /* |cond| (bool) ? |a| : |b|; a backend may evaluate both sides, so neither may load out of
   * bounds. */
  rxt_te_expr_t (*select)(rxt_te_builder_t* kb, rxt_te_expr_t cond, rxt_te_expr_t a, rxt_te_expr_t b);
  rxt_te_expr_t (*cast)(rxt_te_builder_t* kb, const char* dtype, rxt_te_expr_t x);

  /* ---- Stages ---- */

  /* Fills |vars| with |count| fresh int64 index variables, for the axes of one stage (or its
   * reduction). Returns RXT_OK, or RXT_INVALID_ARGUMENT (recorded) for a bad count. */
  rxt_code_t (*axes)(rxt_te_builder_t* kb, int count, rxt_te_expr_t* vars);
  /* A stage named |name| of |ndim| dims of sizes |shape|: element i is |value| with the axes
   * |vars| (from axes()) standing for i. Its dtype is the value's. */
  rxt_te_tensor_t (*compute)(rxt_te_builder_t* kb, const char* name, const rxt_te_expr_t* shape, int ndim,
                             const rxt_te_expr_t* vars, rxt_te_expr_t value);
  /* A reduction stage: element i combines |value| over every k in |extents| (|num_reduce|
   * dims), |vars| standing for i and |reduce_vars| for k; it starts from |init| (NULL: 0 for a
   * sum, the lowest or highest value of the dtype for max and min, 1 for a product). */
  rxt_te_tensor_t (*reduce)(rxt_te_builder_t* kb, const char* name, const rxt_te_expr_t* shape, int ndim,
                            const rxt_te_expr_t* vars, const rxt_te_expr_t* extents, int num_reduce,
                            const rxt_te_expr_t* reduce_vars, rxt_te_reduce_t kind, rxt_te_expr_t value,
                            rxt_te_expr_t init);
  /* Marks a stage as the kernel's next output: one per field of the call's result, in order,
   * each of the struct info the op inferred. Stages that are not outputs stay internal. */
  rxt_code_t (*output)(rxt_te_builder_t* kb, rxt_te_tensor_t stage);

  /* The first error recorded in the builder, or NULL; and recording one of the plugin's own
   * (unless one is recorded already), which returns NULL. */
  const char* (*error)(rxt_te_builder_t* kb);
  rxt_te_expr_t (*fail)(rxt_te_builder_t* kb, const char* message);
} rxt_te_api_t;

#define RXT_TE_API_HAS(api, member) \
  ((api)->struct_size >= offsetof(rxt_te_api_t, member) + sizeof((api)->member))

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RXT_TENSOR_EXPR_H_ */
