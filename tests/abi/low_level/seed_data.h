/* The inputs of seed_low_level.c and seed_low_level.cc, computed the same way in both: a batch
 * of 64 "images" and labels, and the six parameters of the seed MLP. Also the hash of the
 * results they print. */
#ifndef RXT_TESTS_ABI_LOW_LEVEL_SEED_DATA_H
#define RXT_TESTS_ABI_LOW_LEVEL_SEED_DATA_H

#include <dlpack/dlpack.h>
#include <stdint.h>
#include <string.h>

#include "../borrowed_tensor.h"

typedef struct {
  float x[64 * 784];
  int64_t y[64];
  float w0[784 * 128], b0[128], w1[128 * 128], b1[128], w2[128 * 10], b2[10];
  int64_t x_shape[2], y_shape[1], param_shapes[6][2];
  DLManagedTensor x_tensor, y_tensor, param_tensors[6];
} seed_data_t;


static void seed_data_init(seed_data_t* d) {
  float* params[6];
  const int64_t dims[6][2] = {{784, 128}, {128, 0}, {128, 128}, {128, 0}, {128, 10}, {10, 0}};
  int64_t i, k;
  params[0] = d->w0, params[1] = d->b0, params[2] = d->w1, params[3] = d->b1, params[4] = d->w2, params[5] = d->b2;
  for (i = 0; i < 64 * 784; ++i) d->x[i] = (float)((i * 7919) % 255) / 255.0f;
  for (i = 0; i < 64; ++i) d->y[i] = (i * 7) % 10;
  d->x_shape[0] = 64, d->x_shape[1] = 784, d->y_shape[0] = 64;
  d->x_tensor = borrowed_tensor(d->x, kDLFloat, 32, 2, d->x_shape);
  d->y_tensor = borrowed_tensor(d->y, kDLInt, 64, 1, d->y_shape);
  for (k = 0; k < 6; ++k) {
    int ndim = dims[k][1] == 0 ? 1 : 2;
    int64_t count = ndim == 1 ? dims[k][0] : dims[k][0] * dims[k][1];
    for (i = 0; i < count; ++i) params[k][i] = (float)((i * 31 + k * 17) % 101 - 50) / 1000.0f;
    d->param_shapes[k][0] = dims[k][0], d->param_shapes[k][1] = dims[k][1];
    d->param_tensors[k] = borrowed_tensor(params[k], kDLFloat, 32, ndim, d->param_shapes[k]);
  }
}

static uint64_t fnv1a(uint64_t hash, const void* data, size_t size) {
  const unsigned char* p = (const unsigned char*)data;
  size_t i;
  for (i = 0; i < size; ++i) hash = (hash ^ p[i]) * 1099511628211ull;
  return hash;
}

static size_t tensor_bytes(const DLTensor* t) {
  size_t n = (size_t)(t->dtype.bits / 8);
  int d;
  for (d = 0; d < t->ndim; ++d) n *= (size_t)t->shape[d];
  return n;
}

#endif
