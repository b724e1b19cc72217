// Reading an .onnx file into ONNX's ModelProto, ready to convert: the file's size, protobuf
// parsing, ONNX's checker, the version converter (every model is brought to one opset, so the
// converters know one version of each op) and shape inference with data propagation. Every
// failure is an ImportError; the host adds the file and the importer's name.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace rxt::import_onnx {

/// A failure of the import, worded for the user ("unsupported ops: Conv (1 node, first node 0)").
struct ImportError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The opset of the default domain that the converters are written for (ONNX 1.12's newest).
inline constexpr int kTargetOpset = 17;
/// The oldest opset the version converter brings forward.
inline constexpr int kOldestOpset = 1;

/// |model|'s shapes inferred again (after import-time folding made values known), isolated.
onnx::ModelProto InferShapes(const onnx::ModelProto& model);

/// The directory of the model at |path| ("." for a bare file name): where its external data is.
std::string ModelDir(const std::string& path);

/// The model at |path|, checked, at kTargetOpset, with inferred shapes on its values.
onnx::ModelProto ReadModel(const std::string& path);

/// The same from the bytes of a model (the fuzz target's entry); external data files are looked
/// up in |model_dir|.
onnx::ModelProto ParseModel(const void* data, size_t size, const std::string& model_dir);

}  // namespace rxt::import_onnx
