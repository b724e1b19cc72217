// rxt ops: every registered op with its one-line summary.
#include <iostream>

#include "command.h"
#include "rxt/ir/op.h"
#include "table.h"

namespace rxt::cli {

void AddOpsCommand(CLI::App& app, CommandResult& result) {
  CLI::App* ops = app.add_subcommand("ops", "List every registered op with a one-line summary.");
  ops->callback([&result] {
    std::vector<std::pair<std::string, std::string>> rows;
    for (const OpDef* op : OpRegistry::Global().List()) rows.emplace_back(op->name(), FirstLine(op->doc()));
    PrintTable(std::cout, rows);
    result.exit_code = 0;
  });
}

}  // namespace rxt::cli
