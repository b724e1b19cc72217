/* The Trainer through the C ABI: a linear layer (4 samples, 3 features, 2 outputs) with MSE
 * (sum) and SGD built from its backbone module on the reference backend; tensors by index and
 * by name, predict / update / evaluate against a plain C computation, learning rate and
 * schedule, checkpoint -> resume equality, profile, and every error path. The standard
 * training plugins and the reference backend come from the build's plugin directory. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "linear_backbone.h"


/* ---- Tensors owned by the test (borrowed by the trainer, which copies them) ----------------- */

typedef struct {
  DLManagedTensor managed;
  int64_t shape[2];
  void* data;
} test_tensor_t;

static void tensor_init(test_tensor_t* t, DLDataTypeCode code, int bits, int ndim, int64_t d0, int64_t d1) {
  int64_t count = ndim == 1 ? d0 : d0 * d1;
  memset(t, 0, sizeof(*t));
  t->shape[0] = d0;
  t->shape[1] = d1;
  t->data = calloc((size_t)count, (size_t)bits / 8);
  t->managed.dl_tensor.data = t->data;
  t->managed.dl_tensor.device.device_type = kDLCPU;
  t->managed.dl_tensor.ndim = ndim;
  t->managed.dl_tensor.dtype.code = (uint8_t)code;
  t->managed.dl_tensor.dtype.bits = (uint8_t)bits;
  t->managed.dl_tensor.dtype.lanes = 1;
  t->managed.dl_tensor.shape = t->shape;
}

/* A float32 tensor whose element i is start + i * step. */
static void tensor_ramp(test_tensor_t* t, int ndim, int64_t d0, int64_t d1, float start, float step) {
  int64_t i, count = ndim == 1 ? d0 : d0 * d1;
  tensor_init(t, kDLFloat, 32, ndim, d0, d1);
  for (i = 0; i < count; ++i) ((float*)t->data)[i] = start + (float)i * step;
}

static void tensor_free(test_tensor_t* t) { free(t->data); }

static size_t tensor_bytes(const DLManagedTensor* t) {
  size_t bytes = (size_t)t->dl_tensor.dtype.bits / 8;
  int d;
  for (d = 0; d < t->dl_tensor.ndim; ++d) bytes *= (size_t)t->dl_tensor.shape[d];
  return bytes;
}

static float at(DLManagedTensor* t, int64_t i) { return ((const float*)t->dl_tensor.data)[i]; }

/* ---- The plain C computation ----------------------------------------------------------------- */

/* out = x w + b for x (4, 3), w (3, 2), b (2). */
static void linear(const float* x, const float* w, const float* b, double* out) {
  int i, j, k;
  for (i = 0; i < 4; ++i) {
    for (j = 0; j < 2; ++j) {
      double acc = b[j];
      for (k = 0; k < 3; ++k) acc += (double)x[i * 3 + k] * w[k * 2 + j];
      out[i * 2 + j] = acc;
    }
  }
}

/* ---- Fixture --------------------------------------------------------------------------------- */

static rxt_trainer_t* make_trainer(const char* optimizer, const char* optimizer_options) {
  rxt_module_t* module = NULL;
  rxt_trainer_t* trainer = NULL;
  rxt_trainer_options_t options;
  CHECK_OK(rxt_module_parse(kLinearBackbone, sizeof(kLinearBackbone) - 1, "linear.rxt", &module));
  rxt_trainer_options_init(&options);
  options.backend = "reference";
  options.loss = "mse";
  options.loss_options = "reduction=\"sum\"";
  options.optimizer = optimizer;
  options.optimizer_options = optimizer_options;
  CHECK_OK(rxt_trainer_create(module, &options, &trainer));
  rxt_module_release(module);
  return trainer;
}

static DLManagedTensor* get(rxt_trainer_t* trainer, rxt_trainer_tensors_t kind, size_t index) {
  DLManagedTensor* t = NULL;
  CHECK_OK(rxt_trainer_get(trainer, kind, index, &t));
  return t;
}

static void drop(DLManagedTensor* t) {
  if (t != NULL) t->deleter(t);
}

/* ---- Tests ----------------------------------------------------------------------------------- */

static void test_layout_and_names(void) {
  rxt_trainer_t* trainer = make_trainer("sgd", "lr=0.05");
  size_t count = 0, index = 99;
  char* name = NULL;
  CHECK(trainer != NULL);
  if (trainer == NULL) return;
  CHECK_OK(rxt_trainer_count(trainer, RXT_TRAINER_INPUTS, &count));
  CHECK(count == 1);
  CHECK_OK(rxt_trainer_count(trainer, RXT_TRAINER_TARGETS, &count));
  CHECK(count == 1);
  CHECK_OK(rxt_trainer_count(trainer, RXT_TRAINER_PARAMS, &count));
  CHECK(count == 2);
  CHECK_OK(rxt_trainer_count(trainer, RXT_TRAINER_STATES, &count));
  CHECK(count == 0);
  CHECK_OK(rxt_trainer_count(trainer, RXT_TRAINER_OPTIMIZER_STATE, &count));
  CHECK(count >= 3);
  CHECK_OK(rxt_trainer_num_outputs(trainer, &count));
  CHECK(count == 1);
  CHECK_OK(rxt_trainer_name(trainer, RXT_TRAINER_PARAMS, 0, &name));
  CHECK(name != NULL && strcmp(name, "w") == 0);
  rxt_string_free(name);
  CHECK_OK(rxt_trainer_name(trainer, RXT_TRAINER_INPUTS, 0, &name));
  CHECK(name != NULL && strcmp(name, "x") == 0);
  rxt_string_free(name);
  CHECK_OK(rxt_trainer_find(trainer, RXT_TRAINER_PARAMS, "b", &index));
  CHECK(index == 1);
  CHECK_OK(rxt_trainer_find(trainer, RXT_TRAINER_OPTIMIZER_STATE, "lr", &index));
  CHECK_ERROR(rxt_trainer_find(trainer, RXT_TRAINER_PARAMS, "zz", &index), RXT_NOT_FOUND,
              "no parameter named 'zz' (w, b)");
  CHECK_ERROR(rxt_trainer_name(trainer, RXT_TRAINER_PARAMS, 2, &name), RXT_OUT_OF_RANGE, "index 2");
  CHECK_ERROR(rxt_trainer_count(trainer, (rxt_trainer_tensors_t)9, &count), RXT_INVALID_ARGUMENT, "tensor kind 9");
  rxt_trainer_release(trainer);
}

static void test_params_by_index_and_name(void) {
  rxt_trainer_t* trainer = make_trainer("sgd", "lr=0.05");
  test_tensor_t b;
  DLManagedTensor *w0 = NULL, *w1 = NULL, *got_b = NULL;
  if (trainer == NULL) return;
  w0 = get(trainer, RXT_TRAINER_PARAMS, 0);
  CHECK(w0 != NULL && w0->dl_tensor.ndim == 2 && w0->dl_tensor.shape[0] == 3 && w0->dl_tensor.shape[1] == 2);
  CHECK(w0 != NULL && at(w0, 0) == 0.0f);  /* zero before initialization */
  CHECK_OK(rxt_trainer_init_xavier_uniform(trainer, 7));
  w1 = get(trainer, RXT_TRAINER_PARAMS, 0);
  CHECK(w1 != NULL && at(w1, 0) != 0.0f && fabsf(at(w1, 0)) <= sqrtf(6.0f / 5.0f));
  /* A snapshot: it did not change with the initialization. */
  CHECK(w0 != NULL && at(w0, 0) == 0.0f);

  tensor_ramp(&b, 1, 2, 0, 0.5f, 1.0f);
  CHECK_OK(rxt_trainer_set_by_name(trainer, RXT_TRAINER_PARAMS, "b", &b.managed));
  CHECK_OK(rxt_trainer_get_by_name(trainer, RXT_TRAINER_PARAMS, "b", &got_b));
  CHECK(got_b != NULL && at(got_b, 0) == 0.5f && at(got_b, 1) == 1.5f);
  ((float*)b.data)[0] = 9;  /* copied in: the trainer does not see this */
  drop(got_b);
  CHECK_OK(rxt_trainer_get(trainer, RXT_TRAINER_PARAMS, 1, &got_b));
  CHECK(got_b != NULL && at(got_b, 0) == 0.5f);

  CHECK_OK(rxt_trainer_init_zero(trainer, RXT_TRAINER_PARAMS));
  drop(got_b);
  got_b = get(trainer, RXT_TRAINER_PARAMS, 1);
  CHECK(got_b != NULL && at(got_b, 0) == 0.0f);
  drop(w0);
  drop(w1);
  drop(got_b);
  tensor_free(&b);
  rxt_trainer_release(trainer);
}

static void test_predict_update_evaluate(void) {
  rxt_trainer_t* trainer = make_trainer("sgd", "lr=0.05");
  test_tensor_t x, y;
  DLManagedTensor *w = NULL, *b = NULL, *w_after = NULL, *out = NULL;
  DLManagedTensor* inputs[1];
  DLManagedTensor* targets[1];
  double prediction[8], loss = 0, got = 0, evaluated = 0, dout[8], dw[6] = {0};
  size_t num_outputs = 0;
  int i, j, k;
  int64_t step = -1;
  if (trainer == NULL) return;
  tensor_ramp(&x, 2, 4, 3, -0.5f, 0.1f);
  tensor_ramp(&y, 2, 4, 2, 0.3f, -0.07f);
  inputs[0] = &x.managed;
  targets[0] = &y.managed;
  CHECK_OK(rxt_trainer_init_xavier_uniform(trainer, 3));
  w = get(trainer, RXT_TRAINER_PARAMS, 0);
  b = get(trainer, RXT_TRAINER_PARAMS, 1);
  if (w == NULL || b == NULL) return;
  linear((const float*)x.data, (const float*)w->dl_tensor.data, (const float*)b->dl_tensor.data, prediction);

  CHECK_OK(rxt_trainer_predict(trainer, inputs, 1, &out, 1, &num_outputs));
  CHECK(num_outputs == 1);
  for (i = 0; out != NULL && i < 8; ++i) CHECK(fabs(at(out, i) - prediction[i]) < 1e-5);
  drop(out);

  for (i = 0; i < 8; ++i) {
    double e = prediction[i] - ((const float*)y.data)[i];
    loss += e * e;
    dout[i] = 2 * e;
  }
  for (i = 0; i < 4; ++i)
    for (j = 0; j < 2; ++j)
      for (k = 0; k < 3; ++k) dw[k * 2 + j] += ((const float*)x.data)[i * 3 + k] * dout[i * 2 + j];

  CHECK_OK(rxt_trainer_evaluate(trainer, inputs, 1, targets, 1, &evaluated));
  CHECK(fabs(evaluated - loss) < 1e-4);
  CHECK_OK(rxt_trainer_update(trainer, inputs, 1, targets, 1, &got));
  CHECK(fabs(got - loss) < 1e-4);
  CHECK_OK(rxt_trainer_step(trainer, &step));
  CHECK(step == 1);
  w_after = get(trainer, RXT_TRAINER_PARAMS, 0);
  for (i = 0; w_after != NULL && i < 6; ++i) CHECK(fabs(at(w_after, i) - (at(w, i) - 0.05 * dw[i])) < 1e-5);
  CHECK_OK(rxt_trainer_update(trainer, inputs, 1, targets, 1, NULL));  /* the loss is optional */
  drop(w);
  drop(b);
  drop(w_after);
  tensor_free(&x);
  tensor_free(&y);
  rxt_trainer_release(trainer);
}

static void test_learning_rate_and_schedule(void) {
  rxt_trainer_t* trainer = make_trainer("sgd", "lr=0.05");
  test_tensor_t x, y;
  DLManagedTensor *before = NULL, *after = NULL;
  DLManagedTensor* inputs[1];
  DLManagedTensor* targets[1];
  double lr = 0;
  if (trainer == NULL) return;
  tensor_ramp(&x, 2, 4, 3, -0.5f, 0.1f);
  tensor_ramp(&y, 2, 4, 2, 0.3f, -0.07f);
  inputs[0] = &x.managed;
  targets[0] = &y.managed;
  CHECK_OK(rxt_trainer_init_xavier_uniform(trainer, 2));
  CHECK_OK(rxt_trainer_learning_rate(trainer, &lr));
  CHECK(fabs(lr - 0.05) < 1e-7);
  CHECK_OK(rxt_trainer_set_learning_rate(trainer, 0));
  before = get(trainer, RXT_TRAINER_PARAMS, 0);
  CHECK_OK(rxt_trainer_update(trainer, inputs, 1, targets, 1, NULL));
  after = get(trainer, RXT_TRAINER_PARAMS, 0);
  CHECK(before != NULL && after != NULL && memcmp(before->dl_tensor.data, after->dl_tensor.data, 24) == 0);
  CHECK_OK(rxt_trainer_set_schedule(trainer, "warmup:steps=4", 0.2));
  CHECK_OK(rxt_trainer_update(trainer, inputs, 1, targets, 1, NULL));
  CHECK_OK(rxt_trainer_learning_rate(trainer, &lr));
  CHECK(fabs(lr - 0.1) < 1e-7);  /* the second update since initialization: 0.2 * 2 / 4 */
  CHECK_ERROR(rxt_trainer_set_schedule(trainer, "sawtooth", 0.1), RXT_INVALID_ARGUMENT, "unknown schedule 'sawtooth'");
  CHECK_ERROR(rxt_trainer_set_schedule(trainer, "cosine", 0.1), RXT_INVALID_ARGUMENT, "total_steps");
  CHECK_ERROR(rxt_trainer_set_learning_rate(trainer, -1), RXT_INVALID_ARGUMENT, "learning rate");
  drop(before);
  drop(after);
  tensor_free(&x);
  tensor_free(&y);
  rxt_trainer_release(trainer);
}

static void test_checkpoint_resume_is_bit_identical(void) {
  rxt_trainer_t* first = make_trainer("adam", "lr=0.05");
  rxt_trainer_t* second = make_trainer("adam", "lr=0.05");
  rxt_trainer_t* sgd = make_trainer("sgd", "lr=0.05");
  test_tensor_t x, y;
  DLManagedTensor* inputs[1];
  DLManagedTensor* targets[1];
  DLManagedTensor *a = NULL, *b = NULL;
  double losses_a[3], losses_b[3];
  int i;
  int64_t step = 0;
  size_t count = 0;
  const char* path = RXT_TEST_TMP_DIR "/trainer_test_checkpoint.safetensors";
  const char* corrupt = RXT_TEST_TMP_DIR "/trainer_test_corrupt.safetensors";
  FILE* file = NULL;
  if (first == NULL || second == NULL || sgd == NULL) return;
  tensor_ramp(&x, 2, 4, 3, -0.5f, 0.1f);
  tensor_ramp(&y, 2, 4, 2, 0.3f, -0.07f);
  inputs[0] = &x.managed;
  targets[0] = &y.managed;
  CHECK_OK(rxt_trainer_init_xavier_uniform(first, 5));
  CHECK_OK(rxt_trainer_update(first, inputs, 1, targets, 1, NULL));
  CHECK_OK(rxt_trainer_update(first, inputs, 1, targets, 1, NULL));
  CHECK_OK(rxt_trainer_save_checkpoint(first, path));
  for (i = 0; i < 3; ++i) CHECK_OK(rxt_trainer_update(first, inputs, 1, targets, 1, &losses_a[i]));

  CHECK_OK(rxt_trainer_load_checkpoint(second, path));
  CHECK_OK(rxt_trainer_step(second, &step));
  CHECK(step == 2);
  for (i = 0; i < 3; ++i) CHECK_OK(rxt_trainer_update(second, inputs, 1, targets, 1, &losses_b[i]));
  for (i = 0; i < 3; ++i) CHECK(losses_a[i] == losses_b[i]);
  CHECK_OK(rxt_trainer_count(first, RXT_TRAINER_OPTIMIZER_STATE, &count));
  CHECK(count > 3);
  a = get(first, RXT_TRAINER_PARAMS, 0);
  b = get(second, RXT_TRAINER_PARAMS, 0);
  CHECK(a != NULL && b != NULL && memcmp(a->dl_tensor.data, b->dl_tensor.data, 24) == 0);
  drop(a);
  drop(b);
  for (i = 0; i < (int)count; ++i) {  /* every optimizer state, e.g. Adam's moments */
    a = get(first, RXT_TRAINER_OPTIMIZER_STATE, (size_t)i);
    b = get(second, RXT_TRAINER_OPTIMIZER_STATE, (size_t)i);
    CHECK(a != NULL && b != NULL && tensor_bytes(a) == tensor_bytes(b) &&
          memcmp(a->dl_tensor.data, b->dl_tensor.data, tensor_bytes(a)) == 0);
    drop(a);
    drop(b);
  }

  /* Another optimizer's checkpoint, a missing file and a corrupt one are refused. */
  CHECK_ERROR(rxt_trainer_load_checkpoint(sgd, path), RXT_DATA_LOSS, "another optimizer");
  CHECK_ERROR(rxt_trainer_load_checkpoint(sgd, RXT_TEST_TMP_DIR "/no_such_checkpoint.safetensors"), RXT_NOT_FOUND,
              "no_such_checkpoint");
  file = fopen(corrupt, "wb");
  if (file != NULL) {
    fputs("not a checkpoint", file);
    fclose(file);
  }
  CHECK_ERROR(rxt_trainer_load_checkpoint(sgd, corrupt), RXT_DATA_LOSS, "trainer_test_corrupt.safetensors");
  remove(path);
  remove(corrupt);
  tensor_free(&x);
  tensor_free(&y);
  rxt_trainer_release(first);
  rxt_trainer_release(second);
  rxt_trainer_release(sgd);
}

/* A trainer file (rxt_trainer_save / rxt_trainer_load) goes on bit for bit: on the cpu backend
 * with its kernels compiled into the file, and on the reference backend without (compiled where it
 * is loaded). A missing file and one that is not a trainer file are refused, naming them. */
static void test_trainer_file_goes_on_bit_for_bit(void) {
  const char* backends[2] = {"cpu", "reference"};
  const char* path = RXT_TEST_TMP_DIR "/trainer_test.rxtt";
  const char* corrupt = RXT_TEST_TMP_DIR "/trainer_test_corrupt.rxtt";
  test_tensor_t x, y;
  DLManagedTensor* inputs[1];
  DLManagedTensor* targets[1];
  rxt_trainer_t* loaded = NULL;
  FILE* file = NULL;
  int b, i;
  tensor_ramp(&x, 2, 4, 3, -0.5f, 0.1f);
  tensor_ramp(&y, 2, 4, 2, 0.3f, -0.07f);
  inputs[0] = &x.managed;
  targets[0] = &y.managed;
  for (b = 0; b < 2; ++b) {
    rxt_module_t* module = NULL;
    rxt_trainer_t* trainer = NULL;
    rxt_trainer_options_t options;
    int64_t step = 0;
    CHECK_OK(rxt_module_parse(kLinearBackbone, sizeof(kLinearBackbone) - 1, "linear.rxt", &module));
    rxt_trainer_options_init(&options);
    options.backend = backends[b];
    options.loss = "mse";
    options.optimizer = "adam";
    options.optimizer_options = "lr=0.05";
    CHECK_OK(rxt_trainer_create(module, &options, &trainer));
    rxt_module_release(module);
    if (trainer == NULL) continue;
    CHECK_OK(rxt_trainer_init_xavier_uniform(trainer, 3));
    CHECK_OK(rxt_trainer_update(trainer, inputs, 1, targets, 1, NULL));
    CHECK_OK(rxt_trainer_save(trainer, path));
    CHECK_OK(rxt_trainer_load(path, NULL, &loaded));
    if (loaded != NULL) {
      CHECK_OK(rxt_trainer_step(loaded, &step));
      CHECK(step == 1);
      for (i = 0; i < 3; ++i) {
        double a = 0, c = 0;
        CHECK_OK(rxt_trainer_update(trainer, inputs, 1, targets, 1, &a));
        CHECK_OK(rxt_trainer_update(loaded, inputs, 1, targets, 1, &c));
        CHECK(memcmp(&a, &c, sizeof a) == 0);
      }
      rxt_trainer_release(loaded);
      loaded = NULL;
    }
    rxt_trainer_release(trainer);
  }
  CHECK_ERROR(rxt_trainer_load(RXT_TEST_TMP_DIR "/no_such_trainer.rxtt", NULL, &loaded), RXT_NOT_FOUND,
              "no_such_trainer.rxtt");
  file = fopen(corrupt, "wb");
  if (file != NULL) {
    fputs("not a trainer file", file);
    fclose(file);
  }
  CHECK_ERROR(rxt_trainer_load(corrupt, NULL, &loaded), RXT_DATA_LOSS, "not an rxt trainer file");
  CHECK(loaded == NULL);
  CHECK_ERROR(rxt_trainer_load(NULL, NULL, &loaded), RXT_INVALID_ARGUMENT, "path");
  remove(path);
  remove(corrupt);
  tensor_free(&x);
  tensor_free(&y);
}

static void test_profile(void) {
  rxt_trainer_t* trainer = make_trainer("sgd", "lr=0.05");
  test_tensor_t x, y;
  DLManagedTensor* inputs[1];
  DLManagedTensor* targets[1];
  char* text = NULL;
  int64_t step = -1;
  if (trainer == NULL) return;
  tensor_ramp(&x, 2, 4, 3, -0.5f, 0.1f);
  tensor_ramp(&y, 2, 4, 2, 0.3f, -0.07f);
  inputs[0] = &x.managed;
  targets[0] = &y.managed;
  CHECK_OK(rxt_trainer_profile_step(trainer, inputs, 1, targets, 1, &text));
  CHECK(text != NULL && strstr(text, "kernel") != NULL);
  rxt_string_free(text);
  CHECK_OK(rxt_trainer_step(trainer, &step));
  CHECK(step == 0);  /* profiling changes nothing */
  tensor_free(&x);
  tensor_free(&y);
  rxt_trainer_release(trainer);
}

static void test_errors(void) {
  rxt_trainer_t* trainer = make_trainer("sgd", "lr=0.05");
  rxt_trainer_t* none = NULL;
  rxt_module_t* module = NULL;
  rxt_trainer_options_t options;
  test_tensor_t x, y, x64, wrong_w;
  DLManagedTensor* inputs[2];
  DLManagedTensor* targets[1];
  DLManagedTensor* out = NULL;
  size_t count = 0;
  double loss = 0;
  int64_t step = -1;
  if (trainer == NULL) return;
  tensor_ramp(&x, 2, 4, 3, -0.5f, 0.1f);
  tensor_ramp(&y, 2, 4, 2, 0.3f, -0.07f);
  tensor_init(&x64, kDLFloat, 64, 2, 4, 3);
  tensor_ramp(&wrong_w, 2, 2, 3, 0, 1);
  inputs[0] = &x64.managed;
  inputs[1] = &x.managed;
  targets[0] = &y.managed;

  CHECK_ERROR(rxt_trainer_update(trainer, inputs, 1, targets, 1, &loss), RXT_INVALID_ARGUMENT,
              "train_step: argument 0 (%x)");
  CHECK_ERROR(rxt_trainer_update(trainer, inputs, 2, targets, 1, &loss), RXT_INVALID_ARGUMENT,
              "train_step: expected 1 input (x) and 1 target (targets), got 2 inputs and 1 target");
  CHECK_ERROR(rxt_trainer_update(trainer, NULL, 1, targets, 1, &loss), RXT_INVALID_ARGUMENT, "'inputs' is NULL");
  inputs[0] = NULL;
  CHECK_ERROR(rxt_trainer_evaluate(trainer, inputs, 1, targets, 1, &loss), RXT_INVALID_ARGUMENT, "inputs 0 is NULL");
  inputs[0] = &x.managed;
  CHECK_ERROR(rxt_trainer_predict(trainer, inputs, 1, &out, 0, &count), RXT_OUT_OF_RANGE, "more than the 0 outputs");
  CHECK(count == 1);
  CHECK_ERROR(rxt_trainer_predict(trainer, targets, 1, &out, 1, &count), RXT_INVALID_ARGUMENT,
              "predict: argument 0 (%x)");
  CHECK_ERROR(rxt_trainer_set(trainer, RXT_TRAINER_PARAMS, 0, &wrong_w.managed), RXT_INVALID_ARGUMENT,
              "parameter 'w': expected Tensor((3, 2), float32), got float32 (2, 3)");
  CHECK_ERROR(rxt_trainer_set(trainer, RXT_TRAINER_PARAMS, 5, &wrong_w.managed), RXT_OUT_OF_RANGE, "index 5");
  CHECK_ERROR(rxt_trainer_set(trainer, RXT_TRAINER_OPTIMIZER_STATE, 0, &x.managed), RXT_INVALID_ARGUMENT,
              "only parameters and states");
  CHECK_ERROR(rxt_trainer_get(trainer, RXT_TRAINER_INPUTS, 0, &out), RXT_INVALID_ARGUMENT, "arguments");
  CHECK_ERROR(rxt_trainer_set_by_name(trainer, RXT_TRAINER_PARAMS, "v", &x.managed), RXT_NOT_FOUND, "'v'");
  CHECK_ERROR(rxt_trainer_init_zero(trainer, RXT_TRAINER_INPUTS), RXT_INVALID_ARGUMENT, "kind must be");
  CHECK_ERROR(rxt_trainer_update(NULL, inputs, 1, targets, 1, &loss), RXT_INVALID_ARGUMENT, "'trainer' is NULL");
  CHECK_OK(rxt_trainer_step(trainer, &step));
  CHECK(step == 0);  /* nothing ran */

  CHECK_OK(rxt_module_parse(kLinearBackbone, sizeof(kLinearBackbone) - 1, "linear.rxt", &module));
  CHECK_ERROR(rxt_trainer_create(module, NULL, &none), RXT_INVALID_ARGUMENT,
              "a backbone module needs options->loss and options->optimizer");
  rxt_trainer_options_init(&options);
  CHECK(options.struct_size == sizeof(options) && options.opt_level == 2);
  options.loss = "mse";
  options.optimizer = "lion9";
  CHECK_ERROR(rxt_trainer_create(module, &options, &none), RXT_NOT_FOUND, "lion9");
  options.optimizer = "sgd";
  options.backend = "tpu";
  CHECK_ERROR(rxt_trainer_create(module, &options, &none), RXT_NOT_FOUND, "tpu");
  options.backend = "reference";
  options.optimizer_options = "lr=";
  CHECK_ERROR(rxt_trainer_create(module, &options, &none), RXT_INVALID_ARGUMENT, "");
  CHECK(none == NULL);
  rxt_module_release(module);
  rxt_trainer_release(NULL);  /* NULL is a no-op */
  CHECK(rxt_trainer_retain(NULL) == NULL);

  tensor_free(&x);
  tensor_free(&y);
  tensor_free(&x64);
  tensor_free(&wrong_w);
  rxt_trainer_release(trainer);
}

/* Option structs of other sizes (docs/abi.md, "Option structs and growth"): a newer caller's
 * larger struct is refused only when it sets a field this library does not know; an older
 * caller's smaller one gets the defaults for what it lacks. */
typedef struct {
  rxt_trainer_options_t known;
  int64_t unknown_zero; /* fields of a newer rxt.h */
  int64_t unknown_set;
} newer_trainer_options_t;

static void test_options_struct_size(void) {
  newer_trainer_options_t newer;
  rxt_module_t* module = NULL;
  rxt_trainer_t* trainer = NULL;
  double lr = 0;
  char expected[64];
  CHECK_OK(rxt_module_parse(kLinearBackbone, sizeof(kLinearBackbone) - 1, "linear.rxt", &module));
  if (module == NULL) return;
  memset(&newer, 0, sizeof(newer));
  rxt_trainer_options_init(&newer.known);
  newer.known.backend = "reference";
  newer.known.loss = "mse";
  newer.known.optimizer = "sgd";
  newer.known.optimizer_options = "lr=0.25";
  newer.known.struct_size = sizeof(newer);

  /* Unknown fields all zero (their defaults): accepted, and the known fields are read. */
  CHECK_OK(rxt_trainer_create(module, &newer.known, &trainer));
  if (trainer != NULL) {
    CHECK_OK(rxt_trainer_learning_rate(trainer, &lr));
    CHECK(lr == 0.25);
  }
  rxt_trainer_release(trainer);
  trainer = NULL;

  /* A non-zero unknown field: RXT_UNIMPLEMENTED naming the struct and the first non-zero byte. */
  newer.unknown_set = 1;
  snprintf(expected, sizeof(expected), "byte %u of", (unsigned)offsetof(newer_trainer_options_t, unknown_set));
  CHECK_ERROR(rxt_trainer_create(module, &newer.known, &trainer), RXT_UNIMPLEMENTED, "rxt_trainer_options_t");
  CHECK_ERROR(rxt_trainer_create(module, &newer.known, &trainer), RXT_UNIMPLEMENTED, expected);
  CHECK_ERROR(rxt_trainer_create(module, &newer.known, &trainer), RXT_UNIMPLEMENTED, "rxt_trainer_create: ");
  CHECK(trainer == NULL);

  /* An older caller's struct ending before opt_level: the rest are defaults. */
  newer.known.struct_size = offsetof(rxt_trainer_options_t, opt_level);
  newer.known.opt_level = -1;               /* beyond its size: not read */
  newer.known.libraries = "no such library"; /* nor this */
  CHECK_OK(rxt_trainer_create(module, &newer.known, &trainer));
  rxt_trainer_release(trainer);
  trainer = NULL;

  /* One ending before the optimizer: the optimizer set past its end is not read. */
  newer.known.struct_size = offsetof(rxt_trainer_options_t, optimizer);
  CHECK_ERROR(rxt_trainer_create(module, &newer.known, &trainer), RXT_INVALID_ARGUMENT,
              "needs options->loss and options->optimizer");

  /* Not even struct_size. */
  newer.known.struct_size = 0;
  CHECK_ERROR(rxt_trainer_create(module, &newer.known, &trainer), RXT_INVALID_ARGUMENT,
              "set it to sizeof(rxt_trainer_options_t)");
  CHECK(trainer == NULL);
  rxt_module_release(module);
}

/* rxt_trainer_save_for_target: the baseline x86-64 CPU (a file any x86-64 machine loads) goes on
 * bit for bit; another architecture's file is refused here naming it (a whole run on aarch64:
 * tests/abi/runtime/aarch64_training.py); bad targets are errors that write nothing. */
static void test_trainer_file_for_another_machine(void) {
  const char* path = RXT_TEST_TMP_DIR "/trainer_target_test.rxtt";
  const char* arm = RXT_TEST_TMP_DIR "/trainer_target_test_arm.rxtt";
  const char* unwritten = RXT_TEST_TMP_DIR "/trainer_target_test_unwritten.rxtt";
  test_tensor_t x, y;
  DLManagedTensor* inputs[1];
  DLManagedTensor* targets[1];
  rxt_module_t* module = NULL;
  rxt_trainer_t *trainer = NULL, *loaded = NULL, *reference = NULL;
  rxt_trainer_options_t options;
  FILE* file;
  int i;
  tensor_ramp(&x, 2, 4, 3, -0.5f, 0.1f);
  tensor_ramp(&y, 2, 4, 2, 0.3f, -0.07f);
  inputs[0] = &x.managed;
  targets[0] = &y.managed;
  CHECK_OK(rxt_module_parse(kLinearBackbone, sizeof(kLinearBackbone) - 1, "linear.rxt", &module));
  rxt_trainer_options_init(&options);
  options.backend = "cpu";
  options.libraries = "none";
  options.loss = "mse";
  options.optimizer = "adam";
  options.optimizer_options = "lr=0.05";
  CHECK_OK(rxt_trainer_create(module, &options, &trainer));
  if (trainer != NULL) {
    CHECK_OK(rxt_trainer_init_xavier_uniform(trainer, 3));
    CHECK_OK(rxt_trainer_save_for_target(trainer, path, NULL, "x86-64", NULL));
    CHECK_OK(rxt_trainer_load(path, NULL, &loaded));
    for (i = 0; loaded != NULL && i < 3; ++i) {
      double a = 0, c = 0;
      CHECK_OK(rxt_trainer_update(trainer, inputs, 1, targets, 1, &a));
      CHECK_OK(rxt_trainer_update(loaded, inputs, 1, targets, 1, &c));
      CHECK(memcmp(&a, &c, sizeof a) == 0);
    }
    CHECK_ERROR(rxt_trainer_save_for_target(trainer, unwritten, "nonsense-arch-linux", NULL, NULL), RXT_INVALID_ARGUMENT,
                "cannot compile for 'nonsense-arch-linux'");
    CHECK_ERROR(rxt_trainer_save_for_target(trainer, unwritten, NULL, "pentium9000", NULL), RXT_INVALID_ARGUMENT,
                "'pentium9000' is not a CPU LLVM knows");
    CHECK((file = fopen(unwritten, "rb")) == NULL);
    if (file != NULL) fclose(file);
    CHECK_ERROR(rxt_trainer_save_for_target(NULL, path, NULL, NULL, NULL), RXT_INVALID_ARGUMENT, "trainer");
    if (system("command -v aarch64-linux-gnu-gcc > /dev/null") == 0) {
      rxt_trainer_t* refused = NULL;
      CHECK_OK(rxt_trainer_save_for_target(trainer, arm, "aarch64-linux-gnu", NULL, NULL));
      CHECK_ERROR(rxt_trainer_load(arm, NULL, &refused), RXT_FAILED_PRECONDITION,
                  "kernel library: built for aarch64, and this machine is x86_64");
      CHECK(refused == NULL);
    } else {
      printf("note: no aarch64-linux-gnu-gcc on PATH: the aarch64 file is not made\n");
    }
  }
  /* A backend that compiles nothing ahead of time cannot compile for another machine either. */
  options.backend = "reference";
  CHECK_OK(rxt_trainer_create(module, &options, &reference));
  if (reference != NULL) {
    CHECK_ERROR(rxt_trainer_save_for_target(reference, unwritten, "aarch64-linux-gnu", NULL, NULL),
                RXT_FAILED_PRECONDITION, "backend 'reference' cannot compile kernels ahead of time");
  }
  rxt_trainer_release(reference);
  rxt_trainer_release(loaded);
  rxt_trainer_release(trainer);
  rxt_module_release(module);
  remove(path);
  remove(arm);
  tensor_free(&x);
  tensor_free(&y);
}

int main(void) {
  RUN(test_layout_and_names);
  RUN(test_params_by_index_and_name);
  RUN(test_predict_update_evaluate);
  RUN(test_learning_rate_and_schedule);
  RUN(test_checkpoint_resume_is_bit_identical);
  RUN(test_trainer_file_goes_on_bit_for_bit);
  RUN(test_trainer_file_for_another_machine);
  RUN(test_profile);
  RUN(test_errors);
  RUN(test_options_struct_size);
  return check_report();
}
