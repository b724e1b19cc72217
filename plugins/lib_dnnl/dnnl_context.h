// What every oneDNN primitive call of the plugin shares: the CPU engine, a stream per thread,
// scratch buffers per thread (blocked copies of tensors, reused call after call so a steady
// state allocates nothing), and Staging: a tensor in the caller's plain layout bound to the
// layout a primitive chose, with the reorders between the two.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <cstddef>
#include <optional>
#include <unordered_map>

namespace rxt::lib_dnnl {

dnnl::engine& Engine();
/// The calling thread's stream (in-order: a primitive has finished when execute returns).
dnnl::stream& ThreadStream();

/// The calling thread's scratch buffer number |slot| (0..kScratchSlots-1), at least |bytes|
/// long and 64-byte aligned. Valid until the same thread asks for the same slot again.
inline constexpr int kScratchSlots = 7;
/// The slot Execute passes as the primitive's scratchpad.
inline constexpr int kScratchpadSlot = 6;
void* ScratchBuffer(int slot, size_t bytes);

/// One tensor argument of a primitive: |user| is the caller's plain layout, |inner| what the
/// primitive runs on. The reorder exists only when the two differ.
struct Staging {
  dnnl::memory::desc user, inner;
  std::optional<dnnl::reorder> reorder;  // user -> inner for inputs, inner -> user for outputs

  static Staging Input(const dnnl::memory::desc& user, const dnnl::memory::desc& inner);
  static Staging Output(const dnnl::memory::desc& user, const dnnl::memory::desc& inner);
  bool direct() const { return !reorder.has_value(); }
};

/// Binds |data| (the caller's buffer) for |staging|: the buffer itself when no reorder is
/// needed, else scratch slot |slot|, reordered into first when |is_input|.
dnnl::memory StageIn(const Staging& staging, void* data, int slot);
/// For an output: the memory the primitive writes (the user's buffer or scratch |slot|).
dnnl::memory StageOutTarget(const Staging& staging, void* data, int slot);
/// Copies |inner| (from StageOutTarget) to the user's buffer if it was scratch.
void StageOutFinish(const Staging& staging, const dnnl::memory& inner, void* data);

/// |attr| with the scratchpad left to the caller (scratchpad_mode::user): Execute passes the
/// calling thread's, so one cached primitive may run on several threads at once (the batch
/// parts of one call, or two trainers). Every primitive of the plugin is made with it.
dnnl::primitive_attr UserScratchpad(dnnl::primitive_attr attr = {});

/// Runs |primitive| on the thread's stream with the thread's scratchpad.
void Execute(const dnnl::primitive& primitive, std::unordered_map<int, dnnl::memory> args);

}  // namespace rxt::lib_dnnl
