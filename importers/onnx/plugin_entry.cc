// The plugin rxt_import_onnx: the importer "onnx" (.onnx files).
#include <rxt/plugin.h>
#include <rxt/plugin_support/host.h>

#include <cstring>
#include <vector>

#include "graph_text.h"
#include "onnx_model.h"

namespace rxt::import_onnx {
namespace {

using plugin_support::MakeStatus;

/// A float initializer's values (raw_data or float_data), as a compact float32 tensor.
std::vector<float> FloatValues(const onnx::TensorProto& t, size_t count) {
  std::vector<float> values(count);
  if (t.has_raw_data()) {
    if (t.raw_data().size() != count * sizeof(float)) {
      throw ImportError("initializer '" + t.name() + "' holds " + std::to_string(t.raw_data().size()) +
                        " bytes for " + std::to_string(count) + " floats");
    }
    std::memcpy(values.data(), t.raw_data().data(), t.raw_data().size());  // little-endian, as ONNX stores it
  } else {
    if (static_cast<size_t>(t.float_data_size()) != count) {
      throw ImportError("initializer '" + t.name() + "' holds " + std::to_string(t.float_data_size()) +
                        " floats for " + std::to_string(count));
    }
    std::copy(t.float_data().begin(), t.float_data().end(), values.begin());
  }
  return values;
}

rxt_status_t Import(void* /*state*/, const char* path, const char* options, const rxt_import_sink_api_t* api,
                    rxt_import_sink_t* sink) {
  try {
    if (options != nullptr && options[0] != '\0') {
      throw ImportError(std::string("it takes no options yet, got '") + options + "'");
    }
    onnx::ModelProto model = ReadModel(path);
    GraphText graph = WriteGraph(model);
    if (rxt_status_t s = api->write_text(sink, graph.text.data(), graph.text.size())) return s;
    for (const onnx::TensorProto* t : graph.params) {
      if (t->data_location() == onnx::TensorProto::EXTERNAL) {
        throw ImportError("initializer '" + t->name() + "' is in external data (not supported yet)");
      }
      std::vector<int64_t> shape(t->dims().begin(), t->dims().end());
      size_t count = 1;
      for (int64_t d : shape) count *= static_cast<size_t>(d);
      std::vector<float> values = FloatValues(*t, count);
      DLTensor tensor{};
      tensor.data = values.data();
      tensor.device = {kDLCPU, 0};
      tensor.ndim = static_cast<int32_t>(shape.size());
      tensor.dtype = {kDLFloat, 32, 1};
      tensor.shape = shape.data();
      if (rxt_status_t s = api->add_value(sink, t->name().c_str(), &tensor)) return s;
    }
    return nullptr;
  } catch (const ImportError& e) {
    return MakeStatus(RXT_INVALID_ARGUMENT, e.what());
  } catch (const std::exception& e) {
    return MakeStatus(RXT_INTERNAL, e.what());
  }
}

const rxt_importer_t kOnnx = {sizeof(rxt_importer_t), "onnx",
                              "ONNX models (.onnx), read with ONNX's library: checked, shapes inferred",
                              nullptr, ".onnx", &Import};
const rxt_importer_t* const kImporters[] = {&kOnnx};

const rxt_plugin_descriptor_t kDescriptor = [] {
  rxt_plugin_descriptor_t d{};
  d.struct_size = sizeof(rxt_plugin_descriptor_t);
  d.abi_version = RXT_PLUGIN_ABI_VERSION;
  d.name = "rxt_import_onnx";
  d.version = "0.1.0";
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
