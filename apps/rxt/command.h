// The pieces every subcommand of `rxt` shares. Each subcommand lives in its own file and
// adds itself to the app with Add<Name>Command; its callback throws rxt::Error on failure
// (main prints "rxt: error: ..." and exits 1) or sets an exit code.
#pragma once

#include <CLI/CLI.hpp>

#include <exception>
#include <string>
#include <string_view>

#include "rxt/exec/session.h"
#include "rxt/ir/module.h"

namespace rxt::cli {

/// What the subcommands report back to main.
struct CommandResult {
  int exit_code = 0;
};

void AddShowCommand(CLI::App& app, CommandResult& result);
void AddCheckCommand(CLI::App& app, CommandResult& result);
void AddOpsCommand(CLI::App& app, CommandResult& result);
void AddPassesCommand(CLI::App& app, CommandResult& result);
void AddPluginsCommand(CLI::App& app, CommandResult& result);
void AddBuildCommand(CLI::App& app, CommandResult& result);
void AddRunCommand(CLI::App& app, CommandResult& result);
void AddTrainCommand(CLI::App& app, CommandResult& result);
void AddGradcheckCommand(CLI::App& app, CommandResult& result);
void AddImportCommand(CLI::App& app, CommandResult& result);
void AddExportCommand(CLI::App& app, CommandResult& result);

/// The whole file; throws kNotFound naming it if it cannot be read.
std::string ReadFile(const std::string& path);
/// Reads and parses an .rxt file; diagnostics name |path|. With a session, ops that plugins
/// define are found in its plugins (Session::Parse loads the search path if needed).
IRModule ParseFile(const std::string& path, Session* session = nullptr);
/// Runs |work| (passes, a build) on the module read from |path|; an error that does not name
/// the file already is rethrown as "<path>: <message>", so every error says which input.
template <typename Work>
auto NamingFileInErrors(const std::string& path, Work&& work) -> decltype(work()) {
  try {
    return work();
  } catch (const Error& e) {
    std::string_view message = e.what();
    if (message.rfind(path + ":", 0) == 0) throw;
    throw Error(e.code(), StrCat(path, ": ", message));
  }
}

/// "rxt: error: <message>" for the user; a diagnostic "f:1:2: error: what" becomes
/// "rxt: error: f:1:2: what".
std::string FormatError(const std::string& message);

/// Thrown by a command that has printed its error already: rxt exits with status 1 and prints
/// nothing more.
struct ReportedError : std::exception {
  const char* what() const noexcept override { return "the error is reported above"; }
};

}  // namespace rxt::cli
