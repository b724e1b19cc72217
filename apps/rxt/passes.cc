// rxt passes: every pass `rxt show --passes` accepts, with its one-line summary.
#include <iostream>

#include "command.h"
#include "rxt/transform/passes.h"
#include "table.h"

namespace rxt::cli {

void AddPassesCommand(CLI::App& app, CommandResult& result) {
  CLI::App* passes = app.add_subcommand("passes", "List every pass with a one-line summary.");
  passes->callback([&result] {
    std::vector<std::pair<std::string, std::string>> rows;
    for (const PassInfo& pass : ListPasses()) rows.emplace_back(pass.name, FirstLine(pass.summary));
    PrintTable(std::cout, rows);
    result.exit_code = 0;
  });
}

}  // namespace rxt::cli
