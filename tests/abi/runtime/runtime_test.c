/* librxt_runtime.so's C ABI (the runtime alone) on its own: a trainer file saved and loaded
 * again goes on bit for bit, an executable with its kernel library runs, and every way a file
 * or a call can be wrong is an error status naming it, never a crash.
 *
 *   rxt_runtime_test WORK_DIR WRONG_ABI_PLUGIN
 *
 * WORK_DIR holds what the fixture made with the compiler (runtime_files.cmake): mlp.rxtt (cpu,
 * kernels compiled ahead of time), reference.rxtt (reference backend: no kernel library),
 * mlp.rxtx + mlp.so (generated kernels), mlp_dnnl.rxtx (oneDNN's calls only: no kernels),
 * plain.rxtx (kernels but no kernel library). */
#include <dlpack/dlpack.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../borrowed_tensor.h"
#include "rxt/rxt.h"

static int failures = 0;

#define CHECK(cond)                                                   \
  do {                                                                \
    if (!(cond)) {                                                    \
      fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                     \
    }                                                                 \
  } while (0)

/* |status| failed with |code| and a message containing |text|; frees it. */
static void expect_error(rxt_status_t status, rxt_code_t code, const char* text, int line) {
  if (status == NULL) {
    fprintf(stderr, "line %d: expected %s, got success\n", line, rxt_code_name(code));
    ++failures;
    return;
  }
  if (rxt_status_code(status) != code || strstr(rxt_status_message(status), text) == NULL) {
    fprintf(stderr, "line %d: expected %s with \"%s\", got %s: %s\n", line, rxt_code_name(code), text,
            rxt_code_name(rxt_status_code(status)), rxt_status_message(status));
    ++failures;
  }
  rxt_status_free(status);
}
#define EXPECT_ERROR(status, code, text) expect_error(status, code, text, __LINE__)

static void expect_ok(rxt_status_t status, int line) {
  if (status != NULL) {
    fprintf(stderr, "line %d: unexpected error: %s\n", line, rxt_status_message(status));
    rxt_status_free(status);
    ++failures;
  }
}
#define EXPECT_OK(status) expect_ok(status, __LINE__)

static char path_buffer[8][4096];
static const char* in_work(const char* work, const char* name, int slot) {
  snprintf(path_buffer[slot], sizeof path_buffer[slot], "%s/%s", work, name);
  return path_buffer[slot];
}


static float x_data[64 * 784];
static int64_t y_data[64];
static int32_t y_wrong_dtype[64];

/* One update on a fixed batch; returns the loss (or -1 on error, reported). */
static double update(rxt_trainer_t* trainer, int64_t batch) {
  int64_t x_shape[2], y_shape[1];
  DLManagedTensor xt, yt;
  DLManagedTensor* inputs[1];
  DLManagedTensor* targets[1];
  double loss = -1;
  x_shape[0] = batch;
  x_shape[1] = 784;
  y_shape[0] = batch;
  xt = borrowed_tensor(x_data, kDLFloat, 32, 2, x_shape);
  yt = borrowed_tensor(y_data, kDLInt, 64, 1, y_shape);
  inputs[0] = &xt;
  targets[0] = &yt;
  EXPECT_OK(rxt_trainer_update(trainer, inputs, 1, targets, 1, &loss));
  return loss;
}

/* Whether the two trainers hold bit-identical parameters. */
static int same_params(rxt_trainer_t* a, rxt_trainer_t* b) {
  size_t count = 0, i;
  int same = 1;
  EXPECT_OK(rxt_trainer_count(a, RXT_TRAINER_PARAMS, &count));
  for (i = 0; i < count; ++i) {
    DLManagedTensor *pa = NULL, *pb = NULL;
    EXPECT_OK(rxt_trainer_get(a, RXT_TRAINER_PARAMS, i, &pa));
    EXPECT_OK(rxt_trainer_get(b, RXT_TRAINER_PARAMS, i, &pb));
    if (pa == NULL || pb == NULL) return 0;
    {
      int64_t n = 1, d;
      for (d = 0; d < pa->dl_tensor.ndim; ++d) n *= pa->dl_tensor.shape[d];
      same = same && memcmp(pa->dl_tensor.data, pb->dl_tensor.data, (size_t)n * 4) == 0;
    }
    pa->deleter(pa);
    pb->deleter(pb);
  }
  return same && count == 6;
}

/* Runs @backbone of the executable at |path| on the fixed batch with small deterministic
 * weights; |out| gets the (64, 10) scores. */
static int run_backbone(const char* path, float* out) {
  static float w0[784 * 128], b0[128], w1[128 * 128], b1[128], w2[128 * 10], b2[10];
  float* data[7];
  int64_t shapes[7][2] = {{64, 784}, {784, 128}, {128, 0}, {128, 128}, {128, 0}, {128, 10}, {10, 0}};
  int ndims[7] = {2, 2, 1, 2, 1, 2, 1};
  DLManagedTensor args[7];
  DLManagedTensor* inputs[7];
  DLManagedTensor* outputs[1] = {NULL};
  rxt_executable_t* exec = NULL;
  rxt_vm_t* vm = NULL;
  size_t n = 0;
  int i, j, ok = 0;
  data[0] = x_data, data[1] = w0, data[2] = b0, data[3] = w1, data[4] = b1, data[5] = w2, data[6] = b2;
  for (i = 1; i < 7; ++i) {
    int64_t count = ndims[i] == 2 ? shapes[i][0] * shapes[i][1] : shapes[i][0];
    for (j = 0; j < count; ++j) data[i][j] = (float)((j * 31 + i * 17) % 101 - 50) / 1000.0f;
  }
  for (i = 0; i < 7; ++i) {
    args[i] = borrowed_tensor(data[i], kDLFloat, 32, ndims[i], shapes[i]);
    inputs[i] = &args[i];
  }
  EXPECT_OK(rxt_executable_load(path, &exec));
  if (exec != NULL) EXPECT_OK(rxt_vm_create(exec, NULL, &vm));
  if (vm != NULL) EXPECT_OK(rxt_vm_invoke(vm, "backbone", inputs, 7, outputs, 1, &n));
  if (outputs[0] != NULL) {
    const DLTensor* t = &outputs[0]->dl_tensor;
    ok = n == 1 && t->ndim == 2 && t->shape[0] == 64 && t->shape[1] == 10;
    if (ok) memcpy(out, t->data, sizeof(float) * 640);
    outputs[0]->deleter(outputs[0]);
  }
  rxt_vm_release(vm);
  rxt_executable_release(exec);
  return ok;
}

static void copy_truncated(const char* from, const char* to, long keep) {
  FILE* in = fopen(from, "rb");
  FILE* out = fopen(to, "wb");
  long i;
  int c;
  for (i = 0; in != NULL && out != NULL && i < keep && (c = fgetc(in)) != EOF; ++i) fputc(c, out);
  if (in != NULL) fclose(in);
  if (out != NULL) fclose(out);
}

int main(int argc, char** argv) {
  const char* work;
  rxt_trainer_t *trainer = NULL, *again = NULL, *none = NULL;
  rxt_executable_t* exec = NULL;
  rxt_vm_t* vm = NULL;
  int64_t i, x_shape[2], y_shape[1];
  if (argc != 3) {
    fprintf(stderr, "usage: %s WORK_DIR WRONG_ABI_PLUGIN\n", argv[0]);
    return 2;
  }
  work = argv[1];
  for (i = 0; i < 64 * 784; ++i) x_data[i] = (float)((i * 7919) % 255) / 255.0f;
  for (i = 0; i < 64; ++i) y_data[i] = y_wrong_dtype[i] = (int32_t)(i % 10);

  /* Trainer files: missing, truncated, without kernels. */
  EXPECT_ERROR(rxt_trainer_load(in_work(work, "missing.rxtt", 0), NULL, &none), RXT_NOT_FOUND, "missing.rxtt");
  copy_truncated(in_work(work, "mlp.rxtt", 0), in_work(work, "truncated.rxtt", 1), 1000);
  EXPECT_ERROR(rxt_trainer_load(in_work(work, "truncated.rxtt", 1), NULL, &none), RXT_DATA_LOSS, "truncated.rxtt");
  EXPECT_ERROR(rxt_trainer_load(in_work(work, "reference.rxtt", 0), NULL, &none), RXT_FAILED_PRECONDITION,
               "librxt_runtime cannot compile them");
  CHECK(none == NULL);

  /* A trainer saved by the runtime and loaded again goes on bit for bit. */
  EXPECT_OK(rxt_trainer_load(in_work(work, "mlp.rxtt", 0), NULL, &trainer));
  if (trainer == NULL) return 1;
  CHECK(update(trainer, 64) > 0);
  EXPECT_OK(rxt_trainer_save(trainer, in_work(work, "saved_by_runtime.rxtt", 1)));
  EXPECT_OK(rxt_trainer_load(in_work(work, "saved_by_runtime.rxtt", 1), NULL, &again));
  if (again == NULL) return 1;
  CHECK(same_params(trainer, again));
  CHECK(update(trainer, 64) == update(again, 64));
  CHECK(same_params(trainer, again));

  /* Wrong shapes and dtypes at update: errors naming the argument; nothing changes. */
  {
    DLManagedTensor xt, yt;
    DLManagedTensor* inputs[1];
    DLManagedTensor* targets[1];
    double loss = 0;
    x_shape[0] = 32;
    x_shape[1] = 784;
    y_shape[0] = 64;
    xt = borrowed_tensor(x_data, kDLFloat, 32, 2, x_shape);
    yt = borrowed_tensor(y_data, kDLInt, 64, 1, y_shape);
    inputs[0] = &xt;
    targets[0] = &yt;
    EXPECT_ERROR(rxt_trainer_update(trainer, inputs, 1, targets, 1, &loss), RXT_INVALID_ARGUMENT, "x");
    x_shape[0] = 64;
    yt = borrowed_tensor(y_wrong_dtype, kDLInt, 32, 1, y_shape);
    EXPECT_ERROR(rxt_trainer_update(trainer, inputs, 1, targets, 1, &loss), RXT_INVALID_ARGUMENT, "int");
    EXPECT_ERROR(rxt_trainer_update(trainer, inputs, 0, targets, 1, &loss), RXT_INVALID_ARGUMENT, "input");
    CHECK(same_params(trainer, again));
  }
  rxt_trainer_release(again);
  rxt_trainer_release(trainer);

  /* Executables: with their kernel library (or no kernels at all, oneDNN's calls) they run and
   * agree; without a library the runtime says why. */
  {
    float got[2][640];
    int k;
    CHECK(run_backbone(in_work(work, "mlp.rxtx", 0), got[0]));
    CHECK(run_backbone(in_work(work, "mlp_dnnl.rxtx", 0), got[1]));
    for (k = 0; k < 640; ++k) CHECK(got[0][k] - got[1][k] < 1e-4f && got[1][k] - got[0][k] < 1e-4f);
  }
  EXPECT_OK(rxt_executable_load(in_work(work, "mlp.rxtx", 0), &exec));
  if (exec != NULL) {
    vm = NULL;
    EXPECT_ERROR(rxt_vm_create(exec, "reference", &vm), RXT_FAILED_PRECONDITION, "compiled ahead of time only");
    CHECK(vm == NULL);
    rxt_executable_release(exec);
    exec = NULL;
  }
  EXPECT_OK(rxt_executable_load(in_work(work, "plain.rxtx", 0), &exec));
  if (exec != NULL) {
    vm = NULL;
    EXPECT_ERROR(rxt_vm_create(exec, NULL, &vm), RXT_FAILED_PRECONDITION, "names no kernel library");
    CHECK(vm == NULL);
    rxt_executable_release(exec);
  }

  /* Plugins: the wrong ABI version, a file that is no library, a missing file. */
  EXPECT_ERROR(rxt_plugin_load(argv[2]), RXT_FAILED_PRECONDITION, "speaks plugin ABI version 99");
  EXPECT_ERROR(rxt_plugin_load(in_work(work, "mlp.rxtx", 0)), RXT_INVALID_ARGUMENT, "not a shared library");
  EXPECT_ERROR(rxt_plugin_load(in_work(work, "missing.so", 0)), RXT_NOT_FOUND, "no such file");
  EXPECT_ERROR(rxt_trainer_load(NULL, NULL, &none), RXT_INVALID_ARGUMENT, "path");

  if (failures == 0) printf("runtime_test: all checks passed\n");
  return failures == 0 ? 0 : 1;
}
