#include "rxt/runtime/thread_pool.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>

namespace rxt {
namespace {

thread_local bool t_inside_parallel_body = false;
thread_local ThreadPool* t_current_pool = nullptr;  // set by ThreadPool::Scope

// Tells the core this thread is spinning (less power, and the other hyper-thread runs).
void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  std::this_thread::yield();
#endif
}

int32_t CParallelFor(void* pool, int64_t extent, rxt_parallel_body_fn body, void* closure) {
  std::function<int32_t(int64_t, int64_t)> fn = [body, closure](int64_t b, int64_t e) { return body(closure, b, e); };
  return static_cast<ThreadPool*>(pool)->ParallelFor(extent, fn);
}
int32_t CNumThreads(void* pool) { return static_cast<ThreadPool*>(pool)->num_threads(); }

// The dispatching table of KernelRuntime(): its pool pointer is ignored.
int32_t CurrentParallelFor(void*, int64_t extent, rxt_parallel_body_fn body, void* closure) {
  return CParallelFor(&ThreadPool::Current(), extent, body, closure);
}
int32_t CurrentNumThreads(void*) { return ThreadPool::Current().num_threads(); }

// The chunk |index| of |chunks| over [0, extent): sizes differ by at most one.
std::pair<int64_t, int64_t> Chunk(int64_t extent, int chunks, int index) {
  int64_t base = extent / chunks, extra = extent % chunks;
  int64_t begin = index * base + std::min<int64_t>(index, extra);
  return {begin, begin + base + (index < extra ? 1 : 0)};
}

}  // namespace

int ThreadPool::DefaultNumThreads() {
  if (const char* env = std::getenv("RXT_NUM_THREADS")) {
    try {
      int n = std::stoi(env);
      if (n > 0) return n;
    } catch (...) {
      // Not a number: fall through to the machine's cores.
    }
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

ThreadPool& ThreadPool::Global() {
  static ThreadPool* pool = new ThreadPool(DefaultNumThreads());  // never destroyed: kernels may run at exit
  return *pool;
}

ThreadPool& ThreadPool::Current() { return t_current_pool != nullptr ? *t_current_pool : Global(); }

ThreadPool::Scope::Scope(ThreadPool* pool) : saved_(t_current_pool), set_(pool != nullptr) {
  if (set_) t_current_pool = pool;
}
ThreadPool::Scope::~Scope() {
  if (set_) t_current_pool = saved_;
}

const rxt_kernel_runtime_t& KernelRuntime() {
  static const rxt_kernel_runtime_t runtime = [] {
    rxt_kernel_runtime_t r{};
    r.struct_size = sizeof(rxt_kernel_runtime_t);
    r.pool = nullptr;
    r.parallel_for = &CurrentParallelFor;
    r.num_threads = ThreadPool::Global().num_threads();
    r.current_num_threads = &CurrentNumThreads;
    return r;
  }();
  return runtime;
}

ThreadPool::ThreadPool(int num_threads) : num_threads_(std::max(1, num_threads)) {
  runtime_.struct_size = sizeof(rxt_kernel_runtime_t);
  runtime_.pool = this;
  runtime_.parallel_for = &CParallelFor;
  runtime_.num_threads = num_threads_;
  runtime_.current_num_threads = &CNumThreads;
  for (int i = 1; i < num_threads_; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    ++generation_;  // ends the polling of a worker between jobs
  }
  work_ready_.notify_all();
  for (std::thread& t : workers_) t.join();
}

// The range is cut into up to kChunksPerThread chunks per thread, claimed one at a time from
// an atomic counter by the caller and the workers alike: a worker that wakes late (the cores
// busy with another process, or with a library's own threads) leaves its chunks to the others
// instead of holding the call. Each iteration runs exactly once whoever claims it, so the
// results do not depend on the schedule.
int32_t ThreadPool::ParallelFor(int64_t extent, const std::function<int32_t(int64_t, int64_t)>& body) {
  if (extent <= 0) return 0;
  int chunks = static_cast<int>(std::min<int64_t>(int64_t{num_threads_} * kChunksPerThread, extent));
  std::unique_lock<std::mutex> busy(busy_, std::defer_lock);
  if (num_threads_ == 1 || chunks == 1 || t_inside_parallel_body || !busy.try_lock()) return body(0, extent);
  bool wake = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    body_ = &body;
    extent_ = extent;
    chunks_ = chunks;
    next_chunk_.store(0, std::memory_order_relaxed);
    unfinished_.store(chunks, std::memory_order_relaxed);
    first_error_ = 0;
    job_open_ = true;
    ++generation_;
    wake = sleeping_ > 0;  // polling workers see the new generation without a wake-up
  }
  if (wake) work_ready_.notify_all();
  t_inside_parallel_body = true;
  RunChunks();
  t_inside_parallel_body = false;
  // The workers' last chunks usually end within microseconds of the caller's: poll for them
  // rather than sleep (being woken costs more than that on a VM), up to kSpinMicroseconds.
  auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(kSpinMicroseconds);
  for (int polls = 1; !JobDone(); ++polls) {
    CpuRelax();
    if (polls % 64 == 0 && std::chrono::steady_clock::now() > until) break;
  }
  std::unique_lock<std::mutex> lock(mutex_);
  work_done_.wait(lock, [this] { return JobDone(); });
  job_open_ = false;  // a worker waking from now on finds nothing to do
  body_ = nullptr;
  return first_error_;
}

bool ThreadPool::JobDone() const {
  return unfinished_.load(std::memory_order_acquire) == 0 && in_flight_.load(std::memory_order_acquire) == 0;
}

void ThreadPool::NotifyDone() {
  // Taking the mutex orders this after a caller's check of JobDone() under it: no lost wake-up.
  { std::lock_guard<std::mutex> lock(mutex_); }
  work_done_.notify_all();
}

void ThreadPool::RunChunks() {
  for (;;) {
    int chunk = next_chunk_.fetch_add(1, std::memory_order_relaxed);
    if (chunk >= chunks_) return;
    auto [begin, end] = Chunk(extent_, chunks_, chunk);
    int32_t code = (*body_)(begin, end);
    if (code != 0) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (first_error_ == 0) first_error_ = code;
    }
    if (unfinished_.fetch_sub(1, std::memory_order_acq_rel) == 1) NotifyDone();
  }
}

void ThreadPool::PollForJob(uint64_t seen) const {
  auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(kSpinMicroseconds);
  for (int polls = 1; generation_.load(std::memory_order_acquire) == seen; ++polls) {
    CpuRelax();
    if (polls % 64 == 0 && std::chrono::steady_clock::now() > until) return;
  }
}

void ThreadPool::WorkerLoop() {
  uint64_t seen = 0;
  t_inside_parallel_body = true;  // a worker's nested loops run serially
  for (;;) {
    PollForJob(seen);
    std::unique_lock<std::mutex> lock(mutex_);
    ++sleeping_;
    work_ready_.wait(lock, [&] { return stopping_ || generation_ != seen; });
    --sleeping_;
    if (stopping_) return;
    seen = generation_;
    if (!job_open_) continue;
    in_flight_.fetch_add(1, std::memory_order_relaxed);  // the caller waits for this worker before it closes the job
    lock.unlock();
    RunChunks();
    if (in_flight_.fetch_sub(1, std::memory_order_acq_rel) == 1) NotifyDone();
  }
}

}  // namespace rxt
