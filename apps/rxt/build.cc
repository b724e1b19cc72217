// rxt build FILE -o OUT.rxtx [--backend NAME]: parse, legalize the remaining op calls, compile
// to VM bytecode with portable kernels, save the executable.
#include <algorithm>
#include <iostream>
#include <memory>

#include "command.h"
#include "rxt/exec/vm_compiler.h"
#include "rxt/transform/passes.h"

namespace rxt::cli {
namespace {

bool HasPass(const std::string& name) {
  std::vector<PassInfo> passes = ListPasses();
  return std::any_of(passes.begin(), passes.end(), [&](const PassInfo& p) { return p.name == name; });
}

}  // namespace

void AddBuildCommand(CLI::App& app, CommandResult& result) {
  struct Options {
    std::string file;
    std::string output;
    std::string backend = "reference";
  };
  auto options = std::make_shared<Options>();
  CLI::App* build = app.add_subcommand("build", "Compile an .rxt file into an executable (.rxtx) for the VM.");
  build->add_option("FILE", options->file, "The .rxt file to compile")->required();
  build->add_option("-o,--output", options->output, "Where to write the executable (OUT.rxtx)")->required();
  build->add_option("--backend", options->backend,
                    "The backend the executable is built for; 'rxt run' loads it from a plugin")
      ->capture_default_str();
  build->footer("Runs LegalizeOps first, so op calls become kernels. Example:\n"
                "  rxt build examples/my_module.rxt -o my_module.rxtx");
  build->callback([options, &result] {
    IRModule module = ParseFile(options->file);
    // Legalizing a module without op calls changes nothing, so it always runs.
    if (HasPass("LegalizeOps")) {
      module = RunPasses(std::move(module), {"LegalizeOps"});
    }
    Executable exec;
    try {
      exec = CompileToExecutable(module, {.backend = options->backend});
    } catch (const Error& e) {
      if (HasPass("LegalizeOps")) throw;
      Throw(e.code(), e.what(), " (this build has no LegalizeOps pass: only modules without op calls compile)");
    }
    exec.Save(options->output);
    auto count = [](size_t n, const char* what) { return StrCat(n, " ", what, n == 1 ? "" : "s"); };
    std::cout << options->output << ": " << count(exec.functions.size(), "function") << ", "
              << count(exec.kernels.size(), "kernel") << ", backend " << (exec.backend.empty() ? "any" : exec.backend) << "\n";
    result.exit_code = 0;
  });
}

}  // namespace rxt::cli
