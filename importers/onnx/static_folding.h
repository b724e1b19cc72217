// Before conversion: shape arithmetic that folds to static integers is written into the model as
// initializers, and ONNX's shape inference runs again. ONNX's data propagation covers Shape,
// Gather, Concat, Add, Mul... but not Div or a Slice's computed bounds, so in a transformer as
// PyTorch exports it the attention's Slice and Reshape outputs have no shape until this runs.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>

#include "graph_builder.h"

namespace rxt::import_onnx {

/// |model| with Identity copies of initializers made initializers of their own, its foldable
/// integer nodes replaced by initializers and its shapes inferred
/// again, repeated while that makes progress (at most 4 rounds).
onnx::ModelProto FoldStaticShapes(onnx::ModelProto model, const ImportOptions& options, const std::string& model_dir);

}  // namespace rxt::import_onnx
