// The converters: one function per aten or prim op kind that writes the node as rxt op calls
// (or computes it at import time: shapes, ints, lists) through its NodeContext. They live in
// files by family (convert_*.cc); each adds its own to the table.
#pragma once

#include <map>
#include <string>

#include "node_context.h"

namespace rxt::import_torchscript {

using Converter = void (*)(NodeContext&);
using ConverterMap = std::map<std::string, Converter>;

void AddScalarConverters(ConverterMap& map);       // convert_scalar.cc: prim ops, ints, lists, aten::size
void AddElementwiseConverters(ConverterMap& map);  // convert_elementwise.cc
void AddNNConverters(ConverterMap& map);           // convert_nn.cc
void AddShapeConverters(ConverterMap& map);        // convert_shape.cc
void AddReduceConverters(ConverterMap& map);       // convert_reduce.cc

/// Every converter, by node kind ("aten::relu"; in-place kinds convert as their functional one).
const ConverterMap& Converters();

/// Whether every input is a number or a list (no tensor): the arithmetic kinds shared with
/// tensors (aten::mul...) then fold at import time (convert_scalar.cc).
bool FoldsAtImport(const NodeContext& ctx);
/// Folds an arithmetic node of numbers (FoldsAtImport); an unsupported-node failure otherwise.
void FoldArithmetic(NodeContext& ctx);

// ---- Helpers the converters share

/// The broadcast of two shapes (numpy's rules); a failure when they do not broadcast.
Dims Broadcast(const NodeContext& ctx, const Dims& a, const Dims& b);
/// The dtype of a binary op's result: a tensor's over a number's, float over int, wider over narrower.
std::string PromoteTypes(const NodeContext& ctx, int a, int b);
/// Input i as a tensor expression of |dtype| (cast when it differs).
std::string TensorAs(NodeContext& ctx, int i, const std::string& dtype);
/// Whether |dtype| is a floating-point type.
bool IsFloat(const std::string& dtype);

}  // namespace rxt::import_torchscript
