/* The training transforms one call each (rxt_module_append_loss, _gradient, _add_optimizer,
 * _setup_trainer, _bind_params) on the linear backbone: what each adds, and each misuse an
 * error naming it. (tests/abi/low_level runs them end to end against the C++ API.) */
#include "check.h"
#include "linear_backbone.h"

static rxt_module_t* parse(const char* text) {
  rxt_module_t* module = NULL;
  CHECK_OK(rxt_module_parse(text, strlen(text), "linear.rxt", &module));
  return module;
}

/* Whether the module's text contains |needle|. */
static int prints(const rxt_module_t* module, const char* needle) {
  char* text = NULL;
  int found;
  if (module == NULL || rxt_module_print(module, &text) != NULL) return 0;
  found = strstr(text, needle) != NULL;
  rxt_string_free(text);
  return found;
}

static void test_append_loss_gradient_and_optimizer(void) {
  static const char* const params[2] = {"w", "b"};
  rxt_module_t *backbone = parse(kLinearBackbone), *with_loss = NULL, *with_grad = NULL, *full = NULL;
  DLManagedTensor* states[8] = {NULL};
  size_t num_states = 0, i;
  CHECK_OK(rxt_module_append_loss(backbone, "backbone", "mse", NULL, 1, "objective", NULL, &with_loss));
  CHECK(prints(with_loss, "def @objective(%x: Tensor((4, 3), float32), %w:"));
  CHECK_OK(rxt_module_gradient(with_loss, "objective", params, 2, 0, NULL, &with_grad));
  CHECK(prints(with_grad, "def @objective_adjoint("));
  CHECK_OK(rxt_module_add_optimizer(with_grad, "adam", "lr=0.01", "objective", params, 2, "Adam", NULL, &full, states,
                                    8, &num_states));
  CHECK(prints(full, "def @Adam("));
  /* Adam's state (the seed's opt.state): its counters and rates, then two moments per parameter,
   * each moment shaped like its parameter and zero. */
  CHECK(num_states == 7);
  CHECK(states[num_states - 1] != NULL && states[num_states - 1]->dl_tensor.ndim == 1 &&
        states[num_states - 1]->dl_tensor.shape[0] == 2 && ((float*)states[num_states - 1]->dl_tensor.data)[1] == 0);
  for (i = 0; i < num_states; ++i) {
    CHECK(states[i] != NULL);
    if (states[i] != NULL) states[i]->deleter(states[i]);
  }
  rxt_module_release(full);
  rxt_module_release(with_grad);
  rxt_module_release(with_loss);
  rxt_module_release(backbone);
}

static void test_misuses_are_errors(void) {
  static const char* const params[2] = {"w", "b"};
  static const char* const unknown[1] = {"bias"};
  rxt_module_t *backbone = parse(kLinearBackbone), *out = NULL;
  DLManagedTensor* states[1] = {NULL};
  size_t num_states = 0;
  CHECK_ERROR(rxt_module_append_loss(backbone, "backbone", "mse9", NULL, 1, NULL, NULL, &out), RXT_NOT_FOUND,
              "no loss named 'mse9'");
  CHECK_ERROR(rxt_module_append_loss(backbone, "main", "mse", NULL, 1, NULL, NULL, &out), RXT_NOT_FOUND,
              "no function @main");
  CHECK_ERROR(rxt_module_gradient(backbone, "backbone", unknown, 1, 0, NULL, &out), RXT_NOT_FOUND,
              "@backbone has no parameter named 'bias'");
  CHECK_ERROR(rxt_module_gradient(backbone, "backbone", params, 2, 0, NULL, &out), RXT_INVALID_ARGUMENT,
              "Gradient:"); /* the result is not a scalar loss */
  CHECK_ERROR(rxt_module_add_optimizer(backbone, "adam", NULL, "backbone", params, 2, "Adam", NULL, &out, states, 1,
                                       &num_states),
              RXT_OUT_OF_RANGE, "more than the 1 outputs given");
  CHECK(num_states == 7 && states[0] == NULL);
  CHECK_ERROR(rxt_module_add_optimizer(backbone, "sgd9", NULL, "backbone", params, 2, "S", NULL, &out, NULL, 0,
                                       &num_states),
              RXT_NOT_FOUND, "no optimizer named 'sgd9'");
  CHECK_ERROR(rxt_module_add_optimizer(backbone, "sgd", NULL, "backbone", params, 0, "S", NULL, &out, NULL, 0,
                                       &num_states),
              RXT_INVALID_ARGUMENT, "no parameters to optimize");
  CHECK_ERROR(rxt_module_setup_trainer(backbone, "mse", NULL, "sgd", "lr=-", 1, NULL, &out), RXT_INVALID_ARGUMENT,
              "optimizer 'sgd' (plugin rxt_optim_std): options:1:4: error: expected an attribute value");
  CHECK_ERROR(rxt_module_append_loss(NULL, "backbone", "mse", NULL, 1, NULL, NULL, &out), RXT_INVALID_ARGUMENT,
              "'module' is NULL");
  CHECK(out == NULL);
  rxt_module_release(backbone);
}

static void test_setup_trainer_makes_a_trainer_module(void) {
  rxt_module_t *backbone = parse(kLinearBackbone), *trainer = NULL;
  CHECK_OK(rxt_module_setup_trainer(backbone, "mse", "reduction=\"sum\"", "sgd", "lr=0.1", 1, NULL, &trainer));
  CHECK(prints(trainer, "def @train_step("));
  CHECK(prints(trainer, "def @predict("));
  rxt_module_release(trainer);
  rxt_module_release(backbone);
}

static void test_bind_params_makes_constants(void) {
  static const char* const names[1] = {"b"};
  float b_data[2] = {0.5f, -0.25f};
  float wrong_data[3] = {0, 0, 0};
  int64_t b_shape[1] = {2}, wrong_shape[1] = {3};
  DLManagedTensor b, wrong;
  DLManagedTensor* values[1];
  rxt_module_t *backbone = parse(kLinearBackbone), *bound = NULL;
  memset(&b, 0, sizeof b);
  b.dl_tensor.data = b_data;
  b.dl_tensor.device.device_type = kDLCPU;
  b.dl_tensor.ndim = 1;
  b.dl_tensor.dtype.code = kDLFloat;
  b.dl_tensor.dtype.bits = 32;
  b.dl_tensor.dtype.lanes = 1;
  b.dl_tensor.shape = b_shape;
  wrong = b;
  wrong.dl_tensor.data = wrong_data;
  wrong.dl_tensor.shape = wrong_shape;
  values[0] = &b;
  CHECK_OK(rxt_module_bind_params(backbone, "backbone", names, values, 1, &bound));
  CHECK(prints(bound, "const([0.5, -0.25], float32)"));
  CHECK(!prints(bound, "%b: Tensor((2,), float32)"));
  values[0] = &wrong;
  CHECK_ERROR(rxt_module_bind_params(backbone, "backbone", names, values, 1, &bound), RXT_INVALID_ARGUMENT, "b");
  CHECK_ERROR(rxt_module_bind_params(backbone, "nothing", names, values, 1, &bound), RXT_NOT_FOUND,
              "no function @nothing");
  rxt_module_release(bound);
  rxt_module_release(backbone);
}

int main(void) {
  RUN(test_append_loss_gradient_and_optimizer);
  RUN(test_misuses_are_errors);
  RUN(test_setup_trainer_makes_a_trainer_module);
  RUN(test_bind_params_makes_constants);
  return check_report();
}
