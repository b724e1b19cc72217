/* Contexts through the C ABI: options and their defaults, two contexts with their own thread
 * counts and plugins (the same extern plugin loaded into each), a build's notes in the
 * context's log, VMs and trainers that keep their context alive, allocator hooks that get
 * every block back, and every bad option. */
#define _POSIX_C_SOURCE 200112L /* posix_memalign */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "linear_backbone.h"

#define PLUGIN(name) RXT_BUILD_PLUGIN_DIR "/" name
static const char* const kReference[] = {PLUGIN("rxt_backend_reference.so"), RXT_TEST_PLUGIN_DIR "/externs/test_extern.so"};
static const char* const kTraining[] = {PLUGIN("rxt_backend_reference.so"), PLUGIN("rxt_grad_std.so"),
                                        PLUGIN("rxt_loss_std.so"), PLUGIN("rxt_optim_std.so")};

/* How many threads the kernels of the VM's context use (an extern function of the fixture
 * plugin tests/plugins/fixtures/extern_plugin.c answers). */
static const char kThreads[] =
    "def @threads(%x: Tensor((), int64)) -> Tensor((), int64) {\n"
    "  %n = call_extern(\"test.num_threads\", (%x,), out_sinfo=Tensor((), int64))\n"
    "  return %n\n"
    "}\n";


typedef struct {
  int lines;
  int notes_of_rxt;
  int says_reference;
} log_t;

static void log_line(void* user_data, rxt_log_level_t level, const char* source, const char* message) {
  log_t* log = (log_t*)user_data;
  ++log->lines;
  if (strcmp(source, "rxt") == 0 && level == RXT_LOG_INFO) ++log->notes_of_rxt;
  if (strstr(message, "using the reference interpreter") != NULL) ++log->says_reference;
}

typedef struct {
  long allocated, freed, live_bytes;
} counts_t;

static void* counted_allocate(void* user_data, size_t size, size_t alignment) {
  counts_t* counts = (counts_t*)user_data;
  void* p = NULL;
  if (posix_memalign(&p, alignment, size) != 0) return NULL;
  ++counts->allocated;
  counts->live_bytes += (long)size;
  return p;
}

static void counted_deallocate(void* user_data, void* pointer, size_t size, size_t alignment) {
  counts_t* counts = (counts_t*)user_data;
  (void)alignment;
  ++counts->freed;
  counts->live_bytes -= (long)size;
  free(pointer);
}

static int count_plugin(void* user_data, const rxt_plugin_info_t* info) {
  (void)info;
  ++*(int*)user_data;
  return 0;
}

static rxt_executable_t* build_in(rxt_context_t* context, const char* text, size_t length) {
  rxt_module_t* module = NULL;
  rxt_executable_t* executable = NULL;
  rxt_build_options_t options;
  CHECK_OK(rxt_module_parse(text, length, "context.rxt", &module));
  rxt_build_options_init(&options);
  options.context = context;
  options.opt_level = 0;
  CHECK_OK(rxt_executable_build_with_options(module, &options, &executable));
  rxt_module_release(module);
  return executable;
}

/* The thread count a VM of |context| reports, -1 on error. */
static int64_t threads_seen(rxt_vm_t* vm) {
  int64_t zero = 0, shape_unused = 0, n = -1;
  DLManagedTensor input;
  DLManagedTensor* inputs[1] = {&input};
  DLManagedTensor* out = NULL;
  size_t num_outputs = 0;
  (void)shape_unused;
  memset(&input, 0, sizeof input);
  input.dl_tensor.data = &zero;
  input.dl_tensor.device.device_type = kDLCPU;
  input.dl_tensor.ndim = 0;
  input.dl_tensor.dtype.code = kDLInt;
  input.dl_tensor.dtype.bits = 64;
  input.dl_tensor.dtype.lanes = 1;
  CHECK_OK(rxt_vm_invoke(vm, "threads", inputs, 1, &out, 1, &num_outputs));
  if (out != NULL) {
    n = *(const int64_t*)out->dl_tensor.data;
    out->deleter(out);
  }
  return n;
}

static void test_defaults(void) {
  rxt_context_options_t options;
  int32_t threads = 0;
  rxt_context_options_init(&options);
  CHECK(options.struct_size == sizeof(rxt_context_options_t));
  CHECK(options.num_threads == 0);
  CHECK(options.search_path == 1);
  CHECK(options.plugins == NULL && options.log == NULL && options.allocate == NULL);
  CHECK(rxt_context_default() != NULL);
  CHECK(rxt_context_default() == rxt_context_default());
  CHECK_OK(rxt_context_num_threads(rxt_context_default(), &threads));
  CHECK(threads >= 1);
  /* The default context is never released. */
  rxt_context_release(rxt_context_retain(rxt_context_default()));
  rxt_context_release(NULL);
}

static void test_two_contexts_have_their_own_threads_and_plugins(void) {
  rxt_context_options_t options;
  rxt_context_t *one = NULL, *three = NULL;
  rxt_executable_t* executable = NULL;
  rxt_vm_t *vm_one = NULL, *vm_three = NULL, *vm_default = NULL;
  log_t log = {0, 0, 0};
  int32_t threads = 0;
  int plugins = 0;

  rxt_context_options_init(&options);
  options.num_threads = 1;
  options.search_path = 0;
  options.plugins = kReference;
  options.num_plugins = 2;
  options.log = log_line;
  options.log_user_data = &log;
  CHECK_OK(rxt_context_create(&options, &one));
  options.num_threads = 3;
  options.log = NULL;
  CHECK_OK(rxt_context_create(&options, &three)); /* the same extern plugin, loaded again */
  if (one == NULL || three == NULL) return;
  CHECK_OK(rxt_context_num_threads(one, &threads));
  CHECK(threads == 1);
  CHECK_OK(rxt_context_num_threads(three, &threads));
  CHECK(threads == 3);
  CHECK_OK(rxt_context_plugins_list(one, count_plugin, &plugins));
  CHECK(plugins == 2);

  /* No cpu backend in the context: the build says so in its log. */
  executable = build_in(one, kThreads, sizeof(kThreads) - 1);
  if (executable == NULL) return;
  CHECK(log.says_reference == 1);
  CHECK(log.notes_of_rxt >= 1);
  CHECK_OK(rxt_vm_create_in_context(one, executable, NULL, &vm_one));
  CHECK_OK(rxt_vm_create_in_context(three, executable, NULL, &vm_three));
  /* The contexts' extern functions are theirs: the default context has none of them. */
  CHECK_ERROR(rxt_vm_create(executable, NULL, &vm_default), RXT_NOT_FOUND, "test.num_threads");
  /* The VMs keep their contexts alive. */
  rxt_context_release(one);
  rxt_context_release(three);
  if (vm_one != NULL) CHECK(threads_seen(vm_one) == 1);
  if (vm_three != NULL) CHECK(threads_seen(vm_three) == 3);
  rxt_vm_release(vm_one);
  rxt_vm_release(vm_three);
  rxt_executable_release(executable);
}

static void test_a_trainer_runs_in_its_context_with_its_allocator(void) {
  rxt_context_options_t options;
  rxt_context_t* context = NULL;
  rxt_module_t* module = NULL;
  rxt_trainer_options_t trainer_options;
  rxt_trainer_t* trainer = NULL;
  counts_t counts = {0, 0, 0};
  float x[12], y[8];
  int64_t x_shape[2] = {4, 3}, y_shape[2] = {4, 2};
  DLManagedTensor xs, ys;
  DLManagedTensor* inputs[1] = {&xs};
  DLManagedTensor* targets[1] = {&ys};
  double first = 0, last = 0;
  long allocated_before;
  int i;

  rxt_context_options_init(&options);
  options.num_threads = 2;
  options.search_path = 0;
  options.plugins = kTraining;
  options.num_plugins = 4;
  options.allocate = counted_allocate;
  options.deallocate = counted_deallocate;
  options.allocator_user_data = &counts;
  CHECK_OK(rxt_context_create(&options, &context));
  if (context == NULL) return;
  CHECK_OK(rxt_module_parse(kLinearBackbone, sizeof(kLinearBackbone) - 1, "linear.rxt", &module));
  rxt_trainer_options_init(&trainer_options);
  trainer_options.loss = "mse";
  trainer_options.optimizer = "sgd";
  trainer_options.optimizer_options = "lr=0.05";
  trainer_options.context = context;
  CHECK_OK(rxt_trainer_create(module, &trainer_options, &trainer));
  rxt_module_release(module);
  rxt_context_release(context); /* the trainer keeps it */
  if (trainer == NULL) return;
  CHECK(counts.allocated > 0); /* its parameters */

  for (i = 0; i < 12; ++i) x[i] = -0.5f + 0.1f * (float)i;
  for (i = 0; i < 8; ++i) y[i] = 0.3f - 0.07f * (float)i;
  memset(&xs, 0, sizeof xs);
  memset(&ys, 0, sizeof ys);
  xs.dl_tensor.data = x;
  ys.dl_tensor.data = y;
  xs.dl_tensor.device.device_type = ys.dl_tensor.device.device_type = kDLCPU;
  xs.dl_tensor.ndim = ys.dl_tensor.ndim = 2;
  xs.dl_tensor.dtype.code = ys.dl_tensor.dtype.code = kDLFloat;
  xs.dl_tensor.dtype.bits = ys.dl_tensor.dtype.bits = 32;
  xs.dl_tensor.dtype.lanes = ys.dl_tensor.dtype.lanes = 1;
  xs.dl_tensor.shape = x_shape;
  ys.dl_tensor.shape = y_shape;
  CHECK_OK(rxt_trainer_init_xavier_uniform(trainer, 1));
  allocated_before = counts.allocated;
  CHECK_OK(rxt_trainer_update(trainer, inputs, 1, targets, 1, &first));
  for (i = 0; i < 20; ++i) CHECK_OK(rxt_trainer_update(trainer, inputs, 1, targets, 1, &last));
  CHECK(counts.allocated > allocated_before); /* the steps' tensors and arenas */
  CHECK(last < first);
  rxt_trainer_release(trainer);
  /* Everything the context's allocator gave came back. */
  CHECK(counts.freed == counts.allocated);
  CHECK(counts.live_bytes == 0);
}

static void test_bad_options(void) {
  rxt_context_options_t options;
  rxt_context_t* context = NULL;
  unsigned char bigger[sizeof(rxt_context_options_t) + 8];
  const char* missing[1] = {"/no/such/plugin.so"};
  const char* null_name[1] = {NULL};

  rxt_context_options_init(&options);
  options.num_threads = -2;
  CHECK_ERROR(rxt_context_create(&options, &context), RXT_INVALID_ARGUMENT, "options.num_threads is -2");
  rxt_context_options_init(&options);
  options.allocate = counted_allocate;
  CHECK_ERROR(rxt_context_create(&options, &context), RXT_INVALID_ARGUMENT, "options.deallocate is NULL");
  rxt_context_options_init(&options);
  options.plugins = missing;
  options.num_plugins = 1;
  CHECK_ERROR(rxt_context_create(&options, &context), RXT_NOT_FOUND, "/no/such/plugin.so");
  options.plugins = NULL;
  CHECK_ERROR(rxt_context_create(&options, &context), RXT_INVALID_ARGUMENT, "options.plugins is NULL");
  options.plugins = null_name;
  CHECK_ERROR(rxt_context_create(&options, &context), RXT_INVALID_ARGUMENT, "options.plugins[0] is NULL");
  /* A newer caller's struct setting a field this library does not know. */
  rxt_context_options_init(&options);
  memset(bigger, 0, sizeof bigger);
  memcpy(bigger, &options, sizeof options);
  bigger[sizeof options + 3] = 1;
  ((rxt_context_options_t*)(void*)bigger)->struct_size = sizeof bigger;
  CHECK_ERROR(rxt_context_create((const rxt_context_options_t*)(void*)bigger, &context), RXT_UNIMPLEMENTED,
              "rxt_context_options_t");
  CHECK_ERROR(rxt_context_create(NULL, NULL), RXT_INVALID_ARGUMENT, "out_context");
  CHECK_ERROR(rxt_context_load_plugin(NULL, "x.so"), RXT_INVALID_ARGUMENT, "context");
  CHECK_ERROR(rxt_context_num_threads(NULL, NULL), RXT_INVALID_ARGUMENT, "context");
  CHECK(context == NULL); /* nothing was written on failure */
  /* NULL options: the defaults. */
  CHECK_OK(rxt_context_create(NULL, &context));
  CHECK_ERROR(rxt_context_load_plugin(context, "/no/such/plugin.so"), RXT_NOT_FOUND, "/no/such/plugin.so");
  rxt_context_release(context);
}

int main(void) {
  RUN(test_defaults);
  RUN(test_two_contexts_have_their_own_threads_and_plugins);
  RUN(test_a_trainer_runs_in_its_context_with_its_allocator);
  RUN(test_bad_options);
  return check_report();
}
