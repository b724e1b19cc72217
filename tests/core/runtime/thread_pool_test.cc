// The thread pool of compiled kernels: chunks cover the range exactly once, errors come back,
// nested loops run serially, a late worker holds nothing up, a polling or sleeping worker
// takes the next job, the call waits for every chunk, and the C view behaves like the C++ one.
#include "rxt/runtime/thread_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <mutex>
#include <chrono>
#include <thread>
#include <cstdlib>
#include <vector>

namespace rxt {
namespace {

TEST(ThreadPoolTest, EveryIndexRunsOnceForAnyExtentAndSize) {
  for (int threads : {1, 2, 3, 8}) {
    ThreadPool pool(threads);
    for (int64_t extent : {0, 1, 2, 5, 7, 64, 1000}) {
      std::vector<std::atomic<int>> hits(extent);
      EXPECT_EQ(pool.ParallelFor(extent, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) hits[i]++;
        return 0;
      }), 0);
      for (int64_t i = 0; i < extent; ++i) ASSERT_EQ(hits[i].load(), 1) << threads << " threads, extent " << extent;
    }
  }
}

TEST(ThreadPoolTest, ReturnsTheFirstErrorOfAnyChunk) {
  ThreadPool pool(4);
  int32_t code = pool.ParallelFor(100, [](int64_t b, int64_t e) { return (b <= 80 && 80 < e) ? 7 : 0; });
  EXPECT_EQ(code, 7);
  EXPECT_EQ(pool.ParallelFor(100, [](int64_t, int64_t) { return 0; }), 0);  // reusable after an error
}

TEST(ThreadPoolTest, NestedLoopsRunSeriallyAndComplete) {
  ThreadPool pool(3);
  std::atomic<int64_t> total{0};
  pool.ParallelFor(6, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      pool.ParallelFor(10, [&](int64_t ib, int64_t ie) {
        total += ie - ib;
        return 0;
      });
    }
    return 0;
  });
  EXPECT_EQ(total.load(), 60);
}

// A worker held up in its first chunk (as one that wakes late, its core busy elsewhere) does
// not hold the call up: the caller claims the remaining chunks. With a fixed chunk per thread,
// the held worker would wait for the caller and the caller for the worker (the wait gives up
// after 10 s, failing the test).
TEST(ThreadPoolTest, TheCallerTakesOverTheChunksOfAWorkerThatIsHeldUp) {
  ThreadPool pool(2);
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<int64_t> done_by_caller{0}, done{0};
  std::atomic<bool> held_worker{false}, gave_up{false};
  constexpr int64_t kExtent = 64;
  EXPECT_EQ(pool.ParallelFor(kExtent, [&](int64_t b, int64_t e) {
    if (std::this_thread::get_id() != caller && !held_worker.exchange(true)) {
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (done.load() < kExtent - (e - b)) {
        if (std::chrono::steady_clock::now() > deadline) {
          gave_up = true;
          break;
        }
        std::this_thread::yield();
      }
    }
    if (std::this_thread::get_id() == caller) done_by_caller += e - b;
    done += e - b;
    return 0;
  }), 0);
  EXPECT_FALSE(gave_up.load());
  EXPECT_EQ(done.load(), kExtent);
  if (held_worker.load()) {
    EXPECT_GT(done_by_caller.load(), kExtent / 2);
  }
}

// True if a worker runs a chunk of a two-chunk job whose chunks on the caller wait (up to
// 10 s) for that: the caller alone cannot finish the job early.
bool AWorkerJoins(ThreadPool& pool) {
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<bool> worker_ran{false};
  pool.ParallelFor(2, [&](int64_t, int64_t) {
    if (std::this_thread::get_id() != caller) {
      worker_ran = true;
      return 0;
    }
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!worker_ran.load() && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    return 0;
  });
  return worker_ran.load();
}

// Workers poll for a while after a job (jobs of a step follow each other closely), then sleep;
// either way the next job reaches them.
TEST(ThreadPoolTest, AWorkerTakesTheNextJobWhetherPollingOrAsleep) {
  ThreadPool pool(2);
  EXPECT_TRUE(AWorkerJoins(pool));  // the worker wakes from its first sleep
  EXPECT_TRUE(AWorkerJoins(pool));  // right after a job: it is polling
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // far beyond the polling time
  EXPECT_TRUE(AWorkerJoins(pool));
}

// The caller polls for the workers' last chunks for a while, then sleeps until they end;
// either way the call returns only after every chunk has ended.
TEST(ThreadPoolTest, TheCallReturnsAfterEveryChunkWhetherTheCallerPollsOrSleeps) {
  ThreadPool pool(2);
  for (int delay_us : {0, 200, 30000}) {  // the last well beyond the polling time
    std::atomic<int> ended{0};
    pool.ParallelFor(2, [&](int64_t b, int64_t) {
      if (b == 1) std::this_thread::sleep_for(std::chrono::microseconds(delay_us));
      ended++;
      return 0;
    });
    EXPECT_EQ(ended.load(), 2) << "second chunk delayed by " << delay_us << " us";
  }
}

int32_t AddChunk(void* closure, int64_t begin, int64_t end) {
  auto* sum = static_cast<std::atomic<int64_t>*>(closure);
  for (int64_t i = begin; i < end; ++i) *sum += i;
  return 0;
}

TEST(ThreadPoolTest, TheCTableCallsThePool) {
  ThreadPool pool(2);
  const rxt_kernel_runtime_t& rt = pool.runtime();
  EXPECT_EQ(rt.struct_size, sizeof(rxt_kernel_runtime_t));
  EXPECT_EQ(rt.num_threads, 2);
  std::atomic<int64_t> sum{0};
  EXPECT_EQ(rt.parallel_for(rt.pool, 101, &AddChunk, &sum), 0);
  EXPECT_EQ(sum.load(), 5050);
}

TEST(ThreadPoolTest, SizeComesFromTheEnvironment) {
  const char* old = std::getenv("RXT_NUM_THREADS");
  std::string saved = old ? old : "";
  setenv("RXT_NUM_THREADS", "3", 1);
  EXPECT_EQ(ThreadPool::DefaultNumThreads(), 3);
  setenv("RXT_NUM_THREADS", "zero", 1);  // not a number: the machine's cores
  EXPECT_GE(ThreadPool::DefaultNumThreads(), 1);
  if (old) setenv("RXT_NUM_THREADS", saved.c_str(), 1); else unsetenv("RXT_NUM_THREADS");
}

// The current pool: a Scope sets it for its thread (nested scopes restore the outer one), and
// the table plugins get (KernelRuntime) runs each loop there, so two contexts with their own
// pools share one loaded backend.
TEST(ThreadPoolTest, AScopeMakesAPoolCurrentAndThePluginTableFollowsIt) {
  ThreadPool three(3), one(1);
  const rxt_kernel_runtime_t& plugins = KernelRuntime();
  ASSERT_GE(plugins.struct_size, offsetof(rxt_kernel_runtime_t, current_num_threads) + sizeof(void*));
  EXPECT_EQ(&ThreadPool::Current(), &ThreadPool::Global());
  EXPECT_EQ(plugins.current_num_threads(plugins.pool), ThreadPool::Global().num_threads());
  {
    ThreadPool::Scope outer(&three);
    EXPECT_EQ(&ThreadPool::Current(), &three);
    EXPECT_EQ(plugins.current_num_threads(plugins.pool), 3);
    {
      ThreadPool::Scope inner(&one);
      EXPECT_EQ(plugins.current_num_threads(plugins.pool), 1);
      ThreadPool::Scope unchanged(nullptr);
      EXPECT_EQ(&ThreadPool::Current(), &one);
    }
    EXPECT_EQ(&ThreadPool::Current(), &three);
    // A loop through the plugins' table runs on the scope's pool: the caller and its workers,
    // no more than 3 threads (each chunk waits a little so that workers take some).
    std::mutex mutex;
    std::vector<std::thread::id> seen;
    auto body = [](void* closure, int64_t, int64_t) -> int32_t {
      auto* state = static_cast<std::pair<std::mutex*, std::vector<std::thread::id>*>*>(closure);
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      std::lock_guard<std::mutex> lock(*state->first);
      state->second->push_back(std::this_thread::get_id());
      return 0;
    };
    std::pair<std::mutex*, std::vector<std::thread::id>*> state{&mutex, &seen};
    EXPECT_EQ(plugins.parallel_for(plugins.pool, 12, body, &state), 0);
    std::sort(seen.begin(), seen.end());
    seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
    EXPECT_LE(seen.size(), 3u);
    EXPECT_EQ(seen.size() > 0, true);
  }
  EXPECT_EQ(&ThreadPool::Current(), &ThreadPool::Global());
  // Another thread has its own current pool.
  ThreadPool::Scope here(&three);
  ThreadPool* there = nullptr;
  std::thread([&] { there = &ThreadPool::Current(); }).join();
  EXPECT_EQ(there, &ThreadPool::Global());
}

}  // namespace
}  // namespace rxt
