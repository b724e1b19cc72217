#include "host_threads.h"

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <atomic>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>

namespace rxt::lib_dnnl {
namespace {

std::atomic<const rxt_kernel_runtime_t*> g_runtime{nullptr};

struct PartsJob {
  const std::function<void(int64_t)>* body;
  std::mutex mutex;
  std::exception_ptr error;
};

int32_t RunParts(void* closure, int64_t begin, int64_t end) {
  auto* job = static_cast<PartsJob*>(closure);
  OmpSerialScope serial(true);
  for (int64_t i = begin; i < end; ++i) {
    try {
      (*job->body)(i);
    } catch (...) {
      std::lock_guard<std::mutex> lock(job->mutex);
      if (!job->error) job->error = std::current_exception();
    }
  }
  return 0;
}

}  // namespace

void SetHostRuntime(const rxt_kernel_runtime_t* runtime) { g_runtime.store(runtime, std::memory_order_release); }

const rxt_kernel_runtime_t* HostRuntime() { return g_runtime.load(std::memory_order_acquire); }

int HostThreads() {
  const rxt_kernel_runtime_t* runtime = HostRuntime();
  if (runtime == nullptr) return 1;
  // The calling thread's pool (a context's) where the host tells it; else the process's.
  bool has_current = runtime->struct_size >= offsetof(rxt_kernel_runtime_t, current_num_threads) +
                                                 sizeof(runtime->current_num_threads) &&
                     runtime->current_num_threads != nullptr;
  return std::max(1, has_current ? runtime->current_num_threads(runtime->pool) : runtime->num_threads);
}

OmpSerialScope::OmpSerialScope(bool serial) : saved_(serial ? omp_get_max_threads() : 0) {
  if (saved_ > 1) omp_set_num_threads(1);
}

OmpSerialScope::~OmpSerialScope() {
  if (saved_ > 1) omp_set_num_threads(saved_);
}

void ParallelParts(int64_t count, const std::function<void(int64_t)>& body) {
  const rxt_kernel_runtime_t* runtime = HostRuntime();
  if (runtime == nullptr || HostThreads() < 2 || count < 2) {
    for (int64_t i = 0; i < count; ++i) body(i);
    return;
  }
  PartsJob job{&body, {}, nullptr};
  int32_t code = runtime->parallel_for(runtime->pool, count, &RunParts, &job);
  if (job.error) std::rethrow_exception(job.error);
  if (code != 0) throw std::runtime_error("the host's thread pool failed with code " + std::to_string(code));
}

BatchSplit BatchSplit::Of(int64_t images) {
  return {images, std::max<int64_t>(1, std::min<int64_t>(HostThreads(), images))};
}

std::pair<int64_t, int64_t> BatchSplit::Part(int64_t index) const {
  int64_t base = images / parts, extra = images % parts;
  return {index * base + std::min(index, extra), base + (index < extra ? 1 : 0)};
}

}  // namespace rxt::lib_dnnl
