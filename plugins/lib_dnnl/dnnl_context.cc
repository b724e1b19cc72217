#include "dnnl_context.h"

#include <cstdlib>
#include <memory>
#include <new>

namespace rxt::lib_dnnl {

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

dnnl::primitive_attr UserScratchpad(dnnl::primitive_attr attr) {
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

void Execute(const dnnl::primitive& primitive, std::unordered_map<int, dnnl::memory> args) {
  const dnnl_memory_desc_t* md =
      dnnl_primitive_desc_query_md(primitive.get_primitive_desc(), dnnl_query_scratchpad_md, 0);
  if (md != nullptr && dnnl_memory_desc_get_size(md) > 0) {
    dnnl::memory::desc scratchpad(*md);
    args.emplace(DNNL_ARG_SCRATCHPAD,
                 dnnl::memory(scratchpad, Engine(), ScratchBuffer(kScratchpadSlot, scratchpad.get_size())));
  }
  primitive.execute(ThreadStream(), args);
}

}  // namespace rxt::lib_dnnl
