// The plugin rxt_import_onnx: the importer "onnx" (.onnx files).
#include <rxt/plugin.h>
#include <rxt/plugin_support/host.h>

#include <map>
#include <vector>

#include "graph_builder.h"
#include "input_binding.h"
#include "onnx_model.h"
#include "static_folding.h"
#include "tensor_data.h"

namespace rxt::import_onnx {
namespace {

using plugin_support::MakeStatus;

/// Hands one initializer's value to the host (its name, shape, dtype and bytes).
rxt_status_t AddValue(const onnx::TensorProto& t, const std::string& model_dir, const rxt_import_sink_api_t* api,
                      rxt_import_sink_t* sink) {
  std::string bytes = TensorBytes(t, model_dir);
  std::vector<int64_t> shape(t.dims().begin(), t.dims().end());
  DLTensor tensor{};
  tensor.data = bytes.data();
  tensor.device = {kDLCPU, 0};
  tensor.ndim = static_cast<int32_t>(shape.size());
  DLTypeOf(t.data_type(), &tensor.dtype.code, &tensor.dtype.bits);
  tensor.dtype.lanes = 1;
  tensor.shape = shape.data();
  return api->add_value(sink, t.name().c_str(), &tensor);
}

rxt_status_t Import(void* /*state*/, const char* path, const char* options, const rxt_import_sink_api_t* api,
                    rxt_import_sink_t* sink) {
  try {
    ImportOptions parsed = ParseImportOptions(options != nullptr ? options : "");
    const std::string model_dir = ModelDir(path);
    onnx::ModelProto model = FoldStaticShapes(BindInputs(ReadModel(path), &parsed), parsed, model_dir);
    ImportedGraph graph = GraphBuilder(model, parsed, model_dir).Build();
    if (rxt_status_t s = api->write_text(sink, graph.text.data(), graph.text.size())) return s;
    std::map<const onnx::TensorProto*, int> uses;
    for (const onnx::TensorProto* t : graph.params) ++uses[t];
    for (const onnx::TensorProto* t : graph.params) {
      if (rxt_status_t s = AddValue(*t, model_dir, api, sink)) return s;
      // Once the host has its copy, this one goes, so the weights are never held twice here.
      // (|t| points into |model|, which nothing reads after this loop.)
      if (--uses[t] == 0) {
        onnx::TensorProto released;
        const_cast<onnx::TensorProto*>(t)->Swap(&released);
      }
    }
    return nullptr;
  } catch (const ImportError& e) {
    return MakeStatus(RXT_INVALID_ARGUMENT, e.what());
  } catch (const std::exception& e) {
    return MakeStatus(RXT_INTERNAL, e.what());
  }
}

const rxt_importer_t kOnnx = {sizeof(rxt_importer_t), "onnx",
                              "ONNX models (.onnx, opsets 7-17), read with ONNX's library: checked, converted "
                              "to opset 17, shapes inferred",
                              nullptr, ".onnx", &Import};
const rxt_importer_t* const kImporters[] = {&kOnnx};

const rxt_plugin_descriptor_t kDescriptor = [] {
  rxt_plugin_descriptor_t d{};
  d.struct_size = sizeof(rxt_plugin_descriptor_t);
  d.abi_version = RXT_PLUGIN_ABI_VERSION;
  d.name = "rxt_import_onnx";
  d.version = "0.2.0";
  d.summary = "The ONNX importer.";
  d.importers = kImporters;
  d.num_importers = 1;
  return d;
}();

}  // namespace
}  // namespace rxt::import_onnx

RXT_PLUGIN_EXPORT const rxt_plugin_descriptor_t* rxt_plugin_entry(uint32_t host_abi_version,
                                                                  const rxt_host_api_t* host) {
  if (!rxt::plugin_support::ConnectHost(host_abi_version, host, "rxt_import_onnx")) return nullptr;
  return &rxt::import_onnx::kDescriptor;
}
