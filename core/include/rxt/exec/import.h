// Models in other formats, read by importer plugins (rxt_importer_t, rxt/plugin.h): the
// importer writes the module's text and its parameters' values; the text is parsed and checked
// like a .rxt file, so what an importer gets wrong is an error naming the line.
//
//   ImportedModel m = ImportModel(PluginHost::Global(), "model.onnx");
//   // m.module: the backbone; m.values: "conv1.weight" -> Tensor, ...
#pragma once

#include <map>
#include <string>

#include "rxt/ir/module.h"
#include "rxt/plugin/plugin_host.h"
#include "rxt/runtime/tensor.h"

namespace rxt {

struct ImportedModel {
  IRModule module;
  std::map<std::string, Tensor> values;  // by parameter name (without %)
  std::string format;                    // the importer's name: "onnx"
};

/// The importer of |host| that reads |path|'s extension (case-insensitive). kNotFound naming the
/// extensions the loaded importers read (or that none is loaded).
PluginItem FindImporter(const PluginHost& host, const std::string& path);

/// Reads |path| with the importer FindImporter gives, |options| passed on (attributes in the
/// text format). Errors: the importer's own (its code, "<path>: <format> importer: <message>"), text it
/// wrote that does not parse or is not well formed (kInternal: a bug of the importer, with the
/// parser's line and column), a value for a name given twice.
ImportedModel ImportModel(const PluginHost& host, const std::string& path, const std::string& options = "");

/// Whether some importer of |host| reads |path| (by its extension).
bool IsImportable(const PluginHost& host, const std::string& path);

}  // namespace rxt
