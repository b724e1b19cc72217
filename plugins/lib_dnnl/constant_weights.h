// Weights that never change, reordered once. A convolution whose weights were a constant when
// it was built (a model built for inference with its weights bound: rxt build --bind-params)
// gets a content id from its pattern, and the blocked copy its primitive runs on is kept by that
// id and layout for every later call, on every thread — instead of a reorder per call (0.17 ms
// for each 128x128x3x3 weight of resnet18, in each thread's part of the batch).
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "dnnl_context.h"

namespace rxt::lib_dnnl {

/// A 52-bit content id of |bytes| bytes at |data| (FNV-1a over 8-byte words), never 0; exact
/// as a double, which is how the IR carries it (a prim value).
int64_t ContentId(const void* data, size_t bytes);

/// The weights in the primitive's layout: memory of |staging|.inner and what keeps it alive
/// for the call.
struct PreparedWeights {
  dnnl::memory memory;
  std::shared_ptr<void> storage;
};

/// |weight| (the caller's plain layout) reordered into |staging|.inner, once per (|id|, layout)
/// for the life of the process. The cache holds at most kMaxBytes; past that it starts over.
PreparedWeights ConstantWeights(const Staging& staging, const float* weight, int64_t id);

inline constexpr size_t kMaxConstantWeightBytes = size_t{512} << 20;

}  // namespace rxt::lib_dnnl
