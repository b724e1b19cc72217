// A TorchScript file (.pt, torch.jit.save of a traced or scripted module) as an rxt backbone:
// loaded with libtorch's own loader, forward's graph inlined, every node converted (converters.h).
// This header names no libtorch type: only torchscript_module.cc includes libtorch.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "options.h"

namespace rxt::import_torchscript {

/// A parameter's or state's value, handed to the host with add_value.
struct TensorValue {
  std::string name;
  std::vector<int64_t> shape;
  uint8_t dtype_code = 0;  // DLPack's kDLFloat, kDLInt, kDLUInt, kDLBool
  uint8_t dtype_bits = 0;
  std::string bytes;  // row-major
};

struct ImportedModule {
  std::string text;                 // the module in the text format
  std::vector<TensorValue> values;  // the parameters', then the states' values, in order
};

/// Imports |path|; throws ImportError (a bad file, an unsupported op: every one listed).
ImportedModule ImportTorchScript(const std::string& path, const ImportOptions& options);
/// The same from a stream (the fuzz target's entry).
ImportedModule ImportTorchScript(std::istream& in, const ImportOptions& options);

}  // namespace rxt::import_torchscript
