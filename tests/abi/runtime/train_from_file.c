/* Goes on training from a trainer file with whichever C ABI library it is linked against:
 * librxt_runtime.so (the runtime alone) or librxt.so (with the compiler). CTest builds it
 * against both, and runtime_test.cmake checks that the two give the same bytes.
 *
 *   train_from_file TRAINER.rxtt IMAGES.gz LABELS.gz NUM_IMAGES BATCH OUT.safetensors [--no-compiler] [--losses]
 *
 * Trains on the first NUM_IMAGES images of an IDX pair (Fashion-MNIST: pixels / 255 as float32,
 * labels as int64 class indices), one pass in order, then saves the parameters as a checkpoint
 * at OUT (a trainer file if OUT ends in .rxtt: tests/bindings compares it with Rust's and Go's). Prints the loss of the first and last steps and the time from the process's start to
 * the end of the first step. With --no-compiler it also fails if the process maps libLLVM,
 * librxt.so or a backend plugin (/proc/self/maps); with --losses it prints every step's loss
 * ("loss STEP VALUE", 9 significant digits). Built with RXT_TRAIN_RAW_IDX (the cross build of
 * cmake/RxtRuntimeOnly.cmake, which has no zlib) it reads IDX files decompressed beforehand. */
#define _GNU_SOURCE /* CLOCK_BOOTTIME */
#include <dlpack/dlpack.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifndef RXT_TRAIN_RAW_IDX
#include <zlib.h>
#endif

#include "../borrowed_tensor.h"
#include "rxt/rxt.h"

static int fail(const char* what, rxt_status_t status) {
  fprintf(stderr, "train_from_file: %s: %s\n", what, status != NULL ? rxt_status_message(status) : "failed");
  rxt_status_free(status);
  return 1;
}

#ifdef RXT_TRAIN_RAW_IDX
/* The file's first |limit| bytes (0: all of it), or NULL. */
static unsigned char* read_gz(const char* path, size_t limit, size_t* size) {
  FILE* file = fopen(path, "rb");
  long length;
  unsigned char* data;
  if (file == NULL || fseek(file, 0, SEEK_END) != 0 || (length = ftell(file)) < 0 || fseek(file, 0, SEEK_SET) != 0) {
    if (file != NULL) fclose(file);
    return NULL;
  }
  if (limit == 0 || limit > (size_t)length) limit = (size_t)length;
  data = malloc(limit > 0 ? limit : 1);
  *size = data != NULL ? fread(data, 1, limit, file) : 0;
  fclose(file);
  return data;
}
#else
/* The decompressed file's first |limit| bytes (0: all of it), or NULL. */
static unsigned char* read_gz(const char* path, size_t limit, size_t* size) {
  gzFile file = gzopen(path, "rb");
  size_t capacity = limit > 0 ? limit : 1 << 20, used = 0;
  unsigned char* data = malloc(capacity);
  int n;
  if (file == NULL || data == NULL) return NULL;
  while (used < capacity && (n = gzread(file, data + used, (unsigned)(capacity - used))) > 0) {
    if (limit > 0) {
      used += (size_t)n;
      continue;
    }
    used += (size_t)n;
    if (used == capacity) {
      unsigned char* bigger = realloc(data, capacity *= 2);
      if (bigger == NULL) break;
      data = bigger;
    }
  }
  gzclose(file);
  *size = used;
  return data;
}
#endif

static uint32_t big_endian(const unsigned char* p) {
  return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

/* Whether |images| and |labels| are an IDX pair of 28x28 images with |count| of each. */
static int idx_pair_ok(const unsigned char* images, size_t image_bytes, const unsigned char* labels,
                       size_t label_bytes, long count) {
  return images != NULL && labels != NULL && image_bytes >= 16 + (size_t)count * 784 &&
         label_bytes >= 8 + (size_t)count && big_endian(images) == 2051 && big_endian(labels) == 2049 &&
         (long)big_endian(images + 4) >= count && (long)big_endian(labels + 4) >= count &&
         big_endian(images + 8) == 28 && big_endian(images + 12) == 28;
}

/* Seconds since the process started: now on the boot clock, less the process's start time
 * (/proc/self/stat, in clock ticks of 10 ms: the figure is good to 10 ms). */
static double since_process_start(void) {
  FILE* stat = fopen("/proc/self/stat", "r");
  char buffer[4096];
  struct timespec now;
  double uptime;
  unsigned long long start_ticks = 0;
  size_t n;
  char* p;
  int field;
  if (stat == NULL || clock_gettime(CLOCK_BOOTTIME, &now) != 0) return -1;
  uptime = (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
  n = fread(buffer, 1, sizeof buffer - 1, stat);
  buffer[n] = '\0';
  fclose(stat);
  /* Field 22 (starttime), counted after the command's closing parenthesis (field 2). */
  p = strrchr(buffer, ')');
  for (field = 2; p != NULL && field < 22; ++field) p = strchr(p + 1, ' ');
  if (p == NULL || sscanf(p + 1, "%llu", &start_ticks) != 1) return -1;
  return uptime - (double)start_ticks / 100.0; /* USER_HZ is 100 on Linux */
}

/* 1 if a line of /proc/self/maps names one of |names|. */
static int maps_any(const char* const* names, int count, char* found, size_t found_size) {
  FILE* maps = fopen("/proc/self/maps", "r");
  char line[4096];
  int i, hit = 0;
  if (maps == NULL) return 0;
  while (!hit && fgets(line, sizeof line, maps) != NULL) {
    for (i = 0; i < count; ++i) {
      if (strstr(line, names[i]) != NULL) {
        snprintf(found, found_size, "%s", line);
        hit = 1;
      }
    }
  }
  fclose(maps);
  return hit;
}


int main(int argc, char** argv) {
  const char* const compiler_libraries[] = {"libLLVM", "/librxt.so", "rxt_backend_"};
  rxt_trainer_t* trainer = NULL;
  rxt_status_t s;
  size_t image_bytes = 0, label_bytes = 0;
  unsigned char *images, *labels;
  long num_images, batch, step, steps, i, j;
  float* x;
  int64_t* y;
  int64_t x_shape[2], y_shape[1];
  double loss = 0, first_loss = 0, first_step_done = -1;
  char found[4096];
  int no_compiler = 0, print_losses = 0, flag;
  for (flag = 7; flag < argc; ++flag) {
    if (strcmp(argv[flag], "--no-compiler") == 0) {
      no_compiler = 1;
    } else if (strcmp(argv[flag], "--losses") == 0) {
      print_losses = 1;
    } else {
      argc = 0; /* an unknown flag: the usage */
    }
  }
  if (argc < 7) {
    fprintf(stderr,
            "usage: %s TRAINER.rxtt IMAGES.gz LABELS.gz NUM_IMAGES BATCH OUT.safetensors [--no-compiler] [--losses]\n",
            argv[0]);
    return 2;
  }
  num_images = atol(argv[4]);
  batch = atol(argv[5]);
  if (batch <= 0 || num_images < batch) {
    fprintf(stderr, "train_from_file: NUM_IMAGES must be at least BATCH > 0\n");
    return 2;
  }
  /* What a deployed program does first: load the trainer and train on the first batch (read
   * alone); the rest of the data set is read after that step. */
  if ((s = rxt_trainer_load(argv[1], NULL, &trainer)) != NULL) return fail(argv[1], s);
  images = read_gz(argv[2], 16 + (size_t)batch * 784, &image_bytes);
  labels = read_gz(argv[3], 8 + (size_t)batch, &label_bytes);

  if (!idx_pair_ok(images, image_bytes, labels, label_bytes, batch)) {
    fprintf(stderr, "train_from_file: %s / %s are not Fashion-MNIST IDX files\n", argv[2], argv[3]);
    return 1;
  }
  x = malloc(sizeof(float) * (size_t)batch * 784);
  y = malloc(sizeof(int64_t) * (size_t)batch);
  x_shape[0] = batch;
  x_shape[1] = 784;
  y_shape[0] = batch;
  steps = num_images / batch;
  for (step = 0; step < steps; ++step) {
    DLManagedTensor xt = borrowed_tensor(x, kDLFloat, 32, 2, x_shape), yt = borrowed_tensor(y, kDLInt, 64, 1, y_shape);
    DLManagedTensor* inputs[1];
    DLManagedTensor* targets[1];
    inputs[0] = &xt;
    targets[0] = &yt;
    for (i = 0; i < batch; ++i) {
      const unsigned char* pixels = images + 16 + (size_t)(step * batch + i) * 784;
      for (j = 0; j < 784; ++j) x[i * 784 + j] = (float)pixels[j] / 255.0f;
      y[i] = labels[8 + step * batch + i];
    }
    if ((s = rxt_trainer_update(trainer, inputs, 1, targets, 1, &loss)) != NULL) return fail("update", s);
    if (print_losses) printf("loss %ld %.9g\n", step, loss);
    if (step == 0) {
      first_loss = loss;
      first_step_done = since_process_start();
      free(images);
      free(labels);
      images = read_gz(argv[2], 0, &image_bytes);
      labels = read_gz(argv[3], 0, &label_bytes);
      if (!idx_pair_ok(images, image_bytes, labels, label_bytes, num_images)) {
        fprintf(stderr, "train_from_file: %s / %s hold fewer than %ld images\n", argv[2], argv[3], num_images);
        return 1;
      }
    }
  }
  {
    size_t length = strlen(argv[6]);
    int trainer_file = length > 5 && strcmp(argv[6] + length - 5, ".rxtt") == 0;
    s = trainer_file ? rxt_trainer_save(trainer, argv[6]) : rxt_trainer_save_checkpoint(trainer, argv[6]);
    if (s != NULL) return fail(argv[6], s);
  }
  printf("steps %ld, loss %.6f -> %.6f, first step done %.3f s after the process started\n", steps, first_loss, loss,
         first_step_done);
  if (no_compiler && maps_any(compiler_libraries, 3, found, sizeof found)) {
    fprintf(stderr, "train_from_file: the process maps the compiler or LLVM: %s", found);
    return 1;
  }
  rxt_trainer_release(trainer);
  free(x);
  free(y);
  free(images);
  free(labels);
  return 0;
}
