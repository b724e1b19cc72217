// An ONNX graph as an rxt backbone in the text format (docs/ir.md): the graph's inputs first,
// then its float initializers as the trainable parameters (param_num), in file order, each
// keeping its ONNX name (%"conv1.weight"); the nodes become op calls in a dataflow block.
// Every node whose op has no mapping is reported at once (op, count, first node).
#pragma once

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

namespace rxt::import_onnx {

struct GraphText {
  std::string text;
  std::vector<const onnx::TensorProto*> params;  // the initializers that became parameters, in order
};

/// Throws ImportError (naming the node) for what cannot be imported.
GraphText WriteGraph(const onnx::ModelProto& model);

}  // namespace rxt::import_onnx
