// rxt ops: every registered op with what it has — a legalization, a gradient rule (and the
// plugin it comes from), the kernel libraries that can take it — and a one-line summary (naming
// the plugin that defined the op, for an op of a plugin).
// Gradient rules come from plugins, so the command loads them as `rxt plugins` does.
#include <iostream>
#include <memory>

#include "command.h"
#include "plugin_options.h"
#include "rxt/ir/op.h"
#include "rxt/plugin/plugin_host.h"
#include "rxt/transform/legalize/legalize.h"
#include "rxt/transform/legalize/library_patterns.h"
#include "rxt/transform/training/providers.h"
#include "table.h"

namespace rxt::cli {
namespace {

std::string Joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ",") + name;
  return out.empty() ? "-" : out;
}

}  // namespace

void AddOpsCommand(CLI::App& app, CommandResult& result) {
  auto options = std::make_shared<PluginOptions>();
  CLI::App* ops = app.add_subcommand(
      "ops", "List every registered op: legalization, gradient rule (and its plugin), kernel libraries, summary.");
  AddPluginOptions(ops, options.get());
  ops->footer("Columns: legalize (yes: LegalizeOps lowers it to a kernel), gradient (the plugin whose rule\n"
              "differentiates it, - for none), libraries (the loaded kernel libraries with a pattern for its calls).");
  ops->callback([options, &result] {
    LoadAllPlugins(*options);
    const PluginHost& host = PluginHost::Global();
    std::vector<std::vector<std::string>> rows = {{"op", "legalize", "gradient", "libraries", "summary"}};
    for (const OpDef* op : OpRegistry::Global().List()) {
      std::optional<FGradient> rule = op->GetOwned<FGradient>(host.gradient_owner());
      std::string gradient = !rule ? "-" : rule->emit ? rule->plugin : rule->plugin + " (unusable)";
      // An op a plugin defined says which (the others are the core's).
      const FPluginOp* defined_by = op->Get<FPluginOp>();
      std::string summary = FirstLine(op->doc()) + (defined_by ? " (op of plugin " + defined_by->plugin + ")" : "");
      rows.push_back({op->name(), op->Has<FLegalize>() ? "yes" : "no", gradient,
                      Joined(LibrariesTaking(op->name(), host)), summary});
    }
    PrintColumns(std::cout, rows);
    result.exit_code = 0;
  });
}

}  // namespace rxt::cli
