#include "static_folding.h"

#include <set>

#include "onnx_model.h"

namespace rxt::import_onnx {
namespace {

onnx::TensorProto AsInitializer(const std::string& name, const Constant& c) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(c.dtype);
  for (int64_t d : c.shape) t.add_dims(d);
  t.set_raw_data(ConstantBytes(c));
  return t;
}

/// One round: the nodes all of whose outputs fold become initializers; false when none does.
bool FoldOnce(onnx::ModelProto& model, const ImportOptions& options, const std::string& model_dir) {
  std::map<std::string, Constant> folded = GraphBuilder(model, options, model_dir).FoldStaticIntegers();
  std::set<std::string> graph_outputs;
  for (const onnx::ValueInfoProto& v : model.graph().output()) graph_outputs.insert(v.name());
  onnx::GraphProto* graph = model.mutable_graph();
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  bool changed = false;
  for (const onnx::NodeProto& node : graph->node()) {
    bool all_folded = node.output_size() > 0;
    for (const std::string& output : node.output()) {
      all_folded = all_folded && (output.empty() || (folded.count(output) != 0 && graph_outputs.count(output) == 0));
    }
    if (!all_folded) {
      *kept.Add() = node;
      continue;
    }
    for (const std::string& output : node.output()) {
      if (!output.empty()) *graph->add_initializer() = AsInitializer(output, folded.at(output));
    }
    changed = true;
  }
  if (changed) graph->mutable_node()->Swap(&kept);
  return changed;
}

/// PyTorch exports parameters with equal initial values (zero biases, unit norm weights) as one
/// initializer and Identity nodes naming the others: each becomes an initializer of its own, so
/// that training keeps them apart as PyTorch does.
void SplitSharedInitializers(onnx::ModelProto& model) {
  onnx::GraphProto* graph = model.mutable_graph();
  std::map<std::string, const onnx::TensorProto*> initializers;
  for (const onnx::TensorProto& t : graph->initializer()) initializers[t.name()] = &t;
  std::vector<onnx::TensorProto> copies;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  std::set<std::string> graph_outputs;
  for (const onnx::ValueInfoProto& v : graph->output()) graph_outputs.insert(v.name());
  for (const onnx::NodeProto& node : graph->node()) {
    auto source = node.op_type() == "Identity" && node.domain().empty() && node.input_size() == 1 && node.output_size() == 1
                      ? initializers.find(node.input(0))
                      : initializers.end();
    if (source == initializers.end() || graph_outputs.count(node.output(0)) != 0) {
      *kept.Add() = node;
      continue;
    }
    copies.push_back(*source->second);
    copies.back().set_name(node.output(0));
  }
  if (copies.empty()) return;
  graph->mutable_node()->Swap(&kept);
  for (onnx::TensorProto& t : copies) *graph->add_initializer() = std::move(t);
}

}  // namespace

onnx::ModelProto FoldStaticShapes(onnx::ModelProto model, const ImportOptions& options, const std::string& model_dir) {
  SplitSharedInitializers(model);
  for (int round = 0; round < 4 && FoldOnce(model, options, model_dir); ++round) model = InferShapes(model);
  return model;
}

}  // namespace rxt::import_onnx
