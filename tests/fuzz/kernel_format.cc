// Fuzz target kernel_format: the portable kernel format (abi/include/rxt/plugin_support/kernel_codec.h, the
// core's side in core/src/ir/kernel_encoding.cc) and the reference backend's loading of it.
// Bytes decode to a kernel that ValidateKernel accepts, or to an error. A decoded kernel
// re-encodes to bytes that decode and encode again identically; it converts to IR whose
// encoding, text form and decoding all round-trip; the reference interpreter prepares it.
#include <string>
#include <vector>

#include "fuzz_util.h"
#include "rxt/support/error.h"
#include "reference_interpreter.h"
#include "rxt/ir/equality.h"
#include "rxt/ir/kernel_encoding.h"
#include "rxt/ir/parser.h"
#include "rxt/ir/printer.h"

namespace kf = rxt::plugin_support::kernel_format;

namespace {

void CheckIRRoundTrips(const kf::Kernel& kernel) {
  rxt::KernelFunction ir;
  try {
    ir = rxt::FromPortableKernel(kernel);
  } catch (const rxt::Error& e) {
    FUZZ_CHECK(false, std::string("a valid kernel does not convert to IR: ") + e.what());
  }
  std::vector<uint8_t> encoded = rxt::EncodeKernel(ir, "k");
  rxt::KernelFunction decoded = rxt::DecodeKernelToIR(encoded);
  FUZZ_CHECK(rxt::StructuralEqual(ir, decoded), "the IR kernel changes through EncodeKernel/DecodeKernelToIR");
  FUZZ_CHECK(rxt::EncodeKernel(decoded, "k") == encoded, "EncodeKernel is not stable");

  std::string text = rxt::PrintKernel(ir, "k");
  rxt::IRModule parsed;
  try {
    parsed = rxt::ParseModule(text, "kernel.rxt");
  } catch (const rxt::Error& e) {
    FUZZ_CHECK(false, std::string("the printed kernel does not parse: ") + e.what() + "\n" + text);
  }
  FUZZ_CHECK(rxt::StructuralEqual(ir, parsed.GetKernel("k")), "the printed kernel parses to another kernel:\n" + text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  kf::DecodeResult decoded = kf::DecodeKernel(data, size);
  if (!decoded.ok()) return 0;  // the expected outcome for most inputs
  std::string invalid = kf::ValidateKernel(decoded.kernel);
  FUZZ_CHECK(invalid.empty(), "DecodeKernel accepted an invalid kernel: " + invalid);

  std::vector<uint8_t> bytes = kf::SerializeKernel(decoded.kernel);
  kf::DecodeResult again = kf::DecodeKernel(bytes.data(), bytes.size());
  FUZZ_CHECK(again.ok(), "a decoded kernel re-encodes to bytes that do not decode: " + again.error);
  FUZZ_CHECK(kf::SerializeKernel(again.kernel) == bytes, "SerializeKernel is not stable");

  CheckIRRoundTrips(decoded.kernel);

  // What the reference backend's load_kernel does with the bytes.
  try {
    rxt::backend_reference::ReferenceInterpreter interpreter(decoded.kernel);
  } catch (const rxt::backend_reference::KernelError&) {
    // The interpreter may refuse what it cannot run; it must say so this way.
  }
  return 0;
}
