// rxt check FILE: parse and check well-formedness; print every diagnostic; exit 1 on any.
#include <iostream>
#include <memory>

#include "command.h"
#include "plugin_options.h"
#include "rxt/ir/well_formed.h"

namespace rxt::cli {

void AddCheckCommand(CLI::App& app, CommandResult& result) {
  auto file = std::make_shared<std::string>();
  auto plugins = std::make_shared<PluginOptions>();
  CLI::App* check = app.add_subcommand(
      "check", "Check an .rxt file: syntax, types and well-formedness. Exits 1 if anything is wrong.");
  check->add_option("FILE", *file, "The .rxt file to check")->required();
  AddPluginOptions(check, plugins.get());  // for ops that plugins define
  check->callback([file, plugins, &result] {
    Session session({.plugins = plugins->paths, .search_path = !plugins->no_search});
    IRModule module = ParseFile(*file, &session);  // a syntax or type error is thrown: exit 1
    std::vector<Diagnostic> diagnostics = CheckWellFormed(module);
    for (const Diagnostic& d : diagnostics) {
      std::string where = d.span.known() ? d.span.ToString() : *file;
      std::cerr << where << ": error: " << d.message << "\n";
    }
    if (diagnostics.empty()) {
      std::cout << *file << ": ok\n";
      result.exit_code = 0;
    } else {
      std::cerr << "rxt: error: " << *file << ": " << diagnostics.size()
                << (diagnostics.size() == 1 ? " problem" : " problems") << "\n";
      result.exit_code = 1;
    }
  });
}

}  // namespace rxt::cli
