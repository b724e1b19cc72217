// A context: the plugins, kernel threads, log and allocator that the builds, VMs and trainers
// made in it use, like ONNX Runtime's environment or IREE's instance. The default context is
// the process's (PluginHost::Global(), the thread pool sized by RXT_NUM_THREADS, warnings to
// stderr, the heap): the rxt command and every C ABI call without a context use it. Contexts
// with different threads and plugins work side by side in one process; what they share is the
// op registry (an op a plugin defines is defined for every context) and the process's extern
// functions (rxt_extern_register), which a context's own plugins' extern functions shadow.
//
//   Context context({.num_threads = 2, .plugins = {"rxt_backend_cpu.so"}, .search_path = false});
//   Session session(context);
//   Executable exec = session.Build(module);
//   RunnableExecutable run = session.CreateVM(exec);      // runs on the context's 2 threads
//   Value y = run.vm->Invoke("main", args);
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rxt/plugin/plugin_host.h"
#include "rxt/runtime/allocator.h"
#include "rxt/runtime/thread_pool.h"

namespace rxt {

struct ContextOptions {
  /// Threads of the kernels (the calling thread included); 0: the process pool's (RXT_NUM_THREADS
  /// or every core), shared with the default context.
  int num_threads = 0;
  /// Plugin files loaded when the context is made; a failure is an error.
  std::vector<std::string> plugins;
  /// Load the plugin search path when something a build needs is not loaded (false: never).
  bool search_path = true;
  /// Receives what its plugins log and what its sessions note (level RXT_LOG_INFO, source
  /// "rxt"); null: plugins' warnings and errors go to stderr, notes nowhere.
  PluginLogSink log;
  /// Where the tensors and arenas its VMs and trainers allocate come from; nullopt: the heap.
  std::optional<Allocator> allocator;
};

/// It must outlive the sessions, VMs and trainers made in it (the C ABI's handles keep theirs).
class Context {
 public:
  /// Throws what loading options.plugins throws, and kInvalidArgument for a negative thread
  /// count or an allocator without both functions.
  explicit Context(ContextOptions options = {});
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  /// The process's context; never destroyed.
  static Context& Default();

  /// Its plugin host (the default context's: PluginHost::Global()).
  PluginHost& plugins() const { return *host_; }
  /// Its own pool, or null: the calling thread's current pool (ThreadPool::Current()).
  ThreadPool* thread_pool() const { return pool_.get(); }
  /// How many threads its kernels use.
  int num_threads() const;
  /// Its allocator, or null: the calling thread's current one (Allocator::Current()).
  const Allocator* allocator() const { return options_.allocator ? &*options_.allocator : nullptr; }
  bool search_path() const { return options_.search_path; }

  /// Sends |message| to the log given in its options, if any.
  void Note(const std::string& message) const;

 private:
  struct ProcessWide {};
  explicit Context(ProcessWide);

  ContextOptions options_;
  std::unique_ptr<PluginHost> own_host_;
  PluginHost* host_;
  std::unique_ptr<ThreadPool> pool_;
};

}  // namespace rxt
