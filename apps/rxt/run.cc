// rxt run OUT.rxtx [--fn main] --input NAME=FILE.npy ... [--params FILE.safetensors]
//         [--output FILE.npy|DIR/|FILE.safetensors] [--profile] [--repeat N]:
// load an executable, load its backend from a plugin, call one function on .npy inputs; the
// parameters no --input names come by name from --params, or from OUT.safetensors beside the
// executable (what `rxt import` writes beside a module). --repeat N calls the function N times
// (the profile covers the last call: the steady state, without first-call setup).
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include "command.h"
#include "plugin_options.h"
#include "npy.h"
#include "rxt/exec/session.h"
#include "rxt/runtime/safetensors.h"
#include "rxt/runtime/vm.h"
#include "rxt/support/message_text.h"
#include "session_notes.h"

namespace rxt::cli {
namespace {

struct RunOptions {
  std::string file;
  std::string function = "main";
  std::vector<std::string> inputs;  // NAME=FILE.npy
  std::string params;               // FILE.safetensors; empty: the executable's stem + .safetensors, if there
  std::string output;
  std::string backend;  // empty: the executable's
  PluginOptions plugins;
  bool profile = false;
  int repeat = 1;  // calls; the result and the profile are the last call's
};

std::string StripPercent(const std::string& name) { return !name.empty() && name[0] == '%' ? name.substr(1) : name; }

// The arguments of |f| in parameter order, from NAME=FILE pairs; |paths| gets their files.
std::vector<Value> ReadArguments(const VMFunction& f, const std::vector<std::string>& inputs,
                                 const TensorFile* values, const std::string& values_path,
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
      if (const Tensor* value = values != nullptr ? values->Find(StripPercent(p)) : nullptr) {
        args.emplace_back(*value);
        paths.push_back(StrCat(values_path, " (", StripPercent(p), ")"));
        continue;
      }
      Throw(ErrorCode::kInvalidArgument, f.name, ": no --input for parameter '", StripPercent(p), "' (parameters: ", params,
            ")", values != nullptr ? StrCat("; ", values_path, " has no tensor of that name") : std::string());
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

/// Every leaf of |value| with its position: "" for a tensor result, "0", "1.0", ... in a tuple.
void Leaves(const Value& value, const std::string& path, std::vector<std::pair<std::string, Value>>& leaves) {
  if (!value.is_tuple()) {
    leaves.emplace_back(path, value);
    return;
  }
  for (size_t i = 0; i < value.tuple().size(); ++i) {
    Leaves(value.tuple()[i], path.empty() ? std::to_string(i) : StrCat(path, ".", i), leaves);
  }
}

void PrintLeaf(const Value& value) {
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

/// A tuple prints one line per leaf, "[1.0] Tensor(...) [values]".
void PrintValue(const Value& value) {
  std::vector<std::pair<std::string, Value>> leaves;
  Leaves(value, "", leaves);
  if (!value.is_tuple()) return PrintLeaf(value);
  std::cout << value.Describe() << "\n";
  for (const auto& [path, leaf] : leaves) {
    std::cout << "[" << path << "] ";
    PrintLeaf(leaf);
  }
}

/// --output: a .npy file for a tensor; a directory (ending in '/' or existing) gets one .npy per
/// tensor of the result named by its position ("1.0" -> 1_0.npy); a .safetensors file gets every
/// tensor, named by position ("0", "1.0"; a tensor result: "0"). Each file is written atomically.
void WriteResult(const std::string& output, const std::string& function, const Value& result) {
  std::vector<std::pair<std::string, Value>> leaves;
  Leaves(result, "", leaves);
  for (const auto& [path, leaf] : leaves) {
    if (!leaf.is_tensor()) {
      Throw(ErrorCode::kInvalidArgument, function, " returned ", result.Describe(), ": its ",
            path.empty() ? std::string("result") : "element " + path, " is ", leaf.Describe(),
            ", not a tensor: --output writes tensors only");
    }
  }
  namespace fs = std::filesystem;
  std::error_code ec;
  if (output.ends_with(".safetensors")) {
    TensorFile file;
    for (const auto& [path, leaf] : leaves) file.tensors.emplace_back(path.empty() ? "0" : path, leaf.tensor());
    SaveSafetensors(output, file);
    std::cout << output << ": " << leaves.size() << (leaves.size() == 1 ? " tensor" : " tensors") << "\n";
    return;
  }
  if (output.ends_with("/") || fs::is_directory(output, ec)) {
    fs::create_directories(output, ec);
    if (ec) Throw(ErrorCode::kInvalidArgument, "--output ", Quoted(output), ": cannot create the directory: ", ec.message());
    for (const auto& [path, leaf] : leaves) {
      std::string name = path.empty() ? "0" : path;
      std::replace(name.begin(), name.end(), '.', '_');
      std::string file = (fs::path(output) / (name + ".npy")).string();
      WriteNpy(file, leaf.tensor());
      std::cout << file << ": " << leaf.Describe() << "\n";
    }
    return;
  }
  if (result.is_tuple()) {
    Throw(ErrorCode::kInvalidArgument, function, " returned ", result.Describe(),
          ": a tuple needs --output DIR/ (one .npy per tensor) or --output FILE.safetensors");
  }
  WriteNpy(output, result.tensor());
  std::cout << output << ": " << result.Describe() << "\n";
}

void Run(const RunOptions& options) {
  Executable exec = Executable::Load(options.file);
  int function = exec.FindFunction(options.function);
  if (function < 0) Throw(ErrorCode::kNotFound, options.file, " has no function ", Quoted(options.function));
  std::string params_path = options.params;
  if (params_path.empty()) {
    std::filesystem::path beside = std::filesystem::path(options.file).replace_extension(".safetensors");
    if (std::filesystem::exists(beside)) params_path = beside.string();
  }
  std::optional<TensorFile> params;
  if (!params_path.empty()) params = LoadSafetensors(params_path);
  std::vector<std::string> paths;
  std::vector<Value> args =
      ReadArguments(exec.functions[function], options.inputs, params ? &*params : nullptr, params_path, paths);

  Session session({.plugins = options.plugins.paths, .search_path = !options.plugins.no_search});
  RunnableExecutable run = session.CreateVM(std::move(exec), options.backend);
  PrintNotes(session);

  VirtualMachine& vm = *run.vm;
  Value result;
  try {
    for (int call = 0; call < options.repeat; ++call) {
      result = Value();  // the previous call's result goes back to the VM before the next call
      vm.SetProfiling(options.profile && call == options.repeat - 1);
      result = vm.Invoke(options.function, args);
    }
  } catch (const ArgumentError& e) {  // the VM names the parameter; the user wants the file
    throw Error(e.code(), StrCat(paths[e.argument()], ": ", e.what()));
  }
  if (!options.output.empty()) {
    WriteResult(options.output, options.function, result);
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
  run->add_option("--params", options->params,
                  "Values of the parameters no --input names, by name (default: FILE's name with .safetensors, "
                  "when there: what 'rxt import' writes beside the module)")
      ->type_name("FILE.safetensors");
  run->add_option("--output,-o", options->output,
                  "Write the result instead of printing it: FILE.npy (a tensor), DIR/ (one .npy per tensor of a "
                  "tuple, named by position: 0.npy, 1_0.npy...) or FILE.safetensors (every tensor, named 0, 1.0...)");
  run->add_option("--backend", options->backend, "The backend to run on (default: the one the executable was built for, which the VM requires)");
  AddPluginOptions(run, &options->plugins);
  run->add_flag("--profile", options->profile, "Print the time spent per kernel and per instruction kind");
  run->add_option("--repeat", options->repeat,
                  "Call the function N times; the result and --profile are the last call's (steady state: "
                  "the first call also pays one-time setup, e.g. oneDNN's primitive creation)")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  run->footer(".npy inputs: C-order, little-endian float16, float32, float64, int8, int16, int32, int64, uint8 or bool.\n"
              "Backends come from plugins (see 'rxt plugins'). Example:\n"
              "  rxt run my_module.rxtx --input x=x.npy --input w0=w0.npy ... --output y.npy");
  run->callback([options, &result] {
    Run(*options);
    result.exit_code = 0;
  });
}

}  // namespace rxt::cli
