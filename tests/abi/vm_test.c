/* Executables, the VM and external functions through the C ABI: the seed's MyModuleWithExternCall
 * with env.linear / env.relu as C callbacks, examples/my_module.rxt built, saved, loaded and run,
 * and every error path. Results are compared with a plain C computation. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"

/* The seed's MyModuleWithExternCall: symbolic m, n, k; main calls two external functions. */
static const char kExternModule[] =
    "def @main(%x: Tensor((1, m), float32), %w0: Tensor((n, m), float32), %b0: Tensor((n,), float32),\n"
    "          %w1: Tensor((k, n), float32), %b1: Tensor((k,), float32)) -> Tensor((1, k), float32) {\n"
    "  dataflow {\n"
    "    %lv0 = call_extern(\"env.linear\", (%x, %w0, %b0), out_sinfo=Tensor((1, n), float32))\n"
    "    %lv1 = call_extern(\"env.relu\", (%lv0,), out_sinfo=Tensor((1, n), float32))\n"
    "    %out = call_extern(\"env.linear\", (%lv1, %w1, %b1), out_sinfo=Tensor((1, k), float32))\n"
    "    output %out\n"
    "  }\n"
    "  return %out\n"
    "}\n"
    "\n"
    "def @pair(%x: Tensor((2,), float32), %y: Tensor((3,), float32)) -> Tuple(Tensor((2,), float32), Tensor((3,), float32)) {\n"
    "  %t: Tuple(Tensor((2,), float32), Tensor((3,), float32)) = (%x, %y)\n"
    "  return %t\n"
    "}\n";

/* ---- Tensors owned by the test (borrowed by the VM: it never calls their deleter) ---------- */

typedef struct {
  DLManagedTensor managed;
  int64_t shape[2];
  float* data;
} test_tensor_t;

static void tensor_init(test_tensor_t* t, int ndim, int64_t d0, int64_t d1) {
  int64_t count = ndim == 1 ? d0 : d0 * d1;
  int64_t i;
  memset(t, 0, sizeof(*t));
  t->shape[0] = d0;
  t->shape[1] = d1;
  t->data = (float*)malloc((size_t)count * sizeof(float));
  for (i = 0; i < count; ++i) t->data[i] = (float)rand() / (float)RAND_MAX * 2.0f - 1.0f;
  t->managed.dl_tensor.data = t->data;
  t->managed.dl_tensor.device.device_type = kDLCPU;
  t->managed.dl_tensor.ndim = ndim;
  t->managed.dl_tensor.dtype.code = kDLFloat;
  t->managed.dl_tensor.dtype.bits = 32;
  t->managed.dl_tensor.dtype.lanes = 1;
  t->managed.dl_tensor.shape = t->shape;
}

static void tensor_free(test_tensor_t* t) { free(t->data); }

/* ---- The plain C computation --------------------------------------------------------------- */

/* y[j] = sum_i x[i] w[j, i] + b[j] */
static void linear(const float* x, const float* w, const float* b, float* y, int64_t n, int64_t m) {
  int64_t i, j;
  for (j = 0; j < n; ++j) {
    float acc = 0.0f;
    for (i = 0; i < m; ++i) acc += x[i] * w[j * m + i];
    y[j] = acc + b[j];
  }
}

/* ---- The external functions ---------------------------------------------------------------- */

static rxt_status_t env_linear(void* user_data, DLTensor* const* args, int num_args) {
  ++*(int*)user_data;
  if (num_args != 4) return rxt_status_create(RXT_INVALID_ARGUMENT, "env.linear takes 4 arguments");
  linear((const float*)args[0]->data, (const float*)args[1]->data, (const float*)args[2]->data,
         (float*)args[3]->data, args[1]->shape[0], args[1]->shape[1]);
  return NULL;
}

static rxt_status_t env_relu(void* user_data, DLTensor* const* args, int num_args) {
  int64_t i;
  (void)user_data;
  if (num_args != 2) return rxt_status_create(RXT_INVALID_ARGUMENT, "env.relu takes 2 arguments");
  for (i = 0; i < args[0]->shape[1]; ++i) {
    float v = ((const float*)args[0]->data)[i];
    ((float*)args[1]->data)[i] = v > 0.0f ? v : 0.0f;
  }
  return NULL;
}

static rxt_status_t env_failing(void* user_data, DLTensor* const* args, int num_args) {
  (void)args;
  (void)num_args;
  (void)user_data;
  return rxt_status_create(RXT_OUT_OF_RANGE, "row 7 is out of range");
}

static int linear_calls = 0;

/* Records where its input's data is, and copies it to its output. */
static const void* recorded_data = NULL;
static rxt_status_t env_record(void* user_data, DLTensor* const* args, int num_args) {
  (void)user_data;
  if (num_args != 2) return rxt_status_create(RXT_INVALID_ARGUMENT, "env.record takes 2 arguments");
  recorded_data = (const char*)args[0]->data + args[0]->byte_offset;
  memcpy(args[1]->data, recorded_data, 4 * sizeof(float));
  return NULL;
}

static const char kRecordModule[] =
    "def @main(%x: Tensor((4,), float32)) -> Tensor((4,), float32) {\n"
    "  dataflow {\n"
    "    %y = call_extern(\"env.record\", (%x,), out_sinfo=Tensor((4,), float32))\n"
    "    output %y\n"
    "  }\n"
    "  return %y\n"
    "}\n";

static void register_externs(void) {
  CHECK_OK(rxt_extern_register("env.linear", env_linear, &linear_calls, 1));
  CHECK_OK(rxt_extern_register("env.relu", env_relu, NULL, 1));
}

/* ---- The MLP's inputs and expected output -------------------------------------------------- */

typedef struct {
  test_tensor_t x, w0, b0, w1, b1;
  DLManagedTensor* args[5];
  float expected[16];
  int64_t k;
} mlp_t;

static void mlp_init(mlp_t* mlp, int64_t m, int64_t n, int64_t k) {
  float hidden[16];
  int64_t i;
  tensor_init(&mlp->x, 2, 1, m);
  tensor_init(&mlp->w0, 2, n, m);
  tensor_init(&mlp->b0, 1, n, 0);
  tensor_init(&mlp->w1, 2, k, n);
  tensor_init(&mlp->b1, 1, k, 0);
  mlp->args[0] = &mlp->x.managed;
  mlp->args[1] = &mlp->w0.managed;
  mlp->args[2] = &mlp->b0.managed;
  mlp->args[3] = &mlp->w1.managed;
  mlp->args[4] = &mlp->b1.managed;
  mlp->k = k;
  linear(mlp->x.data, mlp->w0.data, mlp->b0.data, hidden, n, m);
  for (i = 0; i < n; ++i) hidden[i] = hidden[i] > 0.0f ? hidden[i] : 0.0f;
  linear(hidden, mlp->w1.data, mlp->b1.data, mlp->expected, k, n);
}

static void mlp_free(mlp_t* mlp) {
  tensor_free(&mlp->x);
  tensor_free(&mlp->w0);
  tensor_free(&mlp->b0);
  tensor_free(&mlp->w1);
  tensor_free(&mlp->b1);
}

/* Runs main on |mlp| and compares its one output with the C computation. */
static void check_mlp_run(rxt_vm_t* vm, const mlp_t* mlp) {
  DLManagedTensor* out[2] = {NULL, NULL};
  size_t num_out = 0;
  CHECK_OK(rxt_vm_invoke(vm, "main", mlp->args, 5, out, 2, &num_out));
  CHECK(num_out == 1);
  if (out[0] != NULL) {
    const DLTensor* y = &out[0]->dl_tensor;
    int64_t i;
    int close = 1;
    CHECK(y->ndim == 2 && y->shape[0] == 1 && y->shape[1] == mlp->k);
    CHECK(y->dtype.code == kDLFloat && y->dtype.bits == 32 && y->device.device_type == kDLCPU);
    for (i = 0; i < mlp->k; ++i) {
      if (fabsf(((const float*)y->data)[i] - mlp->expected[i]) > 1e-5f) close = 0;
    }
    CHECK(close);
    out[0]->deleter(out[0]);
  }
}

static rxt_module_t* parse(const char* text, const char* name) {
  rxt_module_t* module = NULL;
  CHECK_OK(rxt_module_parse(text, strlen(text), name, &module));
  return module;
}

static rxt_vm_t* extern_vm(void) {
  rxt_module_t* module = parse(kExternModule, "extern.rxt");
  rxt_executable_t* exec = NULL;
  rxt_vm_t* vm = NULL;
  CHECK_OK(rxt_executable_build(module, NULL, &exec));
  CHECK_OK(rxt_vm_create(exec, NULL, &vm));
  rxt_executable_release(exec);
  rxt_module_release(module);
  return vm;
}

/* ---- Tests --------------------------------------------------------------------------------- */

static void test_extern_module_matches_plain_c(void) {
  mlp_t small, large;
  rxt_vm_t* vm;
  register_externs();
  vm = extern_vm();
  CHECK(vm != NULL);
  /* One executable, two sets of sizes: m, n, k are symbolic. */
  mlp_init(&small, 5, 4, 3);
  mlp_init(&large, 12, 16, 7);
  linear_calls = 0;
  check_mlp_run(vm, &small);
  CHECK(linear_calls == 2);
  check_mlp_run(vm, &large);
  CHECK(linear_calls == 4);
  mlp_free(&small);
  mlp_free(&large);
  CHECK(rxt_vm_retain(vm) == vm);
  rxt_vm_release(vm);
  rxt_vm_release(vm);
}

static void test_tuple_result_gives_several_outputs(void) {
  test_tensor_t x, y;
  DLManagedTensor* args[2];
  DLManagedTensor* out[2] = {NULL, NULL};
  size_t num_out = 0;
  rxt_vm_t* vm;
  register_externs();
  vm = extern_vm();
  tensor_init(&x, 1, 2, 0);
  tensor_init(&y, 1, 3, 0);
  args[0] = &x.managed;
  args[1] = &y.managed;
  /* Too few outputs: nothing returned, the count says how many are needed. */
  CHECK_ERROR(rxt_vm_invoke(vm, "pair", args, 2, out, 1, &num_out), RXT_OUT_OF_RANGE, "pair returned 2 tensors");
  CHECK(num_out == 2 && out[0] == NULL);
  CHECK_OK(rxt_vm_invoke(vm, "pair", args, 2, out, 2, &num_out));
  CHECK(num_out == 2 && out[0] != NULL && out[1] != NULL);
  if (out[0] != NULL && out[1] != NULL) {
    CHECK(out[0]->dl_tensor.shape[0] == 2 && out[1]->dl_tensor.shape[0] == 3);
    CHECK(((float*)out[0]->dl_tensor.data)[1] == x.data[1] && ((float*)out[1]->dl_tensor.data)[2] == y.data[2]);
    /* Outputs are copies: the caller's inputs are not aliased. */
    CHECK(out[0]->dl_tensor.data != (void*)x.data);
    out[0]->deleter(out[0]);
    out[1]->deleter(out[1]);
  }
  tensor_free(&x);
  tensor_free(&y);
  rxt_vm_release(vm);
}

static void test_my_module_build_save_load_run(void) {
  char* text = check_read_file(RXT_SOURCE_DIR "/examples/my_module.rxt");
  rxt_module_t* module;
  rxt_executable_t* built = NULL;
  rxt_executable_t* loaded = NULL;
  rxt_vm_t* vm = NULL;
  char* profile = NULL;
  mlp_t mlp;
  CHECK(text != NULL);
  if (text == NULL) return;
  module = parse(text, "my_module.rxt");
  free(text);
  CHECK_OK(rxt_executable_build(module, "reference", &built));
  CHECK_OK(rxt_executable_save(built, RXT_TEST_TMP_DIR "/my_module.rxtx"));
  CHECK_OK(rxt_executable_load(RXT_TEST_TMP_DIR "/my_module.rxtx", &loaded));
  CHECK(strcmp(rxt_executable_backend(loaded), "reference") == 0);
  CHECK_OK(rxt_vm_create(loaded, NULL, &vm));

  CHECK_OK(rxt_vm_set_profiling(vm, 1));
  mlp_init(&mlp, 6, 5, 4);
  check_mlp_run(vm, &mlp);
  mlp_free(&mlp);
  CHECK_OK(rxt_vm_profile(vm, &profile));
  CHECK(profile != NULL && strstr(profile, "linear0") != NULL && strstr(profile, "relu0") != NULL);
  rxt_string_free(profile);

  rxt_vm_release(vm);
  rxt_executable_release(loaded);
  rxt_executable_release(built);
  rxt_module_release(module);
}

static void test_argument_errors_name_function_and_argument(void) {
  mlp_t mlp;
  DLManagedTensor* out[1] = {NULL};
  size_t num_out = 0;
  rxt_vm_t* vm;
  register_externs();
  vm = extern_vm();
  mlp_init(&mlp, 5, 4, 3);

  CHECK_ERROR(rxt_vm_invoke(vm, "nope", mlp.args, 5, out, 1, &num_out), RXT_NOT_FOUND, "no function named 'nope'");
  CHECK_ERROR(rxt_vm_invoke(vm, "main", mlp.args, 4, out, 1, &num_out), RXT_INVALID_ARGUMENT,
              "main: expected 5 arguments");

  /* Wrong dtype: x as int32. */
  mlp.x.managed.dl_tensor.dtype.code = kDLInt;
  CHECK_ERROR(rxt_vm_invoke(vm, "main", mlp.args, 5, out, 1, &num_out), RXT_INVALID_ARGUMENT,
              "main: argument 0 (%x): expected Tensor((1, m), float32), got int32");
  mlp.x.managed.dl_tensor.dtype.code = kDLFloat;

  /* Wrong shape: w0 is (n, m) with m = 5, given (4, 3). */
  mlp.w0.shape[1] = 3;
  CHECK_ERROR(rxt_vm_invoke(vm, "main", mlp.args, 5, out, 1, &num_out), RXT_INVALID_ARGUMENT,
              "main: argument 1 (%w0): expected Tensor((n, m), float32), got float32 (4, 3)");
  mlp.w0.shape[1] = 5;

  /* Wrong device. */
  mlp.b0.managed.dl_tensor.device.device_type = kDLCUDA;
  CHECK_ERROR(rxt_vm_invoke(vm, "main", mlp.args, 5, out, 1, &num_out), RXT_INVALID_ARGUMENT,
              "main: argument 2: expected a CPU tensor");
  mlp.b0.managed.dl_tensor.device.device_type = kDLCPU;

  /* A NULL input, and an unsupported dtype DLPack can describe. */
  mlp.args[3] = NULL;
  CHECK_ERROR(rxt_vm_invoke(vm, "main", mlp.args, 5, out, 1, &num_out), RXT_INVALID_ARGUMENT,
              "main: argument 3 is NULL");
  mlp.args[3] = &mlp.w1.managed;
  mlp.b1.managed.dl_tensor.dtype.code = kDLComplex;
  CHECK_ERROR(rxt_vm_invoke(vm, "main", mlp.args, 5, out, 1, &num_out), RXT_INVALID_ARGUMENT, "main: argument 4: ");
  mlp.b1.managed.dl_tensor.dtype.code = kDLFloat;

  /* Everything restored: it runs. */
  check_mlp_run(vm, &mlp);
  CHECK(out[0] == NULL);
  mlp_free(&mlp);
  rxt_vm_release(vm);
}

static void test_extern_errors(void) {
  rxt_module_t* module = parse(kExternModule, "extern.rxt");
  rxt_executable_t* exec = NULL;
  rxt_vm_t* vm = NULL;
  mlp_t mlp;
  DLManagedTensor* out[1] = {NULL};
  CHECK_OK(rxt_executable_build(module, NULL, &exec));
  register_externs();

  CHECK_ERROR(rxt_extern_register("env.relu", env_relu, NULL, 0), RXT_ALREADY_EXISTS, "env.relu");
  CHECK_OK(rxt_extern_remove("env.relu"));
  CHECK_ERROR(rxt_extern_remove("env.relu"), RXT_NOT_FOUND, "'env.relu' is not registered");
  /* A VM resolves its extern functions when created. */
  CHECK_ERROR(rxt_vm_create(exec, NULL, &vm), RXT_NOT_FOUND, "extern function 'env.relu' is not registered");
  CHECK(vm == NULL);

  /* A failing function fails the call with its status's code and message, naming it. */
  CHECK_OK(rxt_extern_register("env.relu", env_failing, NULL, 0));
  CHECK_OK(rxt_vm_create(exec, NULL, &vm));
  mlp_init(&mlp, 3, 2, 2);
  CHECK_ERROR(rxt_vm_invoke(vm, "main", mlp.args, 5, out, 1, NULL), RXT_OUT_OF_RANGE,
              "extern function 'env.relu': row 7 is out of range");
  CHECK(out[0] == NULL);
  mlp_free(&mlp);
  rxt_vm_release(vm);
  register_externs();

  rxt_executable_release(exec);
  rxt_module_release(module);
}

static void test_executable_and_backend_errors(void) {
  rxt_module_t* module = parse(kExternModule, "extern.rxt");
  rxt_executable_t* exec = NULL;
  rxt_vm_t* vm = NULL;
  FILE* file;

  CHECK_ERROR(rxt_executable_build(module, "reference", NULL), RXT_INVALID_ARGUMENT, "'out_executable' is NULL");
  CHECK_ERROR(rxt_executable_build(NULL, "reference", &exec), RXT_INVALID_ARGUMENT, "'module' is NULL");
  CHECK_OK(rxt_executable_build(module, "no_such_backend", &exec));
  CHECK(strcmp(rxt_executable_backend(exec), "no_such_backend") == 0);
  CHECK_ERROR(rxt_vm_create(exec, NULL, &vm), RXT_NOT_FOUND, "no_such_backend");
  /* Built for one backend, run on another. */
  CHECK_ERROR(rxt_vm_create(exec, "reference", &vm), RXT_FAILED_PRECONDITION, "no_such_backend");
  CHECK(vm == NULL);
  rxt_executable_release(exec);
  exec = NULL;

  /* NULL arguments and missing files. */
  CHECK_ERROR(rxt_executable_save(NULL, "x.rxtx"), RXT_INVALID_ARGUMENT, "'executable' is NULL");
  CHECK_ERROR(rxt_executable_load(NULL, &exec), RXT_INVALID_ARGUMENT, "'path' is NULL");
  CHECK_ERROR(rxt_executable_load(RXT_TEST_TMP_DIR "/x.rxtx", NULL), RXT_INVALID_ARGUMENT, "'out_executable' is NULL");
  {
    rxt_status_t missing = rxt_executable_load(RXT_TEST_TMP_DIR "/does_not_exist.rxtx", &exec);
    CHECK(missing != NULL && strstr(rxt_status_message(missing), "does_not_exist.rxtx") != NULL);
    rxt_status_free(missing);
  }
  CHECK(exec == NULL);

  /* Corrupt files: garbage, and a valid file cut short. */
  file = fopen(RXT_TEST_TMP_DIR "/corrupt.rxtx", "wb");
  CHECK(file != NULL);
  if (file != NULL) {
    fputs("this is not an executable at all", file);
    fclose(file);
  }
  CHECK_ERROR(rxt_executable_load(RXT_TEST_TMP_DIR "/corrupt.rxtx", &exec), RXT_DATA_LOSS, "corrupt.rxtx");
  CHECK(exec == NULL);
  {
    rxt_executable_t* good = NULL;
    char* bytes;
    CHECK_OK(rxt_executable_build(module, NULL, &good));
    CHECK_OK(rxt_executable_save(good, RXT_TEST_TMP_DIR "/cut.rxtx"));
    rxt_executable_release(good);
    bytes = check_read_file(RXT_TEST_TMP_DIR "/cut.rxtx");
    file = fopen(RXT_TEST_TMP_DIR "/cut.rxtx", "wb");
    if (bytes != NULL && file != NULL) fwrite(bytes, 1, 40, file);
    if (file != NULL) fclose(file);
    free(bytes);
    CHECK_ERROR(rxt_executable_load(RXT_TEST_TMP_DIR "/cut.rxtx", &exec), RXT_DATA_LOSS, "cut.rxtx");
  }
  CHECK(rxt_executable_retain(NULL) == NULL);
  rxt_executable_release(NULL);
  CHECK(strcmp(rxt_executable_backend(NULL), "") == 0);
  rxt_module_release(module);
}

/* Inputs are read in place when compact and 64-byte aligned (zero-copy), else copied first. */
static void test_inputs_are_read_in_place_when_aligned(void) {
  rxt_module_t* module = parse(kRecordModule, "record.rxt");
  rxt_executable_t* exec = NULL;
  rxt_vm_t* vm = NULL;
  float* block = (float*)malloc(64 * sizeof(float));
  float* aligned = (float*)(((uintptr_t)block + 63) & ~(uintptr_t)63);
  test_tensor_t x;
  DLManagedTensor* args[1];
  DLManagedTensor* out[1] = {NULL};
  int i;
  CHECK_OK(rxt_extern_register("env.record", env_record, NULL, 1));
  CHECK_OK(rxt_executable_build(module, NULL, &exec));
  CHECK_OK(rxt_vm_create(exec, NULL, &vm));
  tensor_init(&x, 1, 4, 0);
  for (i = 0; i < 8; ++i) aligned[i] = (float)i;
  x.managed.dl_tensor.data = aligned;
  args[0] = &x.managed;
  CHECK_OK(rxt_vm_invoke(vm, "main", args, 1, out, 1, NULL));
  CHECK(recorded_data == aligned);
  if (out[0] != NULL) {
    CHECK(out[0]->dl_tensor.data != (void*)aligned && ((float*)out[0]->dl_tensor.data)[3] == 3.0f);
    out[0]->deleter(out[0]);
    out[0] = NULL;
  }
  /* Off the alignment: a copy, with the same values. */
  x.managed.dl_tensor.data = aligned + 1;
  CHECK_OK(rxt_vm_invoke(vm, "main", args, 1, out, 1, NULL));
  CHECK(recorded_data != aligned + 1);
  if (out[0] != NULL) {
    CHECK(((float*)out[0]->dl_tensor.data)[0] == 1.0f && ((float*)out[0]->dl_tensor.data)[3] == 4.0f);
    out[0]->deleter(out[0]);
    out[0] = NULL;
  }
  /* Strided (every other element): a compact copy. */
  {
    int64_t strides[1] = {2};
    x.managed.dl_tensor.data = aligned;
    x.managed.dl_tensor.strides = strides;
    CHECK_OK(rxt_vm_invoke(vm, "main", args, 1, out, 1, NULL));
    CHECK(recorded_data != aligned);
    if (out[0] != NULL) {
      CHECK(((float*)out[0]->dl_tensor.data)[1] == 2.0f && ((float*)out[0]->dl_tensor.data)[3] == 6.0f);
      out[0]->deleter(out[0]);
    }
  }
  for (i = 0; i < 8; ++i) CHECK(aligned[i] == (float)i); /* never written */
  free(x.data);
  free(block);
  rxt_vm_release(vm);
  rxt_executable_release(exec);
  rxt_module_release(module);
}

static void test_null_arguments(void) {
  rxt_vm_t* vm;
  rxt_executable_t* exec = NULL;
  DLManagedTensor* out[1] = {NULL};
  char* text = NULL;
  register_externs();
  vm = extern_vm();
  CHECK_ERROR(rxt_vm_create(NULL, NULL, &vm), RXT_INVALID_ARGUMENT, "rxt_vm_create: argument 'executable' is NULL");
  CHECK_ERROR(rxt_vm_create(exec, NULL, NULL), RXT_INVALID_ARGUMENT, "is NULL");
  CHECK_ERROR(rxt_vm_invoke(NULL, "main", NULL, 0, out, 1, NULL), RXT_INVALID_ARGUMENT, "'vm' is NULL");
  CHECK_ERROR(rxt_vm_invoke(vm, NULL, NULL, 0, out, 1, NULL), RXT_INVALID_ARGUMENT, "'function' is NULL");
  CHECK_ERROR(rxt_vm_invoke(vm, "main", NULL, 5, out, 1, NULL), RXT_INVALID_ARGUMENT, "'inputs' is NULL");
  CHECK_ERROR(rxt_vm_invoke(vm, "main", NULL, 0, NULL, 1, NULL), RXT_INVALID_ARGUMENT, "'outputs' is NULL");
  CHECK_ERROR(rxt_vm_set_profiling(NULL, 1), RXT_INVALID_ARGUMENT, "'vm' is NULL");
  CHECK_ERROR(rxt_vm_profile(NULL, &text), RXT_INVALID_ARGUMENT, "'vm' is NULL");
  CHECK_ERROR(rxt_vm_profile(vm, NULL), RXT_INVALID_ARGUMENT, "'out_text' is NULL");
  CHECK_ERROR(rxt_extern_register(NULL, env_relu, NULL, 1), RXT_INVALID_ARGUMENT, "'name' is NULL");
  CHECK_ERROR(rxt_extern_register("env.x", NULL, NULL, 1), RXT_INVALID_ARGUMENT, "'function' is NULL");
  CHECK_ERROR(rxt_extern_remove(NULL), RXT_INVALID_ARGUMENT, "'name' is NULL");
  CHECK(rxt_vm_retain(NULL) == NULL);
  rxt_vm_release(NULL);
  rxt_vm_release(vm);
}

int main(void) {
  srand(42);
  RUN(test_extern_module_matches_plain_c);
  RUN(test_tuple_result_gives_several_outputs);
  RUN(test_my_module_build_save_load_run);
  RUN(test_argument_errors_name_function_and_argument);
  RUN(test_extern_errors);
  RUN(test_executable_and_backend_errors);
  RUN(test_inputs_are_read_in_place_when_aligned);
  RUN(test_null_arguments);
  return check_report();
}
