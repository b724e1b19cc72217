/* ir_builder.h: how plugins build IR (C99). Gradient rules, losses and optimizers are IR
 * generators: the host calls their build function (rxt/plugin.h) with a builder and the C table
 * rxt_ir_api_t, and they emit op calls that become part of the compiled training step (not
 * callbacks run per tensor). Kernel libraries' patterns read their matches and build their
 * replacements (call_extern) through the same table.
 *
 * Expressions are opaque handles (rxt_ir_expr_t) owned by the builder: valid until the plugin's
 * callback returns, never freed by the plugin. Every building function binds what it makes to a
 * new variable of the function being built, with its struct info inferred (shapes may be
 * symbolic), and returns that variable; values that need no variable (constants, shapes, prim
 * values, tuples of such handles, a field of a tuple built with `tuple`) are returned as they
 * are.
 *
 * Errors: a building function that fails (an unknown op, bad attributes, operands whose shapes
 * do not fit) returns NULL and records the error in the builder; every later call with a NULL
 * operand returns NULL too, so a generator may check only at the end. (An expression builder
 * keeps its first error rather than returning a status per call, which would double the length
 * of every rule.) The error leaves the generator as the rxt_status_t its build function returns
 * (rxt/plugin.h): the host reports the builder's first error, with the plugin's, item's and op's
 * names, whether or not the function also returns a status; a failure of the generator's own is
 * a status it returns (host_api->status_create) or an error it records with fail. Reading
 * functions never fail on a valid handle; the attribute and option readers answer RXT_OK,
 * RXT_NOT_FOUND or RXT_INVALID_ARGUMENT (a lookup's answer, not an error to free).
 *
 * Example, the gradient rule of z = multiply(a, b) (plugins/grad_std has the real ones; the
 * rule's vtable, rxt_gradient_rule_t, is in rxt/plugin.h):
 *
 *   rxt_status_t MultiplyGrad(void* state, const rxt_ir_api_t* ir, rxt_ir_builder_t* b,
 *                             rxt_ir_expr_t call, rxt_ir_expr_t z, rxt_ir_expr_t dz,
 *                             rxt_ir_expr_t* grads) {
 *     rxt_ir_expr_t a = ir->arg(b, call, 0), x = ir->arg(b, call, 1);
 *     rxt_ir_expr_t da = ir->op(b, "multiply", (rxt_ir_expr_t[]){dz, x}, 2, NULL);
 *     rxt_ir_expr_t dx = ir->op(b, "multiply", (rxt_ir_expr_t[]){dz, a}, 2, NULL);
 *     grads[0] = ir->op(b, "collapse_sum_to", (rxt_ir_expr_t[]){da, ir->shape_of(b, a)}, 2, NULL);
 *     grads[1] = ir->op(b, "collapse_sum_to", (rxt_ir_expr_t[]){dx, ir->shape_of(b, x)}, 2, NULL);
 *     return NULL;   // a failed building call above is reported from the builder
 *   }
 */
#ifndef RXT_IR_BUILDER_H_
#define RXT_IR_BUILDER_H_

#include <stddef.h>
#include <stdint.h>

#include "rxt/rxt.h" /* rxt_code_t, rxt_status_t */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rxt_ir_builder_s rxt_ir_builder_t;
typedef struct rxt_ir_expr_s* rxt_ir_expr_t;

typedef struct rxt_ir_api_s {
  size_t struct_size; /* sizeof(rxt_ir_api_t); check RXT_IR_API_HAS for members added later */

  /* ---- Reading expressions ---- */

  /* The op an op call calls ("matmul"), or NULL if |call| is not an op call. */
  const char* (*op_name)(rxt_ir_builder_t* b, rxt_ir_expr_t call);
  /* Arguments of an op call (the args of call_kernel/call_extern are its tuple). */
  int (*num_args)(rxt_ir_builder_t* b, rxt_ir_expr_t call);
  rxt_ir_expr_t (*arg)(rxt_ir_builder_t* b, rxt_ir_expr_t call, int index);
  /* Attributes of an op call (complete with defaults). RXT_NOT_FOUND if the op has no such
   * attribute, RXT_INVALID_ARGUMENT if it holds another kind; an optional attribute that is
   * unset reads as RXT_NOT_FOUND. Strings and lists stay valid while the callback runs. */
  rxt_code_t (*attr_int)(rxt_ir_builder_t* b, rxt_ir_expr_t call, const char* name, int64_t* out);
  rxt_code_t (*attr_float)(rxt_ir_builder_t* b, rxt_ir_expr_t call, const char* name, double* out);
  rxt_code_t (*attr_bool)(rxt_ir_builder_t* b, rxt_ir_expr_t call, const char* name, int* out);
  rxt_code_t (*attr_string)(rxt_ir_builder_t* b, rxt_ir_expr_t call, const char* name, const char** out);
  rxt_code_t (*attr_ints)(rxt_ir_builder_t* b, rxt_ir_expr_t call, const char* name, const int64_t** values,
                          int* count);
  /* The attribute in the text format ("[1, 2]", "\"NCHW\"", "float32"), for passing it on
   * unchanged. NULL if absent. */
  const char* (*attr_text)(rxt_ir_builder_t* b, rxt_ir_expr_t call, const char* name);

  /* Struct info. A tensor: ndim (-1 unknown), dtype name ("float32"; "" unknown), and each dim:
   * 1 with *value set if it is a known integer, 0 if symbolic or unknown. A tuple: its size
   * (-1 for anything that is not a tuple). The text form, e.g. "Tensor((n, 10), float32)". */
  int (*is_tensor)(rxt_ir_builder_t* b, rxt_ir_expr_t e);
  int (*ndim)(rxt_ir_builder_t* b, rxt_ir_expr_t e);
  const char* (*dtype)(rxt_ir_builder_t* b, rxt_ir_expr_t e);
  int (*dim)(rxt_ir_builder_t* b, rxt_ir_expr_t e, int axis, int64_t* value);
  int (*tuple_size)(rxt_ir_builder_t* b, rxt_ir_expr_t e);
  const char* (*struct_info_text)(rxt_ir_builder_t* b, rxt_ir_expr_t e);

  /* ---- Building ---- */

  /* Calls op |op_name| on |args| with attributes in the text format's syntax
   * ("axis=[1], keepdims=true"; NULL or "" for the defaults). */
  rxt_ir_expr_t (*op)(rxt_ir_builder_t* b, const char* op_name, const rxt_ir_expr_t* args, int num_args,
                      const char* attrs);
  /* A 0-d tensor constant of |dtype| ("float32", "int64", ...) holding |value|. */
  rxt_ir_expr_t (*scalar)(rxt_ir_builder_t* b, double value, const char* dtype);
  /* A tensor constant: |dtype| and |shape|, its elements from |values| converted to dtype. */
  rxt_ir_expr_t (*constant)(rxt_ir_builder_t* b, const double* values, const int64_t* shape, int ndim,
                            const char* dtype);
  /* The shape of a tensor (its struct info's dims, symbolic ones included) as a shape value,
   * for ops that take a shape (reshape, broadcast_to, collapse_sum_to, zeros, full...). */
  rxt_ir_expr_t (*shape_of)(rxt_ir_builder_t* b, rxt_ir_expr_t tensor);
  /* A shape value of known dims. */
  rxt_ir_expr_t (*shape)(rxt_ir_builder_t* b, const int64_t* dims, int ndim);
  rxt_ir_expr_t (*tuple)(rxt_ir_builder_t* b, const rxt_ir_expr_t* fields, int num_fields);
  rxt_ir_expr_t (*get_item)(rxt_ir_builder_t* b, rxt_ir_expr_t tuple, int index);

  /* ---- Functions (losses and optimizers build whole functions) ---- */

  /* Adds a parameter named |name| with struct info |struct_info| in the text format
   * ("Tensor((n,), int64)") to the function being built; returns it. Only where the callback's
   * documentation allows it (a loss declares its targets this way), and in a function built
   * through the C ABI (rxt_function_builder_create, rxt.h: every parameter of it). */
  rxt_ir_expr_t (*param)(rxt_ir_builder_t* b, const char* name, const char* struct_info);
  /* Declares one tensor of optimizer state (optimizers only): named |name| (unique, e.g.
   * "lr", "adam_m.3"), of struct info |struct_info|, every element |init| at the start of
   * training. Returns its current value; give its next value with set_state. */
  rxt_ir_expr_t (*state)(rxt_ir_builder_t* b, const char* name, const char* struct_info, double init);
  /* The value a state takes after this step (optimizers only); a state never set keeps its value. */
  rxt_code_t (*set_state)(rxt_ir_builder_t* b, rxt_ir_expr_t state, rxt_ir_expr_t next);

  /* The first error recorded in the builder, or NULL. */
  const char* (*error)(rxt_ir_builder_t* b);
  /* Records an error of the generator's own (e.g. an option out of range) unless one is recorded
   * already; returns NULL. */
  rxt_ir_expr_t (*fail)(rxt_ir_builder_t* b, const char* message);

  /* ---- Added after the first draft of version 2: check RXT_IR_API_HAS ---- */

  /* Dim |axis| of a tensor as the text format writes it ("64", "n", "n * 2"), for struct infos
   * handed to param() and state(); NULL if unknown. */
  const char* (*dim_text)(rxt_ir_builder_t* b, rxt_ir_expr_t e, int axis);
  /* A scalar value (Prim) of |dtype| ("int64", "float32", "bool"), for op inputs of type Prim
   * (one_hot's on_value, full's fill_value...). */
  rxt_ir_expr_t (*prim)(rxt_ir_builder_t* b, double value, const char* dtype);

  /* Options of losses and optimizers: |options| is the text the callback received ("lr=0.001,
   * betas=[0.9, 0.999], nesterov=true"). Each reader returns RXT_OK and sets its outputs,
   * RXT_NOT_FOUND if the option is absent, or RXT_INVALID_ARGUMENT after recording an error in
   * the builder (naming the option) if it holds another kind or |options| does not parse. An
   * int reads as a float; a single number as a list of one. Lists and strings stay valid
   * while the callback runs. */
  rxt_code_t (*option_int)(rxt_ir_builder_t* b, const char* options, const char* name, int64_t* out);
  rxt_code_t (*option_float)(rxt_ir_builder_t* b, const char* options, const char* name, double* out);
  rxt_code_t (*option_bool)(rxt_ir_builder_t* b, const char* options, const char* name, int* out);
  rxt_code_t (*option_string)(rxt_ir_builder_t* b, const char* options, const char* name, const char** out);
  rxt_code_t (*option_floats)(rxt_ir_builder_t* b, const char* options, const char* name, const double** values,
                              int* count);
  /* RXT_OK if every option named in |options| is one of the |num_known| names in |known|;
   * else RXT_INVALID_ARGUMENT after recording an error naming the unknown option and the known
   * ones (or the parse error). Call it first: misspelled options are then never ignored. */
  rxt_code_t (*check_options)(rxt_ir_builder_t* b, const char* options, const char* const* known, int num_known);

  /* ---- Op plugins (rxt_op_t, rxt/plugin.h): check RXT_IR_API_HAS ---- */

  /* The result of the call being inferred (rxt_op_t.infer_struct_info only), in the text format
   * ("Tensor((n, 10), float32)"); its symbolic dims are the arguments' of the same name. Often
   * struct_info_text of an argument. RXT_OK, or RXT_INVALID_ARGUMENT after recording the error
   * (it does not parse, it is not a tensor or tuple of tensors, or this is no inference). */
  rxt_code_t (*set_struct_info)(rxt_ir_builder_t* b, const char* struct_info);

  /* ---- Added with kernel libraries (plugin ABI 3): check RXT_IR_API_HAS ---- */

  /* call_extern("name", (args...)): a call of the external function |name| (registered by a
   * plugin, rxt_extern_t) in destination-passing style, whose |num_outs| results have the struct
   * info of the tensors |outs_like| (several: a tuple of them), bound to a new variable. What a
   * kernel library's pattern builds (rxt_library_pattern_t). */
  rxt_ir_expr_t (*call_extern)(rxt_ir_builder_t* b, const char* name, const rxt_ir_expr_t* args, int num_args,
                               const rxt_ir_expr_t* outs_like, int num_outs);
  /* 1 and the value in |*value| if |e| is a constant of one element (of any shape) and a
   * numeric dtype; else 0. */
  int (*constant_value)(rxt_ir_builder_t* b, rxt_ir_expr_t e, double* value);

  /* ---- Added with exporters (rxt_exporter_t, plugin ABI 3): check RXT_IR_API_HAS ---- */

  /* What |e| is: an rxt_ir_expr_kind_t (RXT_IR_OTHER for NULL or a foreign handle). */
  int (*expr_kind)(rxt_ir_builder_t* b, rxt_ir_expr_t e);
  /* A variable's name, without the % ("lv3"); NULL for anything else. */
  const char* (*var_name)(rxt_ir_builder_t* b, rxt_ir_expr_t e);
  /* A constant's data: fills |*out| (CPU, compact; data, shape and dtype the host's, valid
   * while the callback runs). RXT_NOT_FOUND if |e| is not a constant. */
  rxt_code_t (*constant_tensor)(rxt_ir_builder_t* b, rxt_ir_expr_t e, DLTensor* out);
  /* A tuple expression's fields (RXT_IR_TUPLE): their number (-1 for anything else) and each. */
  int (*num_fields)(rxt_ir_builder_t* b, rxt_ir_expr_t e);
  rxt_ir_expr_t (*field)(rxt_ir_builder_t* b, rxt_ir_expr_t e, int index);
  /* A tuple's field (RXT_IR_TUPLE_ITEM, "t[1]"): the tuple, with the index in |*index|. */
  rxt_ir_expr_t (*item_of)(rxt_ir_builder_t* b, rxt_ir_expr_t e, int* index);
  /* A shape value (RXT_IR_SHAPE, or a variable of shape struct info with known dims): its
   * number of dims (-1 for anything else) and each dim as dim and dim_text read a tensor's. */
  int (*shape_ndim)(rxt_ir_builder_t* b, rxt_ir_expr_t e);
  int (*shape_dim)(rxt_ir_builder_t* b, rxt_ir_expr_t e, int axis, int64_t* value);
  const char* (*shape_dim_text)(rxt_ir_builder_t* b, rxt_ir_expr_t e, int axis);
  /* A prim value (RXT_IR_PRIM_VALUE, "prim(1.5)"): 1 and its value if it is a number, else 0. */
  int (*prim_value)(rxt_ir_builder_t* b, rxt_ir_expr_t e, double* value);
} rxt_ir_api_t;

/* What expr_kind answers. */
typedef enum rxt_ir_expr_kind_e {
  RXT_IR_OTHER = 0,      /* anything below does not name (an if, a function...) */
  RXT_IR_VAR = 1,        /* %x */
  RXT_IR_CONSTANT = 2,   /* tensor data */
  RXT_IR_TUPLE = 3,      /* (a, b) */
  RXT_IR_TUPLE_ITEM = 4, /* t[0] */
  RXT_IR_OP_CALL = 5,    /* op(args; attrs) */
  RXT_IR_CALL = 6,       /* any other call: a function of the module, call_kernel, call_extern */
  RXT_IR_SHAPE = 7,      /* shape(1, n) */
  RXT_IR_PRIM_VALUE = 8, /* prim(n) */
  RXT_IR_STRING = 9      /* "text" */
} rxt_ir_expr_kind_t;

#define RXT_IR_API_HAS(api, member) \
  ((api)->struct_size >= offsetof(rxt_ir_api_t, member) + sizeof((api)->member))

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RXT_IR_BUILDER_H_ */
