// Fuzz target trainer_file: the trainer file format (core/src/train/trainer_file.cc) and what
// opening one does short of loading its kernel library (native code, trusted like a plugin):
// the trainer is made on the reference interpreter and its values restored. Whatever loads
// saves to bytes that load the same way.
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_util.h"
#include "test_util/fnv_checksum.h"
#include "rxt/support/error.h"
#include "rxt/train/trainer_file.h"
#include "test_util/reference_provider.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> bytes(data, data + size);
  rxt::test::ResealFnvChecksum(bytes);  // mutations then reach what the hash guards
  rxt::TrainerFile file;
  try {
    file = rxt::TrainerFile::Deserialize(bytes.data(), bytes.size(), "fuzz.rxtt");
  } catch (const rxt::Error&) {
    return 0;  // the expected outcome for most inputs
  }
  std::vector<uint8_t> saved = file.Serialize();
  try {
    rxt::TrainerFile reloaded = rxt::TrainerFile::Deserialize(saved.data(), saved.size(), "saved.rxtt");
    FUZZ_CHECK(reloaded.Serialize() == saved, "TrainerFile Serialize/Deserialize is not stable");
  } catch (const rxt::Error& e) {
    FUZZ_CHECK(false, std::string("a loaded trainer file saves to bytes that do not load: ") + e.what());
  }
  // Opened without its library: the kernels on the reference interpreter.
  file.kernel_library.clear();
  file.program.executable.backend.clear();
  try {
    auto trainer = rxt::OpenTrainerFile(std::move(file), std::make_shared<rxt::testing::ReferenceKernelProvider>());
  } catch (const rxt::Error&) {
    // Values that do not fit the program, a kernel the backend rejects, an unknown extern.
  }
  return 0;
}
