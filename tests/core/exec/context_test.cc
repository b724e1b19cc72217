// Contexts (exec/context.h): two of them, with their own threads and plugin sets, build, run
// and train side by side in one process; a context's log gets its sessions' notes; its
// allocator serves what its VMs allocate. They are meant to run under ThreadSanitizer too
// (README: RXT_SANITIZE=thread).
#include "rxt/exec/context.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "rxt/exec/session.h"
#include "rxt/ir/parser.h"

namespace rxt {
namespace {

const std::string kPlugins = RXT_BUILD_PLUGIN_DIR;
const std::string kTraining[] = {RXT_GRAD_STD_PLUGIN, RXT_LOSS_STD_PLUGIN, RXT_OPTIM_STD_PLUGIN};

// How many threads the kernels of the calling context use, as a plugin's extern function sees
// it (tests/plugins/fixtures/extern_plugin.c).
const char* kThreadsModule = R"(
def @threads(%x: Tensor((), int64)) -> Tensor((), int64) {
  %n = call_extern("test.num_threads", (%x,), out_sinfo=Tensor((), int64))
  return %n
})";

const char* kBackbone = R"(
attributes {param_num = 2, state_num = 0}
def @backbone(%x: Tensor((8, 16), float32), %w: Tensor((16, 4), float32), %b: Tensor((4,), float32))
    -> Tensor((8, 4), float32) {
  dataflow {
    %h = matmul(%x, %w)
    %out = add(%h, %b)
    output %out
  }
  return %out
})";

Tensor Ramp(std::vector<int64_t> shape, float start, float step) {
  Tensor t = Tensor::Empty(std::move(shape), DType::kFloat32);
  for (int64_t i = 0; i < t.numel(); ++i) t.data_as<float>()[i] = start + static_cast<float>(i % 13) * step;
  return t;
}

/// Collects what a context logs.
struct LogLines {
  std::mutex mutex;
  std::vector<std::string> lines;
  PluginLogSink Sink() {
    return [this](rxt_log_level_t, const std::string& source, const std::string& message) {
      std::lock_guard<std::mutex> lock(mutex);
      lines.push_back(source + ": " + message);
    };
  }
  bool Has(const std::string& text) {
    std::lock_guard<std::mutex> lock(mutex);
    for (const std::string& line : lines) {
      if (line.find(text) != std::string::npos) return true;
    }
    return false;
  }
};

ContextOptions Options(int threads, std::vector<std::string> plugins, LogLines& log) {
  for (const std::string& p : kTraining) plugins.push_back(p);
  plugins.push_back(RXT_TEST_EXTERN_PLUGIN);
  return {.num_threads = threads, .plugins = std::move(plugins), .search_path = false, .log = log.Sink()};
}

/// What one context does: asks its kernels' thread count, then trains the backbone.
struct ContextRun {
  int64_t threads = 0;
  std::vector<std::string> libraries;
  std::vector<float> losses;
};

ContextRun Work(Context& context) {
  ContextRun run;
  Session session(context);
  RunnableExecutable vm = session.CreateVM(session.Build(ParseModule(kThreadsModule), {.opt_level = 0}));
  run.threads = vm.vm->Invoke("threads", {Value(Tensor::Empty({}, DType::kInt64))}).tensor().data_as<int64_t>()[0];

  std::unique_ptr<Trainer> trainer = session.CreateTrainer(
      ParseModule(kBackbone), {.loss = {"mse", "reduction=\"sum\""}, .optimizer = {"sgd", "lr=0.001"}});
  run.libraries = session.last_build().libraries;
  trainer->InitXavierUniform(7);
  Tensor x = Ramp({8, 16}, -0.5f, 0.08f);
  Tensor y = Ramp({8, 4}, 0.3f, -0.05f);
  for (int step = 0; step < 30; ++step) run.losses.push_back(trainer->Update({x}, {y}).data_as<float>()[0]);
  return run;
}

TEST(Context, TwoContextsWithTheirOwnThreadsAndPluginsBuildRunAndTrainSideBySide) {
  LogLines log_a, log_b;
  // A: one thread, the cpu backend with its dnnl library. B: two threads, the cpu backend
  // without it. Both load the same extern plugin, each into its own registry.
  Context a(Options(1, {kPlugins + "/rxt_backend_cpu.so", kPlugins + "/rxt_lib_dnnl.so"}, log_a));
  Context b(Options(2, {kPlugins + "/rxt_backend_cpu.so"}, log_b));
  EXPECT_EQ(a.num_threads(), 1);
  EXPECT_EQ(b.num_threads(), 2);
  EXPECT_TRUE(a.plugins().Find(PluginItemKind::kLibrary, "dnnl"));
  EXPECT_FALSE(b.plugins().Find(PluginItemKind::kLibrary, "dnnl"));

  // Alone first, then both at once from two threads: the same answers.
  ContextRun alone_a = Work(a);
  ContextRun alone_b = Work(b);
  ContextRun together_a, together_b;
  std::thread ta([&] { together_a = Work(a); });
  std::thread tb([&] { together_b = Work(b); });
  ta.join();
  tb.join();

  EXPECT_EQ(alone_a.threads, 1);
  EXPECT_EQ(alone_b.threads, 2);
  EXPECT_EQ(together_a.threads, 1);
  EXPECT_EQ(together_b.threads, 2);
  EXPECT_EQ(alone_a.libraries, std::vector<std::string>{"dnnl"});
  EXPECT_TRUE(alone_b.libraries.empty());
  EXPECT_EQ(together_a.libraries, alone_a.libraries);
  ASSERT_EQ(together_a.losses.size(), alone_a.losses.size());
  for (size_t i = 0; i < alone_a.losses.size(); ++i) {
    EXPECT_FLOAT_EQ(together_a.losses[i], alone_a.losses[i]) << "step " << i;
    EXPECT_NEAR(together_b.losses[i], alone_b.losses[i], 1e-4f * std::abs(alone_b.losses[i])) << "step " << i;
    // Both learn the same thing, with or without the library.
    EXPECT_NEAR(alone_a.losses[i], alone_b.losses[i], 1e-3f * std::abs(alone_b.losses[i])) << "step " << i;
  }
  EXPECT_LT(alone_a.losses.back(), alone_a.losses.front());

  // B's build noted the library its backend prefers and it lacks; A had nothing to say.
  EXPECT_TRUE(log_b.Has("rxt: kernel library 'dnnl' is not loaded")) << (log_b.lines.empty() ? "" : log_b.lines[0]);
  EXPECT_FALSE(log_a.Has("is not loaded"));
}

TEST(Context, AContextsExternFunctionsAreItsOwnThenTheProcesss) {
  LogLines log;
  Context context(Options(1, {kPlugins + "/rxt_backend_reference.so"}, log));
  EXPECT_TRUE(context.plugins().externs().Find("test.double"));
  EXPECT_TRUE(context.plugins().externs().HasOwn("test.double"));
  // The process registry (rxt_extern_register) is its parent...
  ExternRegistry::Global().Register("test.context_parent", [](DLTensor* const*, int) {});
  EXPECT_TRUE(context.plugins().externs().Find("test.context_parent"));
  EXPECT_FALSE(context.plugins().externs().HasOwn("test.context_parent"));
  // ...but never sees a context's own.
  EXPECT_FALSE(ExternRegistry::Global().Find("test.double"));
  // A second context loads the same plugin: its extern functions are registered again, apart.
  Context other(Options(2, {}, log));
  EXPECT_TRUE(other.plugins().externs().HasOwn("test.double"));
  ExternRegistry::Global().Remove("test.context_parent");
}

struct Counts {
  std::atomic<int64_t> allocated{0}, freed{0}, live_bytes{0};
};

void* CountedAllocate(void* user_data, size_t size, size_t alignment) {
  auto* counts = static_cast<Counts*>(user_data);
  counts->allocated++;
  counts->live_bytes += static_cast<int64_t>(size);
  return std::aligned_alloc(alignment, size);
}

void CountedDeallocate(void* user_data, void* pointer, size_t size, size_t) {
  auto* counts = static_cast<Counts*>(user_data);
  counts->freed++;
  counts->live_bytes -= static_cast<int64_t>(size);
  std::free(pointer);
}

TEST(Context, ItsAllocatorServesWhatItsVMsAllocateAndGetsEveryBlockBack) {
  Counts counts;
  {
    Context context({.plugins = {kPlugins + "/rxt_backend_reference.so"},
                     .search_path = false,
                     .allocator = Allocator{.allocate = CountedAllocate, .deallocate = CountedDeallocate,
                                            .user_data = &counts}});
    Session session(context);
    RunnableExecutable run = session.CreateVM(session.Build(ParseModule(R"(
def @main(%x: Tensor((3, 5), float32)) -> Tensor((3, 5), float32) {
  %y = exp(%x)
  %z = add(%y, %x)
  return %z
})")));
    Tensor x = Ramp({3, 5}, 0.f, 0.1f);
    int64_t before = counts.allocated;
    Tensor z = run.vm->Invoke("main", {Value(x)}).tensor();
    EXPECT_GT(counts.allocated, before);
    EXPECT_NEAR(z.data_as<float>()[1], std::exp(0.1f) + 0.1f, 1e-6);
    // Outside a call of the context's VMs, the heap.
    int64_t after = counts.allocated;
    Tensor elsewhere = Tensor::Empty({1000}, DType::kFloat32);
    EXPECT_EQ(counts.allocated, after);
  }
  // The VM, its arenas and the result are gone: every block came back to the allocator.
  EXPECT_GT(counts.allocated, 0);
  EXPECT_EQ(counts.freed.load(), counts.allocated.load());
  EXPECT_EQ(counts.live_bytes.load(), 0);
}

TEST(Context, BadOptionsAreRefusedNamingTheOption) {
  try {
    Context context({.num_threads = -1});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("num_threads is -1"), std::string::npos) << e.what();
  }
  try {
    Context context({.allocator = Allocator{.allocate = CountedAllocate}});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("deallocate"), std::string::npos) << e.what();
  }
  try {
    Context context({.plugins = {"/no/such/plugin.so"}});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotFound);
    EXPECT_NE(std::string(e.what()).find("/no/such/plugin.so"), std::string::npos) << e.what();
  }
}

TEST(Context, TheDefaultContextIsTheProcesss) {
  Context& context = Context::Default();
  EXPECT_EQ(&context, &Context::Default());
  EXPECT_EQ(&context.plugins(), &PluginHost::Global());
  EXPECT_EQ(&context.plugins().externs(), &ExternRegistry::Global());
  EXPECT_EQ(context.thread_pool(), nullptr);
  EXPECT_EQ(context.num_threads(), ThreadPool::Global().num_threads());
  EXPECT_EQ(context.allocator(), nullptr);
}

}  // namespace
}  // namespace rxt
