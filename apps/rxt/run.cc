// rxt run OUT.rxtx [--fn main] --input NAME=FILE.npy ... [--output FILE.npy] [--profile]:
// load an executable, load its backend from a plugin, call one function on .npy inputs.
#include <algorithm>
#include <iostream>
#include <map>
#include <memory>

#include "command.h"
#include "plugin_options.h"
#include "npy.h"
#include "rxt/exec/session.h"
#include "rxt/runtime/vm.h"
#include "rxt/support/message_text.h"
#include "session_notes.h"

namespace rxt::cli {
namespace {

struct RunOptions {
  std::string file;
  std::string function = "main";
  std::vector<std::string> inputs;  // NAME=FILE.npy
  std::string output;
  std::string backend;  // empty: the executable's
  PluginOptions plugins;
  bool profile = false;
};

std::string StripPercent(const std::string& name) { return !name.empty() && name[0] == '%' ? name.substr(1) : name; }

// The arguments of |f| in parameter order, from NAME=FILE pairs; |paths| gets their files.
std::vector<Value> ReadArguments(const VMFunction& f, const std::vector<std::string>& inputs,
                                 std::vector<std::string>& paths) {
  std::map<std::string, std::string> files;
  for (const std::string& input : inputs) {
    size_t eq = input.find('=');
    if (eq == std::string::npos || eq == 0) Throw(ErrorCode::kInvalidArgument, "--input '", input, "' is not NAME=FILE.npy");
    std::string name = StripPercent(input.substr(0, eq));
    if (!files.emplace(name, input.substr(eq + 1)).second) {
      Throw(ErrorCode::kInvalidArgument, "--input ", name, " is given twice");
    }
  }
  std::string params;
  for (const std::string& p : f.param_names) params += StrCat(params.empty() ? "" : ", ", StripPercent(p));
  std::vector<Value> args;
  for (const std::string& p : f.param_names) {
    auto it = files.find(StripPercent(p));
    if (it == files.end()) {
      Throw(ErrorCode::kInvalidArgument, f.name, ": no --input for parameter '", StripPercent(p), "' (parameters: ", params,
            ")");
    }
    args.emplace_back(ReadNpy(it->second));
    paths.push_back(it->second);
    files.erase(it);
  }
  if (!files.empty()) {
    Throw(ErrorCode::kInvalidArgument, f.name, " has no parameter '", files.begin()->first, "' (parameters: ", params, ")");
  }
  return args;
}

void PrintValue(const Value& value) {
  std::cout << value.Describe();
  if (value.is_tensor()) {
    const Tensor& t = value.tensor();
    constexpr int64_t kShown = 16;
    std::cout << " [";
    for (int64_t i = 0; i < std::min(t.numel(), kShown); ++i) std::cout << (i ? ", " : "") << t.GetAsDouble(i);
    std::cout << (t.numel() > kShown ? ", ...]" : "]");
  }
  std::cout << "\n";
}

void Run(const RunOptions& options) {
  Executable exec = Executable::Load(options.file);
  int function = exec.FindFunction(options.function);
  if (function < 0) Throw(ErrorCode::kNotFound, options.file, " has no function ", Quoted(options.function));
  std::vector<std::string> paths;
  std::vector<Value> args = ReadArguments(exec.functions[function], options.inputs, paths);

  Session session({.plugins = options.plugins.paths, .search_path = !options.plugins.no_search});
  RunnableExecutable run = session.CreateVM(std::move(exec), options.backend);
  PrintNotes(session);

  VirtualMachine& vm = *run.vm;
  vm.SetProfiling(options.profile);
  Value result;
  try {
    result = vm.Invoke(options.function, args);
  } catch (const ArgumentError& e) {  // the VM names the parameter; the user wants the file
    throw Error(e.code(), StrCat(paths[e.argument()], ": ", e.what()));
  }
  if (!options.output.empty()) {
    if (!result.is_tensor()) {
      Throw(ErrorCode::kInvalidArgument, options.function, " returned ", result.Describe(), ", not a tensor: --output needs one");
    }
    WriteNpy(options.output, result.tensor());
    std::cout << options.output << ": " << result.Describe() << "\n";
  } else {
    PrintValue(result);
  }
  if (options.profile) std::cout << vm.GetProfile().Format();
}

}  // namespace

void AddRunCommand(CLI::App& app, CommandResult& result) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* run = app.add_subcommand("run", "Run a function of an executable (.rxtx) on .npy inputs.");
  run->add_option("FILE", options->file, "The executable, from 'rxt build'")->required();
  run->add_option("--fn", options->function, "The function to call")->capture_default_str();
  run->add_option("--input,-i", options->inputs, "A parameter's value: NAME=FILE.npy (one per parameter)")
      ->type_name("NAME=FILE");
  run->add_option("--output,-o", options->output, "Write the result to this .npy file instead of printing it");
  run->add_option("--backend", options->backend, "The backend to run on (default: the one the executable was built for, which the VM requires)");
  AddPluginOptions(run, &options->plugins);
  run->add_flag("--profile", options->profile, "Print the time spent per kernel and per instruction kind");
  run->footer(".npy inputs: C-order, little-endian float32, float64, int32, int64, uint8 or bool.\n"
              "Backends come from plugins (see 'rxt plugins'). Example:\n"
              "  rxt run my_module.rxtx --input x=x.npy --input w0=w0.npy ... --output y.npy");
  run->callback([options, &result] {
    Run(*options);
    result.exit_code = 0;
  });
}

}  // namespace rxt::cli
