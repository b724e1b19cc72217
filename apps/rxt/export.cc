// rxt export MODEL [--params P.safetensors | --checkpoint DIR|FILE] -o OUT.onnx: a function of a
// module (by default a backbone's inference) written in another format by its exporter plugin,
// with the values of its parameters as the format's constants.
#include <filesystem>
#include <iostream>
#include <memory>

#include "command.h"
#include "plugin_options.h"
#include "rxt/runtime/safetensors.h"
#include "rxt/support/file_io.h"
#include "rxt/support/message_text.h"
#include "rxt/train/trainer.h"
#include "rxt/transform/passes.h"
#include "train_checkpoints.h"

namespace rxt::cli {
namespace {

struct ExportOptions {
  std::string file, output, format, function, params, checkpoint, exporter_options, import_options;
  std::vector<std::string> bind;
  PluginOptions plugins;
};

/// A checkpoint file, or the newest epoch-<N>.safetensors of a --checkpoint-dir directory.
std::string CheckpointFile(const std::string& path) {
  if (!std::filesystem::is_directory(path)) return path;
  std::optional<std::pair<int, std::string>> newest = NewestCheckpoint(path);
  if (!newest) Throw(ErrorCode::kNotFound, "--checkpoint: ", path, " holds no epoch-<N>.safetensors");
  return newest->second;
}

/// The values to export with: a checkpoint's parameters and states ("param/x", "state/x"), a
/// values file, or the model's own (beside an .rxt file, an imported model's initializers).
std::map<std::string, Tensor> Values(const ExportOptions& o, std::map<std::string, Tensor> own) {
  if (!o.params.empty() && !o.checkpoint.empty()) {
    Throw(ErrorCode::kInvalidArgument, "give --params or --checkpoint, not both");
  }
  std::map<std::string, Tensor> values;
  if (!o.checkpoint.empty()) {
    std::string file = CheckpointFile(o.checkpoint);
    TensorFile checkpoint = LoadSafetensors(file);
    if (checkpoint.metadata.count(Trainer::kCheckpointStepKey) != 0) values = ExportValues(checkpoint);
    if (values.empty()) Throw(ErrorCode::kInvalidArgument, "--checkpoint: ", file, " holds no param/ or state/ tensors");
    return values;
  }
  if (!o.params.empty()) return ExportValues(LoadSafetensors(o.params));
  return own;
}

/// "n=64" -> {"n", 64}.
std::pair<std::string, int64_t> ParseBinding(const std::string& text) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) Throw(ErrorCode::kInvalidArgument, "--bind ", Quoted(text), ": expected NAME=N");
  try {
    size_t used = 0;
    int64_t value = std::stoll(text.substr(eq + 1), &used);
    if (used != text.size() - eq - 1 || value < 0) throw std::invalid_argument("");
    return {text.substr(0, eq), value};
  } catch (const std::exception&) {
    Throw(ErrorCode::kInvalidArgument, "--bind ", Quoted(text), ": the value must be a non-negative integer");
  }
}

void RunExport(const ExportOptions& o) {
  Session session({.plugins = o.plugins.paths, .search_path = !o.plugins.no_search});
  IRModule module;
  std::map<std::string, Tensor> own;
  if (!o.file.ends_with(".rxt") && session.CanImport(o.file)) {
    ImportedModel imported = NamingFileInErrors(o.file, [&] { return session.Import(o.file, o.import_options); });
    module = imported.module;
    own = std::move(imported.values);
  } else {
    module = ParseFile(o.file, &session);
    std::filesystem::path beside = std::filesystem::path(o.file).replace_extension(".safetensors");
    if (std::filesystem::exists(beside)) {
      for (auto& [name, tensor] : LoadSafetensors(beside.string()).tensors) own.emplace(name, tensor);
    }
  }
  std::map<std::string, Tensor> values = Values(o, std::move(own));
  ExportRequest request{o.function, o.format, o.output, o.exporter_options};
  if (!o.bind.empty()) {
    std::map<std::string, int64_t> bindings;
    for (const std::string& b : o.bind) bindings.insert(ParseBinding(b));
    std::string function = o.function.empty() && module.FindFunction("backbone") ? "backbone" : o.function;
    if (function.empty()) Throw(ErrorCode::kInvalidArgument, "--bind needs --function (the module has no @backbone)");
    module = BindSymbolicVars(function, bindings)(module);
  }
  ExportedModel exported = NamingFileInErrors(o.file, [&] { return session.Export(module, values, request); });
  WriteFileAtomically(o.output, exported.bytes.data(), exported.bytes.size(), "the exported model");
  std::cout << o.output << ": @" << exported.function << " as " << exported.format << ", " << exported.num_inputs
            << (exported.num_inputs == 1 ? " input, " : " inputs, ") << exported.num_values << " values, "
            << exported.bytes.size() << " bytes\n";
}

}  // namespace

void AddExportCommand(CLI::App& app, CommandResult& result) {
  auto o = std::make_shared<ExportOptions>();
  CLI::App* command = app.add_subcommand(
      "export", "Write a module's function (a backbone: its inference) in another format, by its exporter plugin.");
  command->add_option("MODEL", o->file, "The module (.rxt, or a model an importer reads)")->required();
  command->add_option("-o,--output", o->output, "The file to write (its extension picks the exporter)")->required();
  command->add_option("--format", o->format, "The exporter, by name ('rxt plugins' lists them): onnx");
  command->add_option("--function", o->function, "The function to export (default: @backbone, else the only one)");
  command->add_option("--params", o->params, "Values by name (default: the model's own: MODEL's name with .safetensors)")
      ->type_name("FILE.safetensors");
  command->add_option("--checkpoint", o->checkpoint,
                      "Values from a training checkpoint: a file, or the newest epoch of an `rxt train --checkpoint-dir`")
      ->type_name("FILE|DIR");
  command->add_option("--bind", o->bind, "Give a symbolic dim a value (repeatable): --bind n=1")->type_name("NAME=N");
  command->add_option("--options", o->exporter_options, "Options of the exporter (see its documentation)");
  command->add_option("--import-options", o->import_options, "Options of the importer, when MODEL is imported");
  AddPluginOptions(command, &o->plugins);
  command->footer("Example: rxt export model.rxt -o model.onnx   (values from model.safetensors)");
  command->callback([o, &result] {
    RunExport(*o);
    result.exit_code = 0;
  });
}

}  // namespace rxt::cli
