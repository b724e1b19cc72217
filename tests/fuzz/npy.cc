// Fuzz target npy: `rxt run`'s .npy reader (apps/rxt/npy.cc). Any bytes give a tensor or an
// rxt::Error; a tensor's byte size is its shape's element count times its dtype's size, and
// writing it (as `rxt run --output` does) gives a file that reads back to the same tensor.
#include <cstring>
#include <string>
#include <string_view>

#include "fuzz_util.h"
#include "rxt/support/error.h"
#include "npy.h"

namespace {

std::string Describe(const rxt::Tensor& t) {
  std::string dims;
  for (int64_t d : t.shape()) dims += std::to_string(d) + ",";
  return std::string(rxt::DTypeName(t.dtype())) + " (" + dims + ")";
}

bool SameTensor(const rxt::Tensor& a, const rxt::Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && a.nbytes() == b.nbytes() &&
         (a.nbytes() == 0 || std::memcmp(a.data(), b.data(), a.nbytes()) == 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  rxt::Tensor tensor;
  try {
    tensor = rxt::cli::ParseNpy(bytes, "fuzz.npy");
  } catch (const rxt::Error&) {
    return 0;  // the expected outcome for most inputs
  }
  int64_t elements = 1;
  for (int64_t d : tensor.shape()) elements *= d;
  FUZZ_CHECK(tensor.numel() == elements, "numel disagrees with the shape of " + Describe(tensor));
  FUZZ_CHECK(tensor.nbytes() == static_cast<size_t>(elements) * rxt::DTypeBytes(tensor.dtype()),
             "the byte size disagrees with the shape of " + Describe(tensor));

  std::string written = rxt::cli::SerializeNpy(tensor);
  rxt::Tensor again;
  try {
    again = rxt::cli::ParseNpy(written, "written.npy");
  } catch (const rxt::Error& e) {
    FUZZ_CHECK(false, "a written .npy file does not read back: " + std::string(e.what()));
  }
  FUZZ_CHECK(SameTensor(tensor, again), "a written .npy file reads back as another tensor: " + Describe(again) +
                                            " instead of " + Describe(tensor));
  return 0;
}
