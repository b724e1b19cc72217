// The plugin rxt_export_onnx: the exporter "onnx" (.onnx files, opset 17). The graph the host
// hands over becomes a ModelProto: inputs, parameters as initializers, one or more nodes per
// binding, outputs; ONNX's checker and strict shape inference then check it before it is
// written.
#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>
#include <rxt/plugin.h>
#include <rxt/plugin_support/host.h>

#include <map>
#include <set>
#include <sstream>

#include "converters.h"
#include "graph_writer.h"

namespace rxt::export_onnx {
namespace {

using plugin_support::MakeStatus;

/// The bindings that could not be exported, by op (or kind of binding), for one error.
class Refusals {
 public:
  void Add(const std::string& what, const std::string& var, const std::string& why) {
    Entry& e = entries_[what];
    if (e.count++ == 0) {
      e.first = var;
      e.why = why;
    }
  }
  bool empty() const { return entries_.empty(); }
  std::string Message() const {
    std::ostringstream out;
    out << "ONNX cannot express: ";
    bool first = true;
    for (const auto& [what, e] : entries_) {
      out << (first ? "" : "; ") << what << " (" << e.count << (e.count == 1 ? " binding" : " bindings") << ", first %"
          << e.first << (e.why.empty() ? "" : ": " + e.why) << ")";
      first = false;
    }
    return out.str();
  }

 private:
  struct Entry {
    int count = 0;
    std::string first, why;
  };
  std::map<std::string, Entry> entries_;
};

std::string NameOf(GraphWriter& w, rxt_ir_expr_t var) {
  const char* name = w.ir->var_name(w.reader, var);
  return name ? name : "?";
}

/// One binding %var = value.
void ExportBinding(GraphWriter& w, rxt_ir_expr_t var, rxt_ir_expr_t value, Refusals& refusals) {
  const rxt_ir_api_t* ir = w.ir;
  const std::string name = NameOf(w, var);
  std::string what;
  try {
    switch (ir->expr_kind(w.reader, value)) {
      case RXT_IR_OP_CALL: {
        what = ir->op_name(w.reader, value);
        Converter convert = FindConverter(what);
        if (convert == nullptr) throw ExportError("");
        OpContext context(w, value, var);
        convert(context);
        return;
      }
      case RXT_IR_VAR:
      case RXT_IR_SHAPE:
      case RXT_IR_PRIM_VALUE:
        w.SetValue(var, value);
        return;
      case RXT_IR_CONSTANT: {
        w.SetTensor(var, w.Tensor(value));
        return;
      }
      case RXT_IR_TUPLE: w.SetTuple(var, w.Tuple(value)); return;
      case RXT_IR_TUPLE_ITEM: w.SetTensor(var, w.Tensor(value)); return;
      case RXT_IR_CALL: what = "calls of functions, kernels and externs"; throw ExportError("");
      default: what = "bindings of another kind"; throw ExportError("");
    }
  } catch (const UsesFailedValue&) {
    w.SetFailed(var);
  } catch (const ExportError& e) {
    refusals.Add(what.empty() ? "a binding" : what, name, e.what());
    w.SetFailed(var);
  }
}

/// The graph's outputs, keeping the names of the values a node made (an imported model's
/// output names come back); an input, an initializer or a value returned twice goes through
/// Identity to a name of its own.
void AddOutputs(GraphWriter& w, rxt_ir_expr_t output) {
  std::vector<rxt_ir_expr_t> fields;
  if (w.ir->expr_kind(w.reader, output) == RXT_IR_TUPLE) {
    for (int i = 0, n = w.ir->num_fields(w.reader, output); i < n; ++i) fields.push_back(w.ir->field(w.reader, output, i));
  } else {
    fields.push_back(output);
  }
  std::set<std::string> produced, outputs;
  for (const onnx::NodeProto& node : w.graph.node()) produced.insert(node.output().begin(), node.output().end());
  for (size_t i = 0; i < fields.size(); ++i) {
    std::string name = w.Tensor(fields[i]);
    if (produced.count(name) == 0 || outputs.count(name) != 0) {
      const char* var = w.ir->var_name(w.reader, fields[i]);
      std::string renamed = w.Unique(var != nullptr && outputs.count(var) == 0 ? std::string(var) + "_output" : "output");
      w.Node("Identity", {name}, {renamed});
      name = renamed;
    }
    outputs.insert(name);
    onnx::ValueInfoProto& info = *w.graph.add_output();
    info.set_name(name);
    w.SetType(info, fields[i]);
  }
}

onnx::ModelProto BuildModel(const rxt_ir_api_t* ir, rxt_ir_builder_t* reader, const rxt_export_graph_t& g) {
  onnx::ModelProto model;
  model.set_ir_version(onnx::IR_VERSION);
  model.set_producer_name("rxt");
  model.set_producer_version("0.2.0");
  onnx::OperatorSetIdProto& opset = *model.add_opset_import();
  opset.set_domain("");
  opset.set_version(kOpset);
  onnx::GraphProto& graph = *model.mutable_graph();
  graph.set_name(g.name != nullptr ? g.name : "main");
  GraphWriter w(ir, reader, graph);

  for (int i = 0; i < g.num_inputs; ++i) {
    rxt_ir_expr_t var = g.inputs[i];
    std::string name = w.Unique(NameOf(w, var));
    if (g.values[i] != nullptr) {
      const char* dtype = ir->dtype(reader, var);  // bool crosses DLPack 0.6 as uint8
      w.Initializer(*g.values[i], name, /*exact_name=*/true, OnnxType(dtype ? dtype : ""));
    } else {
      onnx::ValueInfoProto& info = *graph.add_input();
      info.set_name(name);
      w.SetType(info, var);
      w.NoteSymbols(name, var);
    }
    w.SetTensor(var, name);
  }
  Refusals refusals;
  for (int i = 0; i < g.num_bindings; ++i) ExportBinding(w, g.vars[i], g.bound[i], refusals);
  if (!refusals.empty()) throw ExportError(refusals.Message());
  AddOutputs(w, g.output);
  for (const onnx::NodeProto& node : graph.node()) {
    if (node.domain() != kTrainingDomain) continue;
    onnx::OperatorSetIdProto& training = *model.add_opset_import();
    training.set_domain(kTrainingDomain);
    training.set_version(1);
    break;
  }
  return model;
}

/// ONNX's checker, then its shape inference in strict mode (what `onnx.checker.check_model(m,
/// full_check=True)` runs): a failure here is the exporter's bug.
void CheckModel(onnx::ModelProto& model) {
  try {
    onnx::checker::check_model(model);
    const onnx::ShapeInferenceOptions options(/*check_type=*/true, /*strict_mode=*/1, /*data_prop=*/false);
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("the exported model fails ONNX's checker (a bug of the exporter): ") + e.what());
  }
}

rxt_status_t ExportGraph(void* /*state*/, const rxt_ir_api_t* ir, rxt_ir_builder_t* reader, const rxt_export_graph_t* graph,
                         const char* options, const rxt_export_sink_api_t* api, rxt_export_sink_t* sink) {
  try {
    if (graph == nullptr || !RXT_IR_API_HAS(ir, prim_value)) {
      return MakeStatus(RXT_FAILED_PRECONDITION, "the host's IR table lacks the readers exporters need");
    }
    if (options != nullptr && options[0] != '\0' && ir->check_options(reader, options, nullptr, 0) != RXT_OK) {
      return MakeStatus(RXT_INVALID_ARGUMENT, ir->error(reader) ? ir->error(reader) : "bad options");
    }
    onnx::ModelProto model = BuildModel(ir, reader, *graph);
    CheckModel(model);
    model.mutable_graph()->clear_value_info();  // inference wrote its shapes: leave them out
    std::string bytes;
    if (!model.SerializeToString(&bytes)) return MakeStatus(RXT_INTERNAL, "the model does not serialize (over 2 GB?)");
    return api->write(sink, bytes.data(), bytes.size());
  } catch (const ExportError& e) {
    return MakeStatus(RXT_UNIMPLEMENTED, e.what());
  } catch (const std::exception& e) {
    return MakeStatus(RXT_INTERNAL, e.what());
  }
}

const rxt_exporter_t kOnnx = {sizeof(rxt_exporter_t), "onnx",
                              "ONNX models (.onnx, opset 17), checked with ONNX's checker and shape inference", nullptr,
                              ".onnx", &ExportGraph};
const rxt_exporter_t* const kExporters[] = {&kOnnx};

const rxt_plugin_descriptor_t kDescriptor = [] {
  rxt_plugin_descriptor_t d{};
  d.struct_size = sizeof(rxt_plugin_descriptor_t);
  d.abi_version = RXT_PLUGIN_ABI_VERSION;
  d.name = "rxt_export_onnx";
  d.version = "0.1.0";
  d.summary = "The ONNX exporter.";
  d.exporters = kExporters;
  d.num_exporters = 1;
  return d;
}();

}  // namespace
}  // namespace rxt::export_onnx

RXT_PLUGIN_EXPORT const rxt_plugin_descriptor_t* rxt_plugin_entry(uint32_t host_abi_version,
                                                                  const rxt_host_api_t* host) {
  if (!rxt::plugin_support::ConnectHost(host_abi_version, host, "rxt_export_onnx")) return nullptr;
  return &rxt::export_onnx::kDescriptor;
}
