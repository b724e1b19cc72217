// rxt import MODEL -o OUT.rxt: a model of another format (ONNX, ...: whichever importer plugin
// reads its extension) as an .rxt module, and beside it OUT.safetensors with the values of its
// parameters and states by name (weights stay out of the text: the module stays readable).
#include <iostream>
#include <memory>

#include "command.h"
#include "plugin_options.h"
#include "rxt/ir/printer.h"
#include "rxt/runtime/safetensors.h"
#include "rxt/support/file_io.h"

namespace rxt::cli {
namespace {

/// OUT.rxt -> OUT.safetensors (any other name: the name with .safetensors appended).
std::string ValuesPathFor(const std::string& module_path) {
  bool rxt = module_path.size() > 4 && module_path.ends_with(".rxt");
  return (rxt ? module_path.substr(0, module_path.size() - 4) : module_path) + ".safetensors";
}

}  // namespace

void AddImportCommand(CLI::App& app, CommandResult& result) {
  struct Options {
    std::string file, output, importer_options;
    std::vector<std::string> freeze;
    PluginOptions plugins;
  };
  auto options = std::make_shared<Options>();
  CLI::App* command = app.add_subcommand(
      "import", "Read a model of another format (by its importer plugin) and write it as an .rxt module and its values.");
  command->add_option("MODEL", options->file, "The model to import (its extension picks the importer: 'rxt plugins' lists them)")
      ->required();
  command->add_option("-o,--output", options->output, "The .rxt file to write; its values go to the same name with .safetensors")
      ->required();
  command->add_option("--options", options->importer_options,
                      "Options of the importer: 'training=false' (see its documentation)");
  command->add_option("--freeze", options->freeze,
                      "Keep the initializers whose whole name matches REGEX constants: no parameters (repeatable; "
                      "the importer's freeze=REGEX option)")
      ->type_name("REGEX");
  AddPluginOptions(command, &options->plugins);
  command->footer("Example: rxt import model.onnx -o model.rxt   (writes model.rxt and model.safetensors)");
  command->callback([options, &result] {
    Session session({.plugins = options->plugins.paths, .search_path = !options->plugins.no_search});
    std::string importer_options = options->importer_options;
    for (const std::string& pattern : options->freeze) {
      importer_options += (importer_options.empty() ? "freeze=" : ", freeze=") + pattern;
    }
    ImportedModel model =
        NamingFileInErrors(options->file, [&] { return session.Import(options->file, importer_options); });
    std::string text = PrintModule(model.module);
    std::string values_path = ValuesPathFor(options->output);
    TensorFile values;
    for (auto& [name, tensor] : model.values) values.tensors.emplace_back(name, tensor);
    values.metadata["format"] = model.format;
    values.metadata["source"] = options->file;
    // Both written to temporary names first: a failure leaves what was there.
    SaveSafetensors(values_path, values);
    WriteFileAtomically(options->output, text.data(), text.size(), "the imported module");
    std::cout << options->output << ": " << model.module.entries().size() << " functions (" << model.format << ")\n"
              << values_path << ": " << values.tensors.size() << " values\n";
    result.exit_code = 0;
  });
}

}  // namespace rxt::cli
