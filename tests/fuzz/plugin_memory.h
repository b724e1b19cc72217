// What the plugin fuzz targets (plugin_descriptor, extern_plugins) build a fuzzed plugin's
// structs in: blocks of exactly the size a struct claims, so AddressSanitizer catches a host that
// reads a field past struct_size.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "fuzz_util.h"

namespace rxt::fuzz {

/// Storage for one plugin's structs and strings, alive while its host is.
struct PluginMemory {
  std::vector<std::unique_ptr<std::vector<unsigned char>>> blocks;
  std::vector<std::unique_ptr<std::string>> strings;

  /// A block of exactly |size| bytes (at least 1), zeroed.
  unsigned char* Block(size_t size) {
    blocks.push_back(std::make_unique<std::vector<unsigned char>>(std::max<size_t>(size, 1)));
    return blocks.back()->data();
  }
  /// A NUL-terminated copy of |text|, alive as long as this.
  const char* Keep(std::string text) {
    strings.push_back(std::make_unique<std::string>(std::move(text)));
    return strings.back()->c_str();
  }
};

/// A struct_size as plugins get it wrong: exact, too small for some fields, larger (a newer plugin).
inline size_t StructSize(FuzzInput& in, size_t full) {
  switch (in.Int(0, 3)) {
    case 0: return full;
    case 1: return full + in.Int(1, 64);
    default: return static_cast<size_t>(in.Range(0, full));
  }
}

/// Copies |value| into a block of max(sizeof(size_t), min(claimed, sizeof value)) bytes: the
/// host may read the fields inside the claimed size only.
template <typename T>
const T* Sized(PluginMemory& memory, const T& value, size_t claimed) {
  size_t bytes = std::max(sizeof(size_t), std::min(claimed, sizeof(T)));
  unsigned char* block = memory.Block(bytes);
  std::memcpy(block, &value, bytes);
  return reinterpret_cast<const T*>(block);
}

}  // namespace rxt::fuzz
