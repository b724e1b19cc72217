#include "onnx_model.h"

#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>

#include <fstream>
#include <iterator>
#include <vector>

namespace rxt::import_onnx {
namespace {

// protobuf refuses messages over 2 GiB; larger models keep their weights in external data.
constexpr std::streamoff kMaxModelBytes = std::streamoff(2) << 30;

}  // namespace

onnx::ModelProto ReadModel(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw ImportError("cannot open the file");
  std::streamoff size = in.tellg();
  if (size > kMaxModelBytes) throw ImportError("larger than 2 GiB (keep the weights in external data)");
  std::vector<char> bytes(static_cast<size_t>(size));
  in.seekg(0);
  if (!in.read(bytes.data(), size)) throw ImportError("cannot read the file");
  onnx::ModelProto model;
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    throw ImportError("not an ONNX model (protobuf cannot parse it: truncated or another format?)");
  }
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    throw ImportError(std::string("ONNX's checker refuses the model: ") + e.what());
  }
  try {
    onnx::shape_inference::InferShapes(model);
  } catch (const std::exception& e) {
    throw ImportError(std::string("ONNX's shape inference fails: ") + e.what());
  }
  return model;
}

}  // namespace rxt::import_onnx
