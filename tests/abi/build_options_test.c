/* rxt_executable_build_with_options: the cpu backend with its kernel library (oneDNN), kernels
 * compiled ahead of time into a shared library that a loaded executable runs from, and every bad
 * option. examples/mlp.rxt (the seed MLP, batch 64) is the module; results are compared with a
 * plain C computation. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "check.h"

enum { kBatch = 64, kIn = 784, kHidden = 128, kOut = 10 };

typedef struct {
  DLManagedTensor managed;
  int64_t shape[2];
  float* data;
} test_tensor_t;

static void tensor_init(test_tensor_t* t, int64_t d0, int64_t d1, float scale) {
  int64_t count = d1 > 0 ? d0 * d1 : d0, i;
  memset(t, 0, sizeof(*t));
  t->shape[0] = d0;
  t->shape[1] = d1;
  t->data = (float*)malloc((size_t)count * sizeof(float));
  for (i = 0; i < count; ++i) t->data[i] = ((float)rand() / (float)RAND_MAX * 2.0f - 1.0f) * scale;
  t->managed.dl_tensor.data = t->data;
  t->managed.dl_tensor.device.device_type = kDLCPU;
  t->managed.dl_tensor.ndim = d1 > 0 ? 2 : 1;
  t->managed.dl_tensor.dtype.code = kDLFloat;
  t->managed.dl_tensor.dtype.bits = 32;
  t->managed.dl_tensor.dtype.lanes = 1;
  t->managed.dl_tensor.shape = t->shape;
}

/* The seed MLP's seven inputs (x, w0, b0, w1, b1, w2, b2; weights (in, out)) and its output. */
typedef struct {
  test_tensor_t t[7];
  DLManagedTensor* args[7];
  float* expected;
} mlp_t;

/* y = x w + b (x: rows x in, w: in x out), ReLU if |relu|. */
static void dense(const float* x, const float* w, const float* b, float* y, int rows, int in, int out, int relu) {
  int r, i, o;
  for (r = 0; r < rows; ++r) {
    for (o = 0; o < out; ++o) {
      double acc = b[o];
      for (i = 0; i < in; ++i) acc += (double)x[r * in + i] * w[i * out + o];
      y[r * out + o] = relu && acc < 0 ? 0.0f : (float)acc;
    }
  }
}

static void mlp_init(mlp_t* m) {
  const int64_t dims[7][2] = {{kBatch, kIn}, {kIn, kHidden}, {kHidden, 0}, {kHidden, kHidden},
                              {kHidden, 0},  {kHidden, kOut}, {kOut, 0}};
  float* h1 = (float*)malloc(sizeof(float) * kBatch * kHidden);
  float* h2 = (float*)malloc(sizeof(float) * kBatch * kHidden);
  int i;
  for (i = 0; i < 7; ++i) {
    tensor_init(&m->t[i], dims[i][0], dims[i][1], i == 0 ? 1.0f : 0.1f);
    m->args[i] = &m->t[i].managed;
  }
  m->expected = (float*)malloc(sizeof(float) * kBatch * kOut);
  dense(m->t[0].data, m->t[1].data, m->t[2].data, h1, kBatch, kIn, kHidden, 1);
  dense(h1, m->t[3].data, m->t[4].data, h2, kBatch, kHidden, kHidden, 1);
  dense(h2, m->t[5].data, m->t[6].data, m->expected, kBatch, kHidden, kOut, 0);
  free(h1);
  free(h2);
}

static void mlp_free(mlp_t* m) {
  int i;
  for (i = 0; i < 7; ++i) free(m->t[i].data);
  free(m->expected);
}

/* Runs @backbone and compares with the C computation. */
static void check_mlp_run(rxt_vm_t* vm, const mlp_t* m) {
  DLManagedTensor* out[1] = {NULL};
  size_t num_out = 0;
  CHECK_OK(rxt_vm_invoke(vm, "backbone", m->args, 7, out, 1, &num_out));
  CHECK(num_out == 1);
  if (out[0] != NULL) {
    const DLTensor* y = &out[0]->dl_tensor;
    int i, close = 1;
    CHECK(y->ndim == 2 && y->shape[0] == kBatch && y->shape[1] == kOut);
    for (i = 0; i < kBatch * kOut; ++i) {
      if (fabsf(((const float*)y->data)[i] - m->expected[i]) > 1e-4f) close = 0;
    }
    CHECK(close);
    out[0]->deleter(out[0]);
  }
}

static rxt_module_t* mlp_module(void) {
  char* text = check_read_file(RXT_SOURCE_DIR "/examples/mlp.rxt");
  rxt_module_t* module = NULL;
  CHECK(text != NULL);
  if (text == NULL) return NULL;
  CHECK_OK(rxt_module_parse(text, strlen(text), "mlp.rxt", &module));
  free(text);
  return module;
}

/* The profile names the kernels a VM ran; |needle| tells which kind. */
static int profile_contains(rxt_vm_t* vm, const mlp_t* m, const char* needle) {
  char* profile = NULL;
  int found;
  CHECK_OK(rxt_vm_set_profiling(vm, 1));
  check_mlp_run(vm, m);
  CHECK_OK(rxt_vm_profile(vm, &profile));
  found = profile != NULL && strstr(profile, needle) != NULL;
  rxt_string_free(profile);
  return found;
}

static void test_defaults_choose_cpu_and_its_library(void) {
  rxt_module_t* module = mlp_module();
  rxt_executable_t* exec = NULL;
  rxt_vm_t* vm = NULL;
  mlp_t m;
  if (module == NULL) return;
  CHECK_OK(rxt_executable_build_with_options(module, NULL, &exec));
  CHECK(strcmp(rxt_executable_backend(exec), "cpu") == 0);
  CHECK_OK(rxt_vm_create(exec, NULL, &vm));
  mlp_init(&m);
  CHECK(profile_contains(vm, &m, "extern dnnl.matmul"));
  mlp_free(&m);
  rxt_vm_release(vm);
  rxt_executable_release(exec);
  rxt_module_release(module);
}

static void test_emitted_library_runs_after_save_and_load(void) {
  rxt_module_t* module = mlp_module();
  rxt_build_options_t options;
  rxt_executable_t* built = NULL;
  rxt_executable_t* loaded = NULL;
  rxt_vm_t* vm = NULL;
  mlp_t m;
  if (module == NULL) return;
  rxt_build_options_init(&options);
  options.backend = "cpu";
  options.libraries = "none";
  options.emit_library = RXT_TEST_TMP_DIR "/mlp_kernels.so";
  remove(options.emit_library);
  CHECK_OK(rxt_executable_build_with_options(module, &options, &built));
  CHECK_OK(rxt_executable_save(built, RXT_TEST_TMP_DIR "/mlp_aot.rxtx"));
  CHECK_OK(rxt_executable_load(RXT_TEST_TMP_DIR "/mlp_aot.rxtx", &loaded));
  CHECK(loaded != NULL && strcmp(rxt_executable_backend(loaded), "cpu") == 0);
  {
    FILE* library = fopen(options.emit_library, "rb");
    CHECK(library != NULL);
    if (library != NULL) fclose(library);
  }
  CHECK_OK(rxt_vm_create(loaded, NULL, &vm));
  mlp_init(&m);
  /* Generated kernels only ("none"), so no extern call; fused matmul kernels instead. */
  CHECK(profile_contains(vm, &m, "kernel fused_matmul"));
  CHECK(!profile_contains(vm, &m, "extern dnnl"));
  mlp_free(&m);
  rxt_vm_release(vm);
  rxt_executable_release(loaded);
  rxt_executable_release(built);
  rxt_module_release(module);
}

static void test_opt_level_zero_does_not_fuse(void) {
  rxt_module_t* module = mlp_module();
  rxt_build_options_t options;
  rxt_executable_t* exec = NULL;
  rxt_vm_t* vm = NULL;
  mlp_t m;
  if (module == NULL) return;
  rxt_build_options_init(&options);
  options.backend = "reference";
  options.opt_level = 0;
  CHECK_OK(rxt_executable_build_with_options(module, &options, &exec));
  CHECK_OK(rxt_vm_create(exec, NULL, &vm));
  mlp_init(&m);
  CHECK(!profile_contains(vm, &m, "fused_"));
  mlp_free(&m);
  rxt_vm_release(vm);
  rxt_executable_release(exec);
  rxt_module_release(module);
}

static void test_bad_options(void) {
  rxt_module_t* module = mlp_module();
  rxt_build_options_t options;
  rxt_executable_t* exec = NULL;
  if (module == NULL) return;
  rxt_build_options_init(&options);
  options.opt_level = 7;
  CHECK_ERROR(rxt_executable_build_with_options(module, &options, &exec), RXT_INVALID_ARGUMENT,
              "options.opt_level is 7");
  rxt_build_options_init(&options);
  options.struct_size = 0;
  CHECK_ERROR(rxt_executable_build_with_options(module, &options, &exec), RXT_INVALID_ARGUMENT,
              "set it to sizeof(rxt_build_options_t)");
  rxt_build_options_init(&options);
  options.libraries = "dnnl,";
  CHECK_ERROR(rxt_executable_build_with_options(module, &options, &exec), RXT_INVALID_ARGUMENT, "empty name");
  rxt_build_options_init(&options);
  options.backend = "reference";
  options.emit_library = RXT_TEST_TMP_DIR "/never.so";
  CHECK_ERROR(rxt_executable_build_with_options(module, &options, &exec), RXT_FAILED_PRECONDITION,
              "cannot compile kernels ahead of time");
  {
    /* A caller compiled against a newer header, setting a field this library does not know:
     * RXT_UNIMPLEMENTED naming the struct and the first non-zero byte. */
    typedef struct {
      rxt_build_options_t known;
      unsigned char unknown[8];
    } newer_build_options_t;
    newer_build_options_t newer;
    char expected[160];
    memset(&newer, 0, sizeof(newer));
    rxt_build_options_init(&newer.known);
    newer.known.struct_size = sizeof(newer);
    newer.unknown[3] = 7; /* bytes 0 to 2 of it are zero: the message names byte 3 */
    snprintf(expected, sizeof(expected), "byte %u of", (unsigned)offsetof(newer_build_options_t, unknown) + 3);
    CHECK_ERROR(rxt_executable_build_with_options(module, &newer.known, &exec), RXT_UNIMPLEMENTED, expected);
    snprintf(expected, sizeof(expected),
             "rxt_executable_build_with_options: options set a field this library (ABI %d) does not know: "
             "rxt_build_options_t", RXT_ABI_VERSION);
    CHECK_ERROR(rxt_executable_build_with_options(module, &newer.known, &exec), RXT_UNIMPLEMENTED, expected);
    newer.unknown[3] = 0; /* zero = the default: accepted */
    CHECK_OK(rxt_executable_build_with_options(module, &newer.known, &exec));
    rxt_executable_release(exec);
    exec = NULL;
  }
  CHECK_ERROR(rxt_executable_build_with_options(NULL, NULL, &exec), RXT_INVALID_ARGUMENT, "'module' is NULL");
  CHECK_ERROR(rxt_executable_build_with_options(module, NULL, NULL), RXT_INVALID_ARGUMENT, "'out_executable' is NULL");
  CHECK(exec == NULL);
  rxt_build_options_init(NULL); /* no crash */
  rxt_module_release(module);
}

int main(void) {
  srand(7);
  RUN(test_defaults_choose_cpu_and_its_library);
  RUN(test_emitted_library_runs_after_save_and_load);
  RUN(test_opt_level_zero_does_not_fuse);
  RUN(test_bad_options);
  return check_report();
}
