// Modules in other formats across the ABI: rxt_module_import and rxt_module_export, through
// the importer and exporter plugins a session finds (exec/import.h, exec/export.h).
#include "api.h"
#include "rxt/exec/session.h"
#include "rxt/runtime/safetensors.h"
#include "rxt/support/file_io.h"
#include "context_handle.h"

extern "C" {

rxt_status_t rxt_module_import(rxt_context_t* context, const char* path, const char* options, const char* values_path,
                               rxt_module_t** out_module) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(path);
  RXT_CHECK_ARG(out_module);
  rxt::Session session(rxt::abi_impl::ContextOf(context));
  rxt::ImportedModel imported = session.Import(path, options != nullptr ? options : "");
  if (values_path != nullptr) {
    rxt::TensorFile file;
    for (auto& [name, tensor] : imported.values) file.tensors.emplace_back(name, tensor);
    rxt::SaveSafetensors(values_path, file);
  }
  *out_module = rxt::abi_impl::Wrap(std::move(imported.module));
  RXT_API_END();
}

rxt_status_t rxt_module_export(rxt_context_t* context, const rxt_module_t* module, const char* function,
                               const char* values_path, const char* path, const char* options) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(module);
  RXT_CHECK_ARG(path);
  rxt::Session session(rxt::abi_impl::ContextOf(context));
  rxt::ExportRequest request{function != nullptr ? function : "", "", path, options != nullptr ? options : ""};
  std::map<std::string, rxt::Tensor> values;
  if (values_path != nullptr) values = rxt::ExportValues(rxt::LoadSafetensors(values_path));
  rxt::ExportedModel exported = session.Export(rxt::abi_impl::Unwrap(module), values, request);
  rxt::WriteFileAtomically(path, exported.bytes.data(), exported.bytes.size(), "the exported model");
  RXT_API_END();
}

}  // extern "C"
