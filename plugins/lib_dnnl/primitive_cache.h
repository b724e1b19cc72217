// Primitives cached for the life of the process, keyed by everything that shapes them (dims
// and parameters, never a pointer): creating a oneDNN primitive costs far more than running a
// small one. Thread-safe; a cached primitive is immutable and may run on several threads.
#pragma once

#include <map>
#include <memory>
#include <mutex>

namespace rxt::lib_dnnl {

template <class Key, class Value>
class PrimitiveCache {
 public:
  template <class Create>
  std::shared_ptr<const Value> Get(const Key& key, Create create) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = map_.find(key);
    if (it != map_.end()) return it->second;
    auto value = std::make_shared<const Value>(create());
    map_.emplace(key, value);
    return value;
  }

 private:
  std::mutex mutex_;
  std::map<Key, std::shared_ptr<const Value>> map_;
};

}  // namespace rxt::lib_dnnl
