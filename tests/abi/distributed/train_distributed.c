/* Data-parallel training through the C ABI under a communicator the program made itself: MPI is
 * initialized here, the ranks split off a communicator of their own (MPI_Comm_split) and hand it
 * to rxt (rxt_comm_create's |external|). Built against librxt and against librxt_runtime (CTest
 * runs both under mpirun -np 2):
 *
 *   train_distributed SHARD.rxtt WHOLE.rxtt
 *
 * SHARD.rxtt: the seed MLP for 64 / ranks samples, built with --data-parallel --accumulate;
 * WHOLE.rxtt: the same for 64 samples, plain; both with the same initial values. Each rank trains
 * its share of 8 batches on SHARD and, as the reference, every whole batch on WHOLE: the losses
 * and, at the end, the parameters agree (float32 tolerance), and after every step the
 * parameters are bit-identical on every rank (their hashes). Then one accumulated step, and the
 * refusals: an unknown collective, a plain trainer on several ranks. */
#include <dlpack/dlpack.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../borrowed_tensor.h"
#include "rxt/rxt.h"

#define BATCH 64
#define FEATURES 784

static int rank_, size_;

static void die(const char* what, rxt_status_t status) {
  fprintf(stderr, "train_distributed: rank %d: %s: %s\n", rank_, what, status != NULL ? rxt_status_message(status) : "failed");
  rxt_status_free(status);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

#define CHECK(call)                  \
  do {                               \
    rxt_status_t status_ = (call);   \
    if (status_ != NULL) die(#call, status_); \
  } while (0)

/* Batch |step|: deterministic pixels in [0, 1) and labels. */
static void make_batch(int step, float* x, int64_t* y) {
  for (int i = 0; i < BATCH; ++i) {
    for (int j = 0; j < FEATURES; ++j) x[i * FEATURES + j] = (float)(0.5 + 0.5 * sin(0.001 * (i * FEATURES + j) + step));
    y[i] = (i * 7 + step) % 10;
  }
}

/* Rows rank, rank + size, ... of the batch (DistributedSampler's share). */
static void shard(const float* x, const int64_t* y, float* xs, int64_t* ys) {
  int k = 0;
  for (int i = rank_; i < BATCH; i += size_, ++k) {
    memcpy(xs + (size_t)k * FEATURES, x + (size_t)i * FEATURES, FEATURES * sizeof(float));
    ys[k] = y[i];
  }
}

static double update(rxt_trainer_t* t, float* x, int64_t* y, int rows, int accumulate) {
  int64_t xshape[2] = {rows, FEATURES}, yshape[1] = {rows};
  DLManagedTensor xt = borrowed_tensor(x, kDLFloat, 32, 2, xshape), yt = borrowed_tensor(y, kDLInt, 64, 1, yshape);
  DLManagedTensor* in[1] = {&xt};
  DLManagedTensor* tg[1] = {&yt};
  double loss = 0;
  if (accumulate) {
    CHECK(rxt_trainer_accumulate(t, in, 1, tg, 1, NULL));
    CHECK(rxt_trainer_apply_accumulated(t, &loss));
  } else {
    CHECK(rxt_trainer_update(t, in, 1, tg, 1, &loss));
  }
  return loss;
}

/* FNV-1a of every parameter's bytes, and the largest difference from |other|'s (if given). */
static uint64_t params_hash(const rxt_trainer_t* t, const rxt_trainer_t* other, double* max_diff) {
  size_t n = 0;
  uint64_t h = 1469598103934665603ull;
  CHECK(rxt_trainer_count(t, RXT_TRAINER_PARAMS, &n));
  if (max_diff != NULL) *max_diff = 0;
  for (size_t i = 0; i < n; ++i) {
    DLManagedTensor *p = NULL, *q = NULL;
    CHECK(rxt_trainer_get(t, RXT_TRAINER_PARAMS, i, &p));
    int64_t count = 1;
    for (int d = 0; d < p->dl_tensor.ndim; ++d) count *= p->dl_tensor.shape[d];
    const unsigned char* bytes = p->dl_tensor.data;
    for (int64_t b = 0; b < count * 4; ++b) h = (h ^ bytes[b]) * 1099511628211ull;
    if (other != NULL) {
      CHECK(rxt_trainer_get(other, RXT_TRAINER_PARAMS, i, &q));
      for (int64_t k = 0; k < count; ++k) {
        double d = fabs((double)((float*)p->dl_tensor.data)[k] - (double)((float*)q->dl_tensor.data)[k]);
        if (d > *max_diff) *max_diff = d;
      }
      q->deleter(q);
    }
    p->deleter(p);
  }
  return h;
}

static void same_on_every_rank(uint64_t value, MPI_Comm comm, int step) {
  unsigned long long mine = value, low = 0, high = 0;
  MPI_Allreduce(&mine, &low, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, comm);
  MPI_Allreduce(&mine, &high, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm);
  if (low != high) {
    fprintf(stderr, "train_distributed: rank %d: the parameters differ between ranks after step %d\n", rank_, step);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: train_distributed SHARD.rxtt WHOLE.rxtt\n");
    return 2;
  }
  MPI_Init(&argc, &argv);
  MPI_Comm mine;
  int world_rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_split(MPI_COMM_WORLD, 0, world_rank, &mine);  /* the program's own communicator */
  MPI_Comm_rank(mine, &rank_);
  MPI_Comm_size(mine, &size_);

  rxt_trainer_t *shard_trainer = NULL, *whole = NULL;
  CHECK(rxt_trainer_load(argv[1], NULL, &shard_trainer));
  CHECK(rxt_trainer_load(argv[2], NULL, &whole));
  rxt_comm_t* comm = NULL;
  CHECK(rxt_comm_create(NULL, "mpi", NULL, &mine, &comm));
  int32_t r = -1, s = -1;
  CHECK(rxt_comm_rank(comm, &r));
  CHECK(rxt_comm_size(comm, &s));
  if (r != rank_ || s != size_) die("rank and size", NULL);
  CHECK(rxt_trainer_set_comm(shard_trainer, comm));

  int rows = BATCH / size_;
  float* x = malloc(sizeof(float) * BATCH * FEATURES);
  float* xs = malloc(sizeof(float) * BATCH * FEATURES);
  int64_t y[BATCH], ys[BATCH];
  double max_diff = 0, worst_loss = 0;
  for (int step = 0; step < 9; ++step) {
    make_batch(step, x, y);
    shard(x, y, xs, ys);
    double loss = update(whole, x, y, BATCH, 0);
    /* The last step accumulates (one micro-batch), combined over the ranks when applied. */
    double reduced = update(shard_trainer, xs, ys, rows, step == 8);
    double diff = fabs(loss - reduced) / fmax(1.0, fabs(loss));
    if (diff > worst_loss) worst_loss = diff;
    same_on_every_rank(params_hash(shard_trainer, NULL, NULL), mine, step);
  }
  params_hash(shard_trainer, whole, &max_diff);
  if (worst_loss > 1e-5 || max_diff > 1e-5) {
    fprintf(stderr, "train_distributed: rank %d: %d ranks differ from one whole batch: loss %g, params %g\n", rank_,
            size_, worst_loss, max_diff);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }

  /* Refusals, each an error status with its message. */
  rxt_comm_t* none = NULL;
  rxt_status_t st = rxt_comm_create(NULL, "nccl9", NULL, NULL, &none);
  if (st == NULL || rxt_status_code(st) != RXT_NOT_FOUND || strstr(rxt_status_message(st), "no collective named 'nccl9'") == NULL) {
    die("an unknown collective was not refused", st);
  }
  rxt_status_free(st);
  if (size_ > 1) {
    st = rxt_trainer_set_comm(whole, comm);
    if (st == NULL || rxt_status_code(st) != RXT_FAILED_PRECONDITION) die("a plain trainer was accepted on several ranks", st);
    rxt_status_free(st);
  }
  st = rxt_trainer_apply_accumulated(shard_trainer, NULL);
  if (st == NULL || rxt_status_code(st) != RXT_FAILED_PRECONDITION) die("applying nothing was accepted", st);
  rxt_status_free(st);

  if (rank_ == 0) {
    printf("train_distributed: %d ranks x %d samples == 1 x %d: loss within %.2g, parameters within %.2g; "
           "bit-identical on every rank after every step\n", size_, rows, BATCH, worst_loss, max_diff);
  }
  rxt_comm_release(comm);
  rxt_trainer_release(shard_trainer);
  rxt_trainer_release(whole);
  free(x);
  free(xs);
  MPI_Comm_free(&mine);
  MPI_Finalize();
  return 0;
}
