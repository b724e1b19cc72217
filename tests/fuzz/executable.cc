// Fuzz target executable: the executable file format (core/src/runtime/executable_io.cc) and
// what `rxt run` does with a file that loads, short of running it: the VM validates the
// bytecode, loads every kernel with a backend and resolves the extern functions. The reference
// interpreter stands in for the backend (every backend decodes the same portable kernel bytes).
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_util.h"
#include "test_util/fnv_checksum.h"
#include "rxt/support/error.h"
#include "test_util/reference_provider.h"
#include "rxt/runtime/executable.h"
#include "rxt/runtime/vm.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> bytes(data, data + size);
  rxt::test::ResealFnvChecksum(bytes);  // mutations then reach what the hash guards
  rxt::Executable exec;
  try {
    exec = rxt::Executable::Deserialize(bytes.data(), bytes.size(), "fuzz.rxtx");
  } catch (const rxt::Error&) {
    return 0;  // the expected outcome for most inputs
  }
  // Deserialize validated it; what it reads back writes the same way every time.
  std::vector<uint8_t> saved = exec.Serialize();
  rxt::Executable reloaded;
  try {
    reloaded = rxt::Executable::Deserialize(saved.data(), saved.size(), "saved.rxtx");
  } catch (const rxt::Error& e) {
    FUZZ_CHECK(false, std::string("a loaded executable saves to bytes that do not load: ") + e.what());
  }
  FUZZ_CHECK(reloaded.Serialize() == saved, "Serialize/Deserialize is not stable");
  exec.Disassemble();

  // As `rxt run` would next (without the ahead-of-time library, a shared library it would open).
  exec.backend.clear();
  exec.aot_library.clear();
  try {
    rxt::testing::ReferenceKernelProvider provider;
    rxt::VirtualMachine vm(std::move(exec), provider);
  } catch (const rxt::Error&) {
    // A kernel the backend rejects, an extern function nobody registered.
  }
  return 0;
}
