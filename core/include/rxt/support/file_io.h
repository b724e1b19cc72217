// Whole-file reads and atomic writes. A write goes to a temporary file next to the target,
// is flushed to disk, then renamed over the target, so a crash or a full disk never leaves a
// half-written file where a good one was.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace rxt {

/// Writes |size| bytes to |path| atomically. |what| names the file's kind in errors
/// ("checkpoint: cannot write '/x/y.safetensors': No space left on device").
void WriteFileAtomically(const std::string& path, const void* data, size_t size, const std::string& what);

/// The file's bytes; kNotFound naming |what| and |path| if it cannot be opened,
/// kResourceExhausted if it is larger than |max_bytes| (a caller passes the memory limit).
std::vector<uint8_t> ReadWholeFile(const std::string& path, const std::string& what,
                                   int64_t max_bytes = INT64_MAX);

}  // namespace rxt
