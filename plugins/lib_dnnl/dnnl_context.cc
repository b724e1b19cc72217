#include "dnnl_context.h"

#include <atomic>
#include <cstdlib>
#include <memory>
#include <new>

namespace rxt::lib_dnnl {

namespace {
std::atomic<const rxt_kernel_runtime_t*> g_runtime{nullptr};
}  // namespace

void SetHostRuntime(const rxt_kernel_runtime_t* runtime) { g_runtime.store(runtime, std::memory_order_release); }

const rxt_kernel_runtime_t* HostRuntime() { return g_runtime.load(std::memory_order_acquire); }

dnnl::engine& Engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

dnnl::stream& ThreadStream() {
  thread_local dnnl::stream stream(Engine());
  return stream;
}

namespace {

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

struct ScratchSlot {
  std::unique_ptr<void, FreeDeleter> data;
  size_t bytes = 0;
};

}  // namespace

void* ScratchBuffer(int slot, size_t bytes) {
  thread_local ScratchSlot slots[kScratchSlots];
  ScratchSlot& s = slots[slot];
  if (s.bytes < bytes) {
    size_t rounded = (bytes + 63) / 64 * 64;
    void* p = std::aligned_alloc(64, rounded);
    if (p == nullptr) throw std::bad_alloc();
    s.data.reset(p);
    s.bytes = rounded;
  }
  return s.data.get();
}

Staging Staging::Input(const dnnl::memory::desc& user, const dnnl::memory::desc& inner) {
  Staging s{user, inner, std::nullopt};
  if (user != inner) s.reorder = dnnl::reorder(dnnl::reorder::primitive_desc(Engine(), user, Engine(), inner));
  return s;
}

Staging Staging::Output(const dnnl::memory::desc& user, const dnnl::memory::desc& inner) {
  Staging s{user, inner, std::nullopt};
  if (user != inner) s.reorder = dnnl::reorder(dnnl::reorder::primitive_desc(Engine(), inner, Engine(), user));
  return s;
}

dnnl::memory StageIn(const Staging& staging, void* data, int slot) {
  dnnl::memory user(staging.user, Engine(), data);
  if (staging.direct()) return user;
  dnnl::memory inner(staging.inner, Engine(), ScratchBuffer(slot, staging.inner.get_size()));
  staging.reorder->execute(ThreadStream(), user, inner);
  return inner;
}

dnnl::memory StageOutTarget(const Staging& staging, void* data, int slot) {
  if (staging.direct()) return dnnl::memory(staging.user, Engine(), data);
  return dnnl::memory(staging.inner, Engine(), ScratchBuffer(slot, staging.inner.get_size()));
}

void StageOutFinish(const Staging& staging, const dnnl::memory& inner, void* data) {
  if (staging.direct()) return;
  dnnl::memory user(staging.user, Engine(), data);
  dnnl::memory from = inner;  // execute takes non-const handles
  staging.reorder->execute(ThreadStream(), from, user);
}

void Execute(const dnnl::primitive& primitive, const std::unordered_map<int, dnnl::memory>& args) {
  primitive.execute(ThreadStream(), args);
}

}  // namespace rxt::lib_dnnl
