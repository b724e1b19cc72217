/* Building functions through the C ABI (rxt_function_builder_*, the IR table of
 * rxt/ir_builder.h): a function built op by op prints as the text that parses to it, and every
 * misuse is an error that names it (a failed op, a foreign result, finishing twice, NULLs). */
#include <stdlib.h>

#include "check.h"
#include "rxt/ir_builder.h"

/* linear(x, w) + b, then relu, and sum over axis 1: two results. */
static rxt_module_t* build_small(void) {
  const rxt_ir_api_t* ir = rxt_ir_api();
  rxt_function_builder_t* fb = NULL;
  CHECK_OK(rxt_function_builder_create(&fb));
  rxt_ir_builder_t* b = rxt_function_builder_ir(fb);
  rxt_ir_expr_t x = ir->param(b, "x", "Tensor((n, 4), float32)");
  rxt_ir_expr_t w = ir->param(b, "fc.weight", "Tensor((3, 4), float32)");
  float bias_data[3] = {1, 2, 3};
  int64_t bias_shape[1] = {3};
  DLTensor bias = {bias_data, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, bias_shape, NULL, 0};
  rxt_ir_expr_t c = NULL;
  CHECK_OK(rxt_function_builder_constant(fb, &bias, &c));
  rxt_ir_expr_t y = ir->op(b, "linear", (rxt_ir_expr_t[]){x, w}, 2, NULL);
  rxt_ir_expr_t z = ir->op(b, "nn.relu", (rxt_ir_expr_t[]){ir->op(b, "add", (rxt_ir_expr_t[]){y, c}, 2, NULL)}, 1, NULL);
  rxt_ir_expr_t s = ir->op(b, "sum", &z, 1, "axis=[1], keepdims=true");
  CHECK(ir->ndim(b, s) == 2);
  CHECK(strcmp(ir->struct_info_text(b, s), "Tensor((n, 1), float32)") == 0);
  rxt_module_t* module = NULL;
  CHECK_OK(rxt_function_builder_finish(fb, "backbone", (rxt_ir_expr_t[]){z, s}, 2, &module));
  rxt_function_builder_free(fb);
  return module;
}

static void test_built_function_round_trips_through_text(void) {
  rxt_module_t* module = build_small();
  CHECK(module != NULL);
  if (module == NULL) return;
  CHECK_OK(rxt_module_verify(module));
  char* text = NULL;
  CHECK_OK(rxt_module_print(module, &text));
  CHECK(text != NULL && strstr(text, "def @backbone(%x: Tensor((n, 4), float32), %\"fc.weight\"") != NULL);
  CHECK(text != NULL && strstr(text, "sum(") != NULL && strstr(text, "const([1, 2, 3], float32)") != NULL);
  rxt_module_t* parsed = NULL;
  CHECK_OK(rxt_module_parse(text, strlen(text), "built.rxt", &parsed));
  char* again = NULL;
  CHECK_OK(rxt_module_print(parsed, &again));
  CHECK(again != NULL && text != NULL && strcmp(text, again) == 0);
  rxt_string_free(text);
  rxt_string_free(again);
  rxt_module_release(parsed);
  rxt_module_release(module);
}

static void test_a_failed_op_is_the_error_finish_returns(void) {
  const rxt_ir_api_t* ir = rxt_ir_api();
  rxt_function_builder_t* fb = NULL;
  CHECK_OK(rxt_function_builder_create(&fb));
  rxt_ir_builder_t* b = rxt_function_builder_ir(fb);
  rxt_ir_expr_t x = ir->param(b, "x", "Tensor((2, 4), float32)");
  rxt_ir_expr_t bad = ir->op(b, "matmul", (rxt_ir_expr_t[]){x, x}, 2, NULL);
  CHECK(bad == NULL);
  CHECK(ir->error(b) != NULL && strstr(ir->error(b), "matmul: contraction dims differ") != NULL);
  CHECK(ir->op(b, "exp", &bad, 1, NULL) == NULL); /* a NULL operand stays an error */
  rxt_module_t* module = NULL;
  CHECK_ERROR(rxt_function_builder_finish(fb, "f", &x, 1, &module), RXT_INVALID_ARGUMENT,
              "matmul: contraction dims differ");
  CHECK(module == NULL);
  CHECK(ir->param(b, "x", "Tensor((2,), float32)") == NULL); /* declared twice */
  rxt_function_builder_free(fb);
}

static void test_misuse_is_refused(void) {
  const rxt_ir_api_t* ir = rxt_ir_api();
  rxt_function_builder_t* fb = NULL;
  rxt_function_builder_t* other = NULL;
  CHECK_OK(rxt_function_builder_create(&fb));
  CHECK_OK(rxt_function_builder_create(&other));
  rxt_ir_expr_t x = ir->param(rxt_function_builder_ir(fb), "x", "Tensor((2,), float32)");
  rxt_ir_expr_t y = ir->param(rxt_function_builder_ir(other), "y", "Tensor((2,), float32)");
  rxt_module_t* module = NULL;
  CHECK_ERROR(rxt_function_builder_finish(fb, "f", &y, 1, &module), RXT_INVALID_ARGUMENT,
              "result 0 is NULL or not an expression of this builder");
  CHECK_ERROR(rxt_function_builder_finish(fb, "f", NULL, 0, &module), RXT_INVALID_ARGUMENT, "no results");
  CHECK_ERROR(rxt_function_builder_finish(fb, NULL, &x, 1, &module), RXT_INVALID_ARGUMENT, "'name' is NULL");
  CHECK_ERROR(rxt_function_builder_constant(fb, NULL, &x), RXT_INVALID_ARGUMENT, "'value' is NULL");
  CHECK_OK(rxt_function_builder_finish(fb, "f", &x, 1, &module));
  CHECK_ERROR(rxt_function_builder_finish(fb, "f", &x, 1, &module), RXT_FAILED_PRECONDITION, "finished already");
  CHECK_ERROR(rxt_function_builder_create(NULL), RXT_INVALID_ARGUMENT, "NULL");
  CHECK(rxt_function_builder_ir(NULL) == NULL);
  rxt_function_builder_free(NULL);
  rxt_module_release(module);
  rxt_function_builder_free(fb);
  rxt_function_builder_free(other);
}

int main(void) {
  RUN(test_built_function_round_trips_through_text);
  RUN(test_a_failed_op_is_the_error_finish_returns);
  RUN(test_misuse_is_refused);
  return check_report();
}
