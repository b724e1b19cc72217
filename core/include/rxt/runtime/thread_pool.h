// The process's thread pool for the parallel loops of compiled kernels. Its size comes from
// RXT_NUM_THREADS (default: the machine's cores); backends reach it through the C table
// rxt_kernel_runtime_t (rxt/compiled_kernel.h), which the plugin host hands to plugins.
//
//   ThreadPool pool(4);
//   pool.ParallelFor(n, [&](int64_t begin, int64_t end) { ... });   // the caller works too
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "rxt/compiled_kernel.h"

namespace rxt {

class ThreadPool {
 public:
  /// |num_threads| >= 1 counts the calling thread: a pool of 1 starts no thread.
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  /// The process-wide pool, sized by RXT_NUM_THREADS when first used.
  static ThreadPool& Global();
  /// The pool this thread's kernels use: the innermost Scope's, else Global(). A VM of a
  /// context (exec/context.h) runs its calls in a Scope of the context's pool.
  static ThreadPool& Current();

  /// Makes |pool| the current pool of this thread while it lives (null: leaves it as it is).
  class Scope {
   public:
    explicit Scope(ThreadPool* pool);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    ThreadPool* saved_;
    bool set_;
  };
  /// RXT_NUM_THREADS if set to a positive number, else the machine's cores.
  static int DefaultNumThreads();

  int num_threads() const { return num_threads_; }

  /// Splits [0, extent) into contiguous chunks (a few per thread) and runs |body| on each; the
  /// calling thread and the workers claim chunks until none is left, so a worker that starts
  /// late delays nothing. Returns the first non-zero code (in completion order). A call made
  /// from inside a body (a nested parallel loop), or while another thread uses the pool, runs
  /// serially on the calling thread.
  int32_t ParallelFor(int64_t extent, const std::function<int32_t(int64_t, int64_t)>& body);

  /// The C view of this pool, for compiled kernels.
  const rxt_kernel_runtime_t& runtime() const { return runtime_; }

 private:
  static constexpr int kChunksPerThread = 4;
  /// How long a worker polls for the next job, and the caller for the end of its job, before
  /// sleeping. A training step's kernels follow each other within microseconds, and waking a
  /// sleeping thread (a futex wake, on a VM an inter-processor interrupt to a halted vCPU:
  /// 10-20 us measured) can cost more than a small job.
  static constexpr int kSpinMicroseconds = 1000;

  void WorkerLoop();
  /// Polls for a job newer than |seen| for up to kSpinMicroseconds.
  void PollForJob(uint64_t seen) const;
  /// Claims and runs chunks of the current job until none is left.
  void RunChunks();
  /// The current job's chunks have all run and no worker is inside it.
  bool JobDone() const;
  /// Wakes a caller that sleeps in ParallelFor waiting for JobDone().
  void NotifyDone();

  int num_threads_;
  rxt_kernel_runtime_t runtime_{};
  std::vector<std::thread> workers_;
  std::mutex busy_;  // held by the thread whose loop the workers run

  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable work_done_;
  const std::function<int32_t(int64_t, int64_t)>* body_ = nullptr;
  int64_t extent_ = 0;
  int chunks_ = 0;
  std::atomic<int> next_chunk_{0};  // the next chunk to claim
  std::atomic<int> unfinished_{0};  // chunks not yet run to the end
  std::atomic<int> in_flight_{0};   // workers inside RunChunks (joined under mutex_)
  bool job_open_ = false;
  std::atomic<uint64_t> generation_{0};  // changed under mutex_, polled without it by workers
  int sleeping_ = 0;                     // workers waiting on work_ready_
  int32_t first_error_ = 0;
  bool stopping_ = false;
};

/// What the plugin host hands to plugins: a table that runs each parallel loop on the calling
/// thread's current pool (ThreadPool::Current()), so one loaded backend serves every context.
/// Its num_threads is the global pool's; current_num_threads tells the current pool's.
const rxt_kernel_runtime_t& KernelRuntime();

}  // namespace rxt
