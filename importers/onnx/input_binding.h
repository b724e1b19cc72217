// The bind=INPUT:VALUES option (graph_builder.h, ImportOptions::bind): graph inputs given a value
// at import become initializers, kept constant (frozen), and shapes are inferred again — for
// inputs rxt needs at compile time (axes, shapes, repeats given as inputs rather than constants).
#pragma once

#include <onnx/onnx_pb.h>

#include "graph_builder.h"

namespace rxt::import_onnx {

/// |model| with each input |options|.bind names replaced by an initializer of its declared type
/// and shape holding the values; their names are added to options->freeze. Throws ImportError
/// for an input the graph lacks, a shape that is not static or holds another count of values,
/// or an element type other than float, double, int32 and int64.
onnx::ModelProto BindInputs(onnx::ModelProto model, ImportOptions* options);

}  // namespace rxt::import_onnx
