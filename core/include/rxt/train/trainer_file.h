// A compiled trainer as one file (.rxtt, docs/trainer_file.md): the trainer program (its
// executable and the layout of its arguments), the kernels compiled ahead of time as a shared
// library, and the values it has reached (parameters, states, optimizer state, step count,
// learning-rate schedule). Compile once with the compiler; load and go on training with the
// runtime alone — no LLVM, no compiler, the same updates bit for bit.
//
//   SaveTrainerFile(MakeTrainerFile(trainer, library_bytes), "mlp.rxtt");   // compiler side
//   std::unique_ptr<Trainer> t = OpenTrainerFile(LoadTrainerFile("mlp.rxtt"));  // runtime side
//
// The format: magic "RXTTRAIN", format version, sections (tag, length, bytes), FNV-1a checksum.
// Reading checks every length and the checksum first: a truncated or corrupt file is kDataLoss
// naming the file and the byte, never a crash. The kernel library is native code: a trainer
// file, like a plugin, is to be loaded only from a source one trusts.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rxt/runtime/extern.h"
#include "rxt/runtime/kernel.h"
#include "rxt/runtime/safetensors.h"
#include "rxt/train/trainer.h"
#include "rxt/train/trainer_program.h"

namespace rxt {

struct TrainerFile {
  static constexpr uint32_t kFormatVersion = 1;

  /// The executable's aot_library is "": the library travels in |kernel_library|.
  TrainerProgram program;
  /// The kernels compiled ahead of time (a shared library's bytes); empty when the file has none
  /// (its kernels then compile where it is opened, with the executable's backend).
  std::vector<uint8_t> kernel_library;
  /// A trainer checkpoint (Trainer::MakeCheckpoint). The optimizer state is left out while it is
  /// still its initial value (a trainer that has not stepped): the file is not twice the weights.
  TensorFile values;
  /// The learning-rate schedule (LrSchedule::ToString) and its base rate; "" for none.
  std::string schedule;
  double base_lr = 0;
  /// Where it was read from, for messages; not saved.
  std::string source;

  /// "trainer file 'path'" (or "the trainer file"): how messages about it begin.
  std::string Label() const;
  std::vector<uint8_t> Serialize() const;
  /// Throws kDataLoss naming |source|, the problem and the byte for malformed bytes.
  static TrainerFile Deserialize(const uint8_t* data, size_t size, const std::string& source = "<memory>");
};

/// |trainer| as a file: its program (with the executable's kernel library path cleared), its
/// values and schedule, and |kernel_library| (the bytes of the executable's AOT library, or
/// none).
TrainerFile MakeTrainerFile(const Trainer& trainer, std::vector<uint8_t> kernel_library);
/// Writes through a temporary file renamed into place: an existing file is never half-written.
void SaveTrainerFile(const TrainerFile& file, const std::string& path);
/// Reads |path| (within the memory limit) and deserializes it.
TrainerFile LoadTrainerFile(const std::string& path);

/// A trainer that goes on from |file|: kernels from its library (|fallback| when it carries
/// none: kFailedPrecondition if that is null too), extern functions from |externs|, then its
/// values, step count and schedule. Throws what AotKernelProvider throws for a library this
/// machine cannot run, kDataLoss for values that do not fit the program.
std::unique_ptr<Trainer> OpenTrainerFile(TrainerFile file, std::shared_ptr<KernelProvider> fallback = nullptr,
                                         const ExternRegistry& externs = ExternRegistry::Global());

}  // namespace rxt
