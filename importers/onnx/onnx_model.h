// Reading an .onnx file into ONNX's ModelProto, checked: the file's size, protobuf parsing,
// ONNX's checker and shape inference. Every failure is an ImportError naming the file.
#pragma once

#include <onnx/onnx_pb.h>

#include <stdexcept>
#include <string>

namespace rxt::import_onnx {

/// A failure of the import, worded for the user ("unsupported ops: Conv (1 node, first node 0)");
/// the host adds the file and the importer's name.
struct ImportError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The model at |path|, checked, with inferred shapes on its values.
onnx::ModelProto ReadModel(const std::string& path);

}  // namespace rxt::import_onnx
