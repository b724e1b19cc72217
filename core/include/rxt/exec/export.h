// Functions written in other formats by exporter plugins (rxt_exporter_t, rxt/plugin.h): the
// host prepares the function (a backbone's at inference, other functions' calls inlined, dead
// code removed), hands it to the exporter as a graph with the values of its parameters, and
// returns the bytes the exporter wrote.
//
//   ExportedModel m = ExportModel(PluginHost::Global(), module, values, {.path = "model.onnx"});
//   WriteFileAtomically("model.onnx", m.bytes.data(), m.bytes.size(), "the exported model");
#pragma once

#include <map>
#include <string>

#include "rxt/ir/module.h"
#include "rxt/plugin/plugin_host.h"
#include "rxt/runtime/safetensors.h"
#include "rxt/runtime/tensor.h"

namespace rxt {

struct ExportRequest {
  /// The function to export; empty: @backbone if the module has one, else its only function.
  /// A backbone (a module SetupTrainer takes) exports at inference: its outputs without the
  /// updated states, nn.batch_norm on its moving statistics, nn.dropout as the identity.
  std::string function;
  /// The exporter's name ("onnx"); empty: the one that writes |path|'s extension.
  std::string format;
  /// Where the bytes will go (only its extension is read here).
  std::string path;
  /// Options of the exporter, attributes in the text format.
  std::string options;
};

struct ExportedModel {
  std::string bytes;     // the file's contents
  std::string format;    // the exporter's name
  std::string function;  // the function exported
  int num_inputs = 0;    // inputs of the exported model
  int num_values = 0;    // parameters exported with their values
};

/// The exporter named |format|, or (|format| empty) the one that writes |path|'s extension
/// (case-insensitive). kNotFound naming the loaded exporters (or that none is loaded).
PluginItem FindExporter(const PluginHost& host, const std::string& format, const std::string& path);

/// Whether some exporter of |host| is named |format| or (|format| empty) writes |path|.
bool IsExportable(const PluginHost& host, const std::string& format, const std::string& path);

/// The function ExportModel hands over, as a one-function module: |request|.function chosen and
/// prepared as ExportRequest says. kNotFound for a function the module lacks.
Function PrepareForExport(const IRModule& module, const std::string& function, std::string* chosen = nullptr);

/// The values a safetensors file gives an export, by parameter name: a trainer checkpoint's
/// parameters and states ("param/<name>", "state/<name>"; its optimizer state left out), or
/// every tensor of any other file (the values `rxt import` writes beside a module).
std::map<std::string, Tensor> ExportValues(const TensorFile& file);

/// Exports |request|.function of |module|: each parameter whose name (without %) |values| holds
/// goes with that value (its dtype and shape must fit the parameter); the others are inputs of
/// the exported model — except a backbone's parameters and states, which must all have values.
/// Errors: the exporter's own (its code, "<function>: <format> exporter: <message>"), a value
/// that does not fit (kInvalidArgument), a missing value (kNotFound naming it).
ExportedModel ExportModel(const PluginHost& host, const IRModule& module, const std::map<std::string, Tensor>& values,
                          const ExportRequest& request);

}  // namespace rxt
