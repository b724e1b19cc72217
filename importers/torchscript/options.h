// The options of the torchscript importer (the text after the model in `rxt import m.pt
// --options ...`, or `rxt train --import-options ...`): comma-separated key=value pairs.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace rxt::import_torchscript {

/// A model the importer cannot import (bad file, unsupported ops, bad options): the message
/// becomes the status the host reports with the file's name.
struct ImportError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// One input's shape: each dim a number or a symbol (a bare name, e.g. batch), and its dtype.
struct InputShape {
  std::string input;  // empty: the module's only input
  std::vector<std::string> dims;
  std::string dtype;  // rxt's name; empty: the module's float parameters' dtype (float32 without)
};

struct ImportOptions {
  /// Training mode (the default): batch_norm with running statistics uses batch statistics and
  /// returns its updated running statistics as states. false: inference only.
  bool training = true;
  /// Dropout in a training import drops at random with a per-step seed (as PyTorch's train()).
  /// false: dropout is the identity in training too.
  bool dropout = true;
  /// Parameters and buffers whose names match one of these (ECMAScript regular expressions, the
  /// whole name) stay constants: no parameters, no states.
  std::vector<std::string> freeze;
  /// The inputs' shapes (TorchScript files keep none): shape=x:batch;1;28;28, shape=ids:batch;16:int64.
  std::vector<InputShape> shapes;
  /// Messages name a node's source location, from the file's debug info (no option sets it
  /// false: the fuzz target does, since libtorch 1.13's decoding of malformed debug info frees
  /// a pointer it did not allocate; docs/fuzzing.md).
  bool source_locations = true;
};

/// Parses "training=false, shape=x:batch;1;28;28, freeze=conv.*" (freeze and shape may repeat);
/// throws ImportError.
ImportOptions ParseImportOptions(const std::string& text);

}  // namespace rxt::import_torchscript
