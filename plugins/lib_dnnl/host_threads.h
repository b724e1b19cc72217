// The host's thread pool as the plugin uses it. rxt hands every plugin its pool
// (host_api->kernel_runtime); the plugin runs its GEMM blocks, batch parts of convolutions and
// its own loops on it, each part on one thread with oneDNN's OpenMP team at one thread. So one
// set of threads (sized by RXT_NUM_THREADS) runs generated kernels and library calls alike,
// instead of rxt's pool and OpenMP's team waiting on each other's cores, and a thread that
// starts late leaves its parts to the others (the pool's chunks are claimed, not assigned).
#pragma once

#include <cstdint>
#include <functional>
#include <utility>

#include "rxt/compiled_kernel.h"

namespace rxt::lib_dnnl {

/// Set once by the plugin entry; null with a host that has no pool.
void SetHostRuntime(const rxt_kernel_runtime_t* runtime);
const rxt_kernel_runtime_t* HostRuntime();
/// The pool's threads (1 without a pool).
int HostThreads();

/// Runs the calling thread's OpenMP team at one thread for its lifetime, if |serial|.
class OmpSerialScope {
 public:
  explicit OmpSerialScope(bool serial);
  ~OmpSerialScope();
  OmpSerialScope(const OmpSerialScope&) = delete;
  OmpSerialScope& operator=(const OmpSerialScope&) = delete;

 private:
  int saved_;
};

/// Runs body(i) for every i in [0, count) on the host's pool, each with OpenMP's team at one
/// thread; on the calling thread alone when there is no pool or one part. Rethrows the first
/// exception a body threw, after every part has ended.
void ParallelParts(int64_t count, const std::function<void(int64_t)>& body);

/// |images| cut into HostThreads() parts at most, of sizes that differ by one at most.
struct BatchSplit {
  int64_t images, parts;
  static BatchSplit Of(int64_t images);
  /// (first image, count) of part |index|.
  std::pair<int64_t, int64_t> Part(int64_t index) const;
};

}  // namespace rxt::lib_dnnl
