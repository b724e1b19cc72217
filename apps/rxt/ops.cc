// rxt ops: every registered op with what it has — a legalization, a gradient rule (and the
// plugin it comes from), the kernel libraries that can take it — and a one-line summary (naming
// the plugin that defined the op, for an op of a plugin). `rxt ops NAME...` prints each op's
// card: signature, attributes with kinds, defaults and docs, and its description (which states
// its struct-info rule); `rxt ops --markdown` prints every card as docs/ops.md.
// Gradient rules come from plugins, so the command loads them as `rxt plugins` does.
#include <iostream>
#include <memory>

#include "command.h"
#include "plugin_options.h"
#include "rxt/ir/op.h"
#include "rxt/ir/printer.h"
#include "rxt/plugin/plugin_host.h"
#include "rxt/support/message_text.h"
#include "rxt/transform/legalize/legalize.h"
#include "rxt/transform/legalize/library_patterns.h"
#include "rxt/transform/training/providers.h"
#include "table.h"

namespace rxt::cli {
namespace {

std::string Joined(const std::vector<std::string>& names, const char* separator = ",") {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : separator) + name;
  return out.empty() ? "-" : out;
}

/// What one op has, as the list and the cards show it.
struct OpFacts {
  std::string gradient;   // the rule's plugin, "-" for none
  std::string libraries;  // "-" for none
  std::string defined_by; // "" for a core op
};

OpFacts FactsOf(const OpDef& op, const PluginHost& host) {
  OpFacts facts;
  std::optional<FGradient> rule = op.GetOwned<FGradient>(host.gradient_owner());
  facts.gradient = !rule ? "-" : rule->emit ? rule->plugin : rule->plugin + " (unusable)";
  facts.libraries = Joined(LibrariesTaking(op.name(), host), ", ");
  if (const FPluginOp* plugin = op.Get<FPluginOp>()) facts.defined_by = plugin->plugin;
  return facts;
}

/// "nn.softmax(x: Tensor; axis: int = -1)".
std::string Signature(const OpDef& op) {
  std::vector<std::string> inputs;
  for (const InputSpec& input : op.inputs()) {
    inputs.push_back(input.name + ": " + (input.optional ? "optional " : "") + input.type);
  }
  if (op.variadic()) inputs.push_back("...");
  std::vector<std::string> attrs;
  for (const AttrSpec& attr : op.attrs()) {
    std::string text = attr.name + ": " + AttrKindName(attr.kind);
    if (!attr.required) text += " = " + PrintAttrValue(attr.default_value);
    attrs.push_back(text);
  }
  std::string signature = op.name() + "(" + Joined(inputs, ", ");
  if (inputs.empty()) signature = op.name() + "(";
  if (!attrs.empty()) signature += (inputs.empty() ? "" : "; ") + Joined(attrs, ", ");
  return signature + ")";
}

void PrintCard(std::ostream& os, const OpDef& op, const PluginHost& host) {
  OpFacts facts = FactsOf(op, host);
  os << Signature(op) << "\n\n" << op.doc() << "\n";
  if (!op.attrs().empty()) {
    os << "\nattributes:\n";
    std::vector<std::vector<std::string>> rows;
    for (const AttrSpec& attr : op.attrs()) {
      rows.push_back({"  " + attr.name, AttrKindName(attr.kind),
                      attr.required ? "required" : "default " + PrintAttrValue(attr.default_value), attr.doc});
    }
    PrintColumns(os, rows);
  }
  os << "\nlegalization: " << (op.Has<FLegalize>() ? "yes (LegalizeOps lowers it to a kernel)" : "no") << "\n"
     << "gradient rule: " << (facts.gradient == "-" ? "none loaded" : "from plugin " + facts.gradient) << "\n"
     << "kernel libraries: " << (facts.libraries == "-" ? "none loaded" : facts.libraries) << "\n"
     << "defined by: " << (facts.defined_by.empty() ? "the core" : "plugin " + facts.defined_by) << "\n";
}

/// A markdown table cell: no pipe, no line break.
std::string Cell(std::string text) {
  for (char& c : text) {
    if (c == '\n') c = ' ';
  }
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

void PrintMarkdown(std::ostream& os, const PluginHost& host) {
  os << "# Ops\n\n"
     << "Every op of the core and of the standard plugins, as `rxt ops NAME` shows it. Generated: do not\n"
     << "edit; `rxt ops --markdown > docs/ops.md` writes it again (the test `cli.ops_markdown_is_current`\n"
     << "fails when it is stale). Attributes at their defaults may be left out of a call. Which kernel\n"
     << "libraries take an op depends on the plugins loaded: `rxt ops` shows it.\n\n"
     << "Numerics: float16/bfloat16/float32 sums accumulate in float64 and are rounded once, as\n"
     << "PyTorch's CPU reductions do: sum, mean, variance, collapse_sum_to, the statistics of\n"
     << "nn.batch_norm and nn.layer_norm (which normalize in float64 too), the normalizer of softmax\n"
     << "and log_softmax, the windows of average pooling, the totals of the losses. matmul,\n"
     << "linear and the convolutions accumulate in their own dtype, as PyTorch's GEMMs do.\n";
  for (const OpDef* op : OpRegistry::Global().List()) {
    if (op->Has<FPluginOp>()) continue;  // plugins document their own ops
    OpFacts facts = FactsOf(*op, host);
    os << "\n## " << op->name() << "\n\n`" << Signature(*op) << "`\n\n" << op->doc() << "\n";
    if (!op->attrs().empty()) {
      os << "\n| attribute | kind | default | meaning |\n|---|---|---|---|\n";
      for (const AttrSpec& attr : op->attrs()) {
        os << "| `" << attr.name << "` | " << AttrKindName(attr.kind) << " | "
           << (attr.required ? "required" : "`" + Cell(PrintAttrValue(attr.default_value)) + "`") << " | "
           << Cell(attr.doc) << " |\n";
      }
    }
    os << "\nLegalization: " << (op->Has<FLegalize>() ? "yes" : "no") << ". Gradient rule: "
       << (facts.gradient == "-" ? "none" : facts.gradient) << ".\n";
  }
}

}  // namespace

void AddOpsCommand(CLI::App& app, CommandResult& result) {
  struct Options {
    std::vector<std::string> names;
    bool markdown = false;
    PluginOptions plugins;
  };
  auto options = std::make_shared<Options>();
  CLI::App* ops = app.add_subcommand(
      "ops", "List every registered op (legalization, gradient rule and its plugin, kernel libraries, summary), "
             "or show the ops named in full.");
  ops->add_option("NAME", options->names, "Ops to show in full: signature, attributes with kinds, defaults and "
                                          "meaning, description, what it has");
  ops->add_flag("--markdown", options->markdown, "Print every op in full as markdown (docs/ops.md)");
  AddPluginOptions(ops, &options->plugins);
  ops->footer("Columns: legalize (yes: LegalizeOps lowers it to a kernel), gradient (the plugin whose rule\n"
              "differentiates it, - for none), libraries (the loaded kernel libraries with a pattern for its calls).\n"
              "Example: rxt ops nn.batch_norm");
  ops->callback([options, &result] {
    LoadAllPlugins(options->plugins);
    const PluginHost& host = PluginHost::Global();
    if (options->markdown) {
      PrintMarkdown(std::cout, host);
      result.exit_code = 0;
      return;
    }
    if (!options->names.empty()) {
      std::vector<std::string> known;
      for (const OpDef* op : OpRegistry::Global().List()) known.push_back(op->name());
      for (size_t i = 0; i < options->names.size(); ++i) {
        const std::string& name = options->names[i];
        const OpDef* op = OpRegistry::Global().Find(name);
        if (op == nullptr) {
          std::string closest = ClosestName(name, known, 3);
          Throw(ErrorCode::kNotFound, "no op named ", Quoted(name),
                closest.empty() ? " (rxt ops lists them)" : StrCat(" (did you mean '", closest, "'?)"));
        }
        if (i > 0) std::cout << "\n";
        PrintCard(std::cout, *op, host);
      }
      result.exit_code = 0;
      return;
    }
    std::vector<std::vector<std::string>> rows = {{"op", "legalize", "gradient", "libraries", "summary"}};
    for (const OpDef* op : OpRegistry::Global().List()) {
      OpFacts facts = FactsOf(*op, host);
      // An op a plugin defined says which (the others are the core's).
      std::string summary =
          FirstLine(op->doc()) + (facts.defined_by.empty() ? "" : " (op of plugin " + facts.defined_by + ")");
      rows.push_back({op->name(), op->Has<FLegalize>() ? "yes" : "no", facts.gradient,
                      Joined(LibrariesTaking(op->name(), host)), summary});
    }
    PrintColumns(std::cout, rows);
    result.exit_code = 0;
  });
}

}  // namespace rxt::cli
