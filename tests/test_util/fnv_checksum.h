// The checksum rxt's binary files end with (executables, trainer files: FNV-1a over every byte
// before the last 8), recomputed so that a test or a fuzz target can change the body and still
// reach the parser behind the check.
#pragma once

#include <cstdint>
#include <vector>

namespace rxt::test {

/// Writes the FNV-1a hash of all but the last 8 bytes into those 8 (little-endian).
inline void ResealFnvChecksum(std::vector<uint8_t>& bytes) {
  if (bytes.size() < 8) return;
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i + 8 < bytes.size(); ++i) {
    h ^= bytes[i];
    h *= 0x100000001b3ull;
  }
  for (int i = 0; i < 8; ++i) bytes[bytes.size() - 8 + i] = static_cast<uint8_t>(h >> (8 * i));
}

}  // namespace rxt::test
