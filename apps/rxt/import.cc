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
                      "Options of the importer, as attributes: 'freeze=[fc.weight]' (see its documentation)");
  AddPluginOptions(command, &options->plugins);
  command->footer("Example: rxt import model.onnx -o model.rxt   (writes model.rxt and model.safetensors)");
  command->callback([options, &result] {
    Session session({.plugins = options->plugins.paths, .search_path = !options->plugins.no_search});
    ImportedModel model =
        NamingFileInErrors(options->file, [&] { return session.Import(options->file, options->importer_options); });
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
