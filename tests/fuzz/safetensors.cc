// Fuzz target safetensors: the safetensors reader of checkpoints (core/src/runtime/
// safetensors.cc). Any bytes give a TensorFile or an rxt::Error; each tensor's byte size
// matches its shape and dtype, and the file saved again reads back to the same tensors and
// metadata, in the same order.
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_util.h"
#include "rxt/support/error.h"
#include "rxt/runtime/safetensors.h"

namespace {

bool SameFile(const rxt::TensorFile& a, const rxt::TensorFile& b) {
  if (a.metadata != b.metadata || a.tensors.size() != b.tensors.size()) return false;
  for (size_t i = 0; i < a.tensors.size(); ++i) {
    const auto& [name_a, ta] = a.tensors[i];
    const auto& [name_b, tb] = b.tensors[i];
    if (name_a != name_b || ta.dtype() != tb.dtype() || ta.shape() != tb.shape() || ta.nbytes() != tb.nbytes()) return false;
    if (ta.nbytes() > 0 && std::memcmp(ta.data(), tb.data(), ta.nbytes()) != 0) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  rxt::TensorFile file;
  try {
    file = rxt::ParseSafetensors(data, size, "fuzz.safetensors");
  } catch (const rxt::Error&) {
    return 0;  // the expected outcome for most inputs
  }
  for (const auto& [name, tensor] : file.tensors) {
    uint64_t elements = 1;
    for (int64_t d : tensor.shape()) elements *= static_cast<uint64_t>(d);
    FUZZ_CHECK(static_cast<uint64_t>(tensor.numel()) == elements, "tensor '" + name + "': numel disagrees with its shape");
    FUZZ_CHECK(tensor.nbytes() == elements * rxt::DTypeBytes(tensor.dtype()),
               "tensor '" + name + "': its byte size disagrees with its shape and dtype");
  }

  std::vector<uint8_t> saved;
  try {
    saved = rxt::SerializeSafetensors(file);
  } catch (const rxt::Error& e) {
    FUZZ_CHECK(false, std::string("a file that reads does not save: ") + e.what());
  }
  rxt::TensorFile again;
  try {
    again = rxt::ParseSafetensors(saved.data(), saved.size(), "saved.safetensors");
  } catch (const rxt::Error& e) {
    FUZZ_CHECK(false, std::string("a saved file does not read back: ") + e.what());
  }
  FUZZ_CHECK(SameFile(file, again), "a saved file reads back with other tensors or metadata");
  return 0;
}
