// rxt: the command-line tool.
//
//   rxt show FILE [--passes P1,P2]   parse, optionally transform, print
//   rxt check FILE                   every diagnostic; exit 1 if any
//   rxt ops | passes | plugins       what is registered
//   rxt build FILE -o OUT.rxtx       compile to an executable for the VM
//   rxt run OUT.rxtx --input x=x.npy run one of its functions on .npy inputs
//   rxt train [--model FILE.rxt]      train a model on Fashion-MNIST (the seed MLP by default)
//   rxt gradcheck FILE               check the gradients of its functions by finite differences
//   rxt --version
//
// Every failure prints "rxt: error: ..." to stderr and exits 1.
#include <iostream>

#include "command.h"
#include "rxt/plugin.h"
#include "rxt/runtime/memory_limit.h"
#include "rxt/rxt.h"
#include "rxt/support/message_text.h"

namespace {

#define RXT_CLI_STRINGIFY2(x) #x
#define RXT_CLI_STRINGIFY(x) RXT_CLI_STRINGIFY2(x)

const char* kVersion = "rxt " RXT_CLI_STRINGIFY(RXT_VERSION_MAJOR) "." RXT_CLI_STRINGIFY(
    RXT_VERSION_MINOR) "." RXT_CLI_STRINGIFY(RXT_VERSION_PATCH) " (C ABI " RXT_CLI_STRINGIFY(RXT_ABI_VERSION) ", plugin ABI " RXT_CLI_STRINGIFY(RXT_PLUGIN_ABI_VERSION) ")";

int Run(int argc, char** argv) {
  CLI::App app("rxt compiles a whole neural-network training step ahead of time.\n"
               "Text IR files use the extension .rxt (grammar: docs/ir.md).",
               "rxt");
  app.set_version_flag("--version", kVersion);
  app.require_subcommand(1);
  app.footer("Run 'rxt COMMAND --help' for a command's options. Documentation: docs/cli.md.");

  // The memory limit (docs/cli.md, "Bad input"): a global option, taken before any command runs.
  std::string max_memory;
  app.add_option("--max-memory", max_memory,
                 "The largest tensor or arena a file may make rxt allocate (512M, 4G; default: RXT_MAX_MEMORY, "
                 "else half the physical memory)")
      ->type_name("SIZE");
  app.fallthrough();  // accepted after the command's name too: rxt run --max-memory 1G ...
  app.parse_complete_callback([&max_memory] {
    if (max_memory.empty()) return;
    std::optional<int64_t> bytes = rxt::ParseByteSize(max_memory);
    if (!bytes) {
      rxt::Throw(rxt::ErrorCode::kInvalidArgument, "--max-memory ", rxt::Quoted(max_memory),
                 " is not a size (bytes, or with a unit: 512M, 4G, 1T)");
    }
    rxt::SetMemoryLimit(*bytes);
  });

  rxt::cli::CommandResult result;
  rxt::cli::AddShowCommand(app, result);
  rxt::cli::AddCheckCommand(app, result);
  rxt::cli::AddOpsCommand(app, result);
  rxt::cli::AddPassesCommand(app, result);
  rxt::cli::AddPluginsCommand(app, result);
  rxt::cli::AddBuildCommand(app, result);
  rxt::cli::AddRunCommand(app, result);
  rxt::cli::AddTrainCommand(app, result);
  rxt::cli::AddGradcheckCommand(app, result);
  rxt::cli::AddImportCommand(app, result);
  rxt::cli::AddExportCommand(app, result);

  // CLI11 would take an unknown command for a stray argument ("A subcommand is required").
  const CLI::App& commands = app;
  std::string known;
  bool found = false;
  for (const CLI::App* command : commands.get_subcommands([](const CLI::App*) { return true; })) {
    known += (known.empty() ? "" : ", ") + command->get_name();
    found = found || (argc > 1 && command->get_name() == argv[1]);
  }
  if (argc > 1 && argv[1][0] != '-' && !found) {
    std::cerr << "rxt: error: unknown command '" << argv[1] << "' (commands: " << known << ")\n"
              << "Run 'rxt --help' for usage.\n";
    return 1;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& success) {
    return app.exit(success);  // --help, --version
  } catch (const CLI::ParseError& e) {
    std::cerr << rxt::cli::FormatError(e.what()) << "\n"
              << "Run '" << app.get_name() << " --help' for usage.\n";
    return 1;
  }
  return result.exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const rxt::cli::ReportedError&) {
    return 1;
  } catch (const std::exception& e) {
    std::cerr << rxt::cli::FormatError(e.what()) << "\n";
    return 1;
  } catch (...) {
    std::cerr << "rxt: error: unknown failure\n";
    return 1;
  }
}
