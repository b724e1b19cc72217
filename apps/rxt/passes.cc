// rxt passes: every pass `rxt show --passes` accepts, with its one-line summary and the options
// it takes by name (pass/pass_list.h: `Gradient(func_name=main)`).
#include <iostream>

#include "command.h"
#include "rxt/pass/pass_registry.h"
#include "rxt/transform/passes.h"
#include "table.h"

namespace rxt::cli {

void AddPassesCommand(CLI::App& app, CommandResult& result) {
  CLI::App* passes = app.add_subcommand("passes", "List every pass with a one-line summary and its options.");
  passes->footer("Options go in parentheses after the name: rxt show M.rxt --passes 'Gradient(require_grads=[w, b])'");
  passes->callback([&result] {
    std::vector<std::pair<std::string, std::string>> rows;
    for (const PassInfo& pass : ListPasses()) {
      rows.emplace_back(pass.name, FirstLine(pass.summary));
      for (const PassOptionSpec& option : PassRegistry::Global().Entry(pass.name).options) {
        rows.emplace_back("  (" + option.name + "=)", option.doc);
      }
    }
    PrintTable(std::cout, rows);
    result.exit_code = 0;
  });
}

}  // namespace rxt::cli
