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
                   "Passes to run first, in order, comma-separated, each with options in parentheses: "
                   "'Gradient(func_name=main, require_grads=[w1, b1]), SimplifyTransposes' (see 'rxt passes')");
  AddPluginOptions(show, &options->plugins);  // for ops that plugins define
  show->footer("Examples: rxt show examples/mlp.rxt --passes DeadCodeElimination,Normalize\n"
               "          rxt show model.rxt --passes 'Gradient(require_grads=[w1, b1])'");
  show->callback([options, &result] {
    Session session({.plugins = options->plugins.paths, .search_path = !options->plugins.no_search});
    IRModule module = ParseFile(options->file, &session);
    if (!options->passes.empty()) {
      module = NamingFileInErrors(options->file, [&] { return session.RunPasses(module, options->passes); });
    }
    std::cout << PrintModule(module);
    result.exit_code = 0;
  });
}

}  // namespace rxt::cli
