// rxt show FILE [--passes P1,P2]: parse, optionally transform, print the text form.
#include <iostream>
#include <memory>

#include "command.h"
#include "plugin_options.h"
#include "rxt/ir/printer.h"
#include "rxt/transform/passes.h"

namespace rxt::cli {

void AddShowCommand(CLI::App& app, CommandResult& result) {
  struct Options {
    std::string file;
    std::vector<std::string> passes;
    PluginOptions plugins;
  };
  auto options = std::make_shared<Options>();
  CLI::App* show = app.add_subcommand("show", "Parse an .rxt file, optionally run passes on it, and print it.");
  show->add_option("FILE", options->file, "The .rxt file to show")->required();
  show->add_option("--passes,-p", options->passes,
                   "Comma-separated passes to run first, in order (see 'rxt passes')")
      ->delimiter(',');
  AddPluginOptions(show, &options->plugins);  // for ops that plugins define
  show->footer("Example: rxt show examples/mlp.rxt --passes DeadCodeElimination,Normalize");
  show->callback([options, &result] {
    Session session({.plugins = options->plugins.paths, .search_path = !options->plugins.no_search});
    IRModule module = ParseFile(options->file, &session);
    if (!options->passes.empty()) {
      module = NamingFileInErrors(options->file, [&] { return RunPasses(std::move(module), options->passes); });
    }
    std::cout << PrintModule(module);
    result.exit_code = 0;
  });
}

}  // namespace rxt::cli
