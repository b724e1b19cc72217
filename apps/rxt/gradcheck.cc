// rxt gradcheck FILE: checks the Gradient pass on the functions of an .rxt file against finite
// differences (exec/gradient_check.h), so that a plugin's gradient rules (or ops) can be tested
// the way rxt's own are. Exit 1 if any gradient differs.
#include <iostream>
#include <memory>

#include "command.h"
#include "plugin_options.h"
#include "rxt/exec/gradient_check.h"
#include "rxt/support/message_text.h"
#include "session_notes.h"

namespace rxt::cli {
namespace {

/// "n=3" -> ("n", "3"); kInvalidArgument naming |option| otherwise.
std::pair<std::string, std::string> SplitAssignment(const std::string& text, const char* option) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    Throw(ErrorCode::kInvalidArgument, option, " ", Quoted(text), " is not NAME=VALUE");
  }
  return {text.substr(0, eq), text.substr(eq + 1)};
}

double Number(const std::string& text, const std::string& what) {
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty()) Throw(ErrorCode::kInvalidArgument, what, " ", Quoted(text), " is not a number");
  return value;
}

GradientCheckOptions CheckOptions(const std::vector<std::string>& dims, const std::vector<std::string>& ranges,
                                  const std::vector<std::string>& constant, double tolerance, uint32_t seed,
                                  const std::string& backend) {
  GradientCheckOptions options{.constant = constant, .tolerance = tolerance, .seed = seed, .backend = backend};
  for (const std::string& dim : dims) {
    auto [name, value] = SplitAssignment(dim, "--dim");
    double n = Number(value, "--dim " + name);
    if (n < 0 || n != static_cast<double>(static_cast<int64_t>(n)) || n > (1 << 20)) {
      Throw(ErrorCode::kInvalidArgument, "--dim ", name, "=", value, ": a dim is an integer in [0, 2^20]");
    }
    options.dims[name] = static_cast<int64_t>(n);
  }
  for (const std::string& range : ranges) {
    auto [name, value] = SplitAssignment(range, "--range");
    size_t colon = value.find(':');
    if (colon == std::string::npos) Throw(ErrorCode::kInvalidArgument, "--range ", Quoted(range), " is not NAME=LO:HI");
    ValueRange r{Number(value.substr(0, colon), "--range " + name), Number(value.substr(colon + 1), "--range " + name)};
    if (!(r.lo <= r.hi)) Throw(ErrorCode::kInvalidArgument, "--range ", Quoted(range), ": LO must not exceed HI");
    options.ranges[name] = r;
  }
  if (!(tolerance > 0)) Throw(ErrorCode::kInvalidArgument, "--tolerance must be positive");
  return options;
}

}  // namespace

void AddGradcheckCommand(CLI::App& app, CommandResult& result) {
  struct Options {
    std::string file;
    std::vector<std::string> functions, dims, ranges, constant;
    double tolerance = 1e-6;
    uint32_t seed = 1;
    std::string backend = "reference";
    PluginOptions plugins;
  };
  auto options = std::make_shared<Options>();
  CLI::App* command = app.add_subcommand(
      "gradcheck", "Check the gradients of the functions of an .rxt file against finite differences.");
  command->add_option("FILE", options->file, "The .rxt file whose functions to check")->required();
  command->add_option("--function,-f", options->functions, "Check only these functions (default: every one)");
  command->add_option("--dim", options->dims, "The value of a symbolic dim of the parameters")->type_name("NAME=N");
  command->add_option("--range", options->ranges, "The values a parameter takes (default -1:1)")
      ->type_name("PARAM=LO:HI");
  command->add_option("--constant", options->constant, "A float64 parameter not to differentiate")->type_name("PARAM");
  command->add_option("--tolerance", options->tolerance, "|gradient - numeric| <= tolerance (1 + |numeric|)")
      ->capture_default_str();
  command->add_option("--seed", options->seed, "Seed of the random inputs and directions")->capture_default_str();
  command->add_option("--backend", options->backend, "The backend that runs the check")->capture_default_str();
  AddPluginOptions(command, &options->plugins);
  command->footer(
      "Each function takes float64 (differentiated), int64 and bool tensors and returns a float64 tensor or a\n"
      "tuple of them; rxt differentiates sum(result * random weights) with the loaded gradient rules and\n"
      "compares each gradient with central differences. Example (docs/plugins.md, \"Ops\"):\n"
      "  rxt gradcheck --plugin example_ops.so examples/plugins/ops/gradcheck.rxt");
  command->callback([options, &result] {
    GradientCheckOptions check = CheckOptions(options->dims, options->ranges, options->constant, options->tolerance,
                                              options->seed, options->backend);
    Session session({.plugins = options->plugins.paths, .search_path = !options->plugins.no_search});
    IRModule module = ParseFile(options->file, &session);
    std::vector<std::string> names = options->functions;
    if (names.empty()) {
      for (const IRModule::Entry& entry : module.entries()) {
        if (entry.function) names.push_back(entry.name);
      }
    }
    if (names.empty()) Throw(ErrorCode::kInvalidArgument, options->file, ": no function to check");
    int failed = 0;
    for (const std::string& name : names) {
      GradientCheckResult r =
          NamingFileInErrors(options->file, [&] { return CheckGradient(module, name, check, session); });
      if (r.passed()) {
        std::cout << name << ": ok (" << r.gradients << (r.gradients == 1 ? " gradient, " : " gradients, ")
                  << r.checks << " checks)\n";
      } else {
        ++failed;
        std::cout << name << ": FAILED\n" << r.failures;
      }
    }
    PrintNotes(session);
    if (failed > 0) {
      std::cerr << "rxt: error: " << options->file << ": " << failed << " of " << names.size()
                << " functions have gradients that differ from finite differences\n";
    }
    result.exit_code = failed > 0 ? 1 : 0;
  });
}

}  // namespace rxt::cli
