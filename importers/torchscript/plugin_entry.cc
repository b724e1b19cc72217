// The plugin rxt_import_torchscript: the importer "torchscript" (.pt files of torch.jit.save).
#include <rxt/plugin.h>
#include <rxt/plugin_support/host.h>

#include "isolated.h"
#include "libtorch_part.h"
#include "options.h"

namespace rxt::import_torchscript {
namespace {

using plugin_support::MakeStatus;

rxt_status_t AddValue(TensorValue& v, const rxt_import_sink_api_t* api, rxt_import_sink_t* sink) {
  DLTensor tensor{};
  tensor.data = v.bytes.data();
  tensor.device = {kDLCPU, 0};
  tensor.ndim = static_cast<int32_t>(v.shape.size());
  tensor.dtype.code = v.dtype_code;
  tensor.dtype.bits = v.dtype_bits;
  tensor.dtype.lanes = 1;
  tensor.shape = v.shape.data();
  rxt_status_t s = api->add_value(sink, v.name.c_str(), &tensor);
  std::string().swap(v.bytes);  // the host has its copy
  return s;
}

rxt_status_t Import(void* /*state*/, const char* path, const char* options, const rxt_import_sink_api_t* api,
                    rxt_import_sink_t* sink) {
  try {
    const ImportOptions parsed = ParseImportOptions(options != nullptr ? options : "");
    const std::string file = path;
    ImportedModule imported = RunIsolated([&] { return ImportWithLibtorchPart(file, parsed); });
    if (rxt_status_t s = api->write_text(sink, imported.text.data(), imported.text.size())) return s;
    for (TensorValue& v : imported.values) {
      if (rxt_status_t s = AddValue(v, api, sink)) return s;
    }
    return nullptr;
  } catch (const ImportError& e) {
    return MakeStatus(RXT_INVALID_ARGUMENT, e.what());
  } catch (const std::exception& e) {
    return MakeStatus(RXT_INTERNAL, e.what());
  }
}

const rxt_importer_t kTorchScript = {sizeof(rxt_importer_t),
                                     "torchscript",
                                     "TorchScript modules (.pt of torch.jit.save, traced or scripted), read with "
                                     "libtorch: forward inlined, aten ops converted; give input shapes with shape=",
                                     nullptr,
                                     ".pt",
                                     &Import};
const rxt_importer_t* const kImporters[] = {&kTorchScript};

const rxt_plugin_descriptor_t kDescriptor = [] {
  rxt_plugin_descriptor_t d{};
  d.struct_size = sizeof(rxt_plugin_descriptor_t);
  d.abi_version = RXT_PLUGIN_ABI_VERSION;
  d.name = "rxt_import_torchscript";
  d.version = "0.1.0";
  d.summary = "The TorchScript importer.";
  d.importers = kImporters;
  d.num_importers = 1;
  return d;
}();

}  // namespace
}  // namespace rxt::import_torchscript

RXT_PLUGIN_EXPORT const rxt_plugin_descriptor_t* rxt_plugin_entry(uint32_t host_abi_version,
                                                                  const rxt_host_api_t* host) {
  if (!rxt::plugin_support::ConnectHost(host_abi_version, host, "rxt_import_torchscript")) return nullptr;
  return &rxt::import_torchscript::kDescriptor;
}
