#include "constant_weights.h"

#include <cstring>
#include <mutex>
#include <vector>

namespace rxt::lib_dnnl {

int64_t ContentId(const void* data, size_t bytes) {
  uint64_t hash = 1469598103934665603ull;
  const auto* p = static_cast<const unsigned char*>(data);
  size_t words = bytes / 8;
  for (size_t i = 0; i < words; ++i) {
    uint64_t word;
    std::memcpy(&word, p + i * 8, 8);
    hash = (hash ^ word) * 1099511628211ull;
  }
  for (size_t i = words * 8; i < bytes; ++i) hash = (hash ^ p[i]) * 1099511628211ull;
  hash = (hash ^ bytes) * 1099511628211ull;
  int64_t id = static_cast<int64_t>(hash & ((uint64_t{1} << 52) - 1));
  return id == 0 ? 1 : id;
}

namespace {

struct Entry {
  int64_t id;
  dnnl::memory::desc layout;
  std::shared_ptr<void> storage;
};

struct Cache {
  std::mutex mutex;
  std::vector<Entry> entries;
  size_t bytes = 0;
};

Cache& TheCache() {
  static Cache* cache = new Cache;  // never destroyed: plugins may run during static destruction
  return *cache;
}

}  // namespace

PreparedWeights ConstantWeights(const Staging& staging, const float* weight, int64_t id) {
  Cache& cache = TheCache();
  {
    std::lock_guard<std::mutex> lock(cache.mutex);
    for (const Entry& e : cache.entries) {
      if (e.id == id && e.layout == staging.inner) return {dnnl::memory(e.layout, Engine(), e.storage.get()), e.storage};
    }
  }
  // Reordered outside the lock: two threads that both miss do the work twice, once.
  size_t size = staging.inner.get_size();
  std::shared_ptr<void> storage(std::aligned_alloc(64, (size + 63) / 64 * 64), std::free);
  if (storage == nullptr) throw std::bad_alloc();
  dnnl::memory inner(staging.inner, Engine(), storage.get());
  dnnl::memory user(staging.user, Engine(), const_cast<float*>(weight));
  staging.reorder->execute(ThreadStream(), user, inner);
  ThreadStream().wait();
  std::lock_guard<std::mutex> lock(cache.mutex);
  if (cache.bytes + size > kMaxConstantWeightBytes) {
    cache.entries.clear();
    cache.bytes = 0;
  }
  cache.entries.push_back({id, staging.inner, storage});
  cache.bytes += size;
  return {inner, storage};
}

}  // namespace rxt::lib_dnnl
