// The converters: one function per ONNX op (at opset kTargetOpset) that writes the node as rxt
// op calls through its NodeContext. They live in files by family (convert_*.cc); each adds its
// own to the table. Folding (folding.cc) runs first: a node whose inputs are known at import
// time is computed, not converted.
#pragma once

#include <map>
#include <string>

#include "graph_builder.h"

namespace rxt::import_onnx {

using Converter = void (*)(NodeContext&);
using ConverterMap = std::map<std::string, Converter>;

void AddElementwiseConverters(ConverterMap& map);  // convert_elementwise.cc
void AddNNConverters(ConverterMap& map);           // convert_nn.cc
void AddShapeConverters(ConverterMap& map);        // convert_shape.cc
void AddReduceConverters(ConverterMap& map);       // convert_reduce.cc
void AddIndexConverters(ConverterMap& map);        // convert_index.cc
void AddResizeConverters(ConverterMap& map);       // convert_resize.cc
void AddSignalConverters(ConverterMap& map);       // convert_signal.cc
void AddEinsumConverters(ConverterMap& map);       // convert_einsum.cc
void AddQuantizeConverters(ConverterMap& map);     // convert_quantize.cc
void AddTrainingConverters(ConverterMap& map);     // convert_training.cc (domain ai.onnx.preview.training)

/// Conv, MaxPool and AveragePool over 3 spatial dims (|kernel| has 3 dims) as 2-D ones per depth
/// tap (convert_volume.cc); false for other ranks.
bool ConvertVolume(NodeContext& ctx, const std::vector<int64_t>& kernel);

/// Every converter, by ONNX op type: "Conv" in the default domain, "<domain>.<op>" in another.
const ConverterMap& Converters();

/// Computes the node at import time when its inputs are known and the op is one the folder
/// knows (shape arithmetic, Constant, Cast, ...); false when it leaves the node to its converter.
bool TryFold(NodeContext& ctx);

}  // namespace rxt::import_onnx
