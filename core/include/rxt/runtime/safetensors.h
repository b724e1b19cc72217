// Tensors in the safetensors format (Hugging Face's: an 8-byte little-endian header length, a
// JSON header naming each tensor's dtype, shape and byte range, then the raw little-endian data),
// used for checkpoints: params, states and optimizer state, with string metadata.
//
//   SaveSafetensors("ckpt.safetensors", {{{"w0", w0}, {"b0", b0}}, {{"step", "937"}}});
//   TensorFile file = LoadSafetensors("ckpt.safetensors");   // throws kDataLoss naming the problem
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "rxt/runtime/tensor.h"

namespace rxt {

struct TensorFile {
  /// In file order (the writer's order; a reader sorts by data offset, the order on disk).
  std::vector<std::pair<std::string, Tensor>> tensors;
  /// The header's "__metadata__": string to string.
  std::map<std::string, std::string> metadata;

  /// The tensor called |name|, or nullptr.
  const Tensor* Find(const std::string& name) const;
};

/// The file's bytes. Names must be unique and non-empty and may not be "__metadata__".
std::vector<uint8_t> SerializeSafetensors(const TensorFile& file);
/// Parses bytes; every malformed input (truncated, bad JSON, unknown dtype, shape and byte range
/// disagreeing, ranges overlapping or leaving holes, out of bounds) throws kDataLoss naming
/// |source| and the problem.
TensorFile ParseSafetensors(const uint8_t* data, size_t size, const std::string& source = "<memory>");

/// Writes atomically (a temporary file renamed into place).
void SaveSafetensors(const std::string& path, const TensorFile& file);
TensorFile LoadSafetensors(const std::string& path);

}  // namespace rxt
