// rxt build FILE -o OUT.rxtx [--backend NAME]: parse, legalize the remaining op calls, compile
// to VM bytecode with portable kernels, save the executable. Plugins, backend and libraries are
// resolved by the build session (exec/session.h), as the C ABI does. When the backend can, the
// kernels are also compiled ahead of time into OUT.so, so that `rxt run` starts at once.
// --bind-params makes the parameters with values in the params file constants: an inference
// build, where the build folds what depends on the weights alone (docs/passes.md). --trainer
// builds a backbone into a trainer file (.rxtt) instead: loss, optimizer, starting values, the
// kernels compiled ahead of time — what the runtime alone trains from (docs/deploy.md).
#include <filesystem>
#include <iostream>
#include <memory>

#include "command.h"
#include "plugin_options.h"
#include "rxt/exec/session.h"
#include "rxt/plugin/kernel_library_emitter.h"
#include "rxt/runtime/safetensors.h"
#include "rxt/train/trainer.h"
#include "rxt/transform/passes.h"
#include "session_notes.h"

namespace rxt::cli {
namespace {

/// OUT.rxtx -> OUT.so (another name: OUT.rxtx.so).
std::string DefaultKernelLibraryPath(const std::string& output) {
  const std::string suffix = ".rxtx";
  bool has_suffix = output.size() > suffix.size() && output.compare(output.size() - suffix.size(), suffix.size(), suffix) == 0;
  return (has_suffix ? output.substr(0, output.size() - suffix.size()) : output) + ".so";
}

/// What --bind-params builds: the module with the parameters that have values made constants.
/// The values come from --params, else the file beside an .rxt model; a model of another format
/// is imported for inference (training=false) with its own values.
IRModule LoadBound(const std::string& model, const std::string& params, const std::string& import_options,
                   Session& session);

/// The module of |model|: parsed, or imported with |import_options| (an error for .rxt text).
IRModule LoadModel(const std::string& model, const std::string& import_options, Session& session) {
  if (!model.ends_with(".rxt") && session.CanImport(model)) {
    return NamingFileInErrors(model, [&] { return session.Import(model, import_options).module; });
  }
  if (!import_options.empty()) {
    Throw(ErrorCode::kInvalidArgument, "--import-options: ", model, " is not imported (it is rxt's text)");
  }
  return ParseFile(model, &session);
}

/// Binds every parameter of every function that |values| names; kNotFound if none is named.
IRModule BindNamedParams(IRModule module, const std::map<std::string, Tensor>& values, const std::string& source) {
  size_t bound = 0;
  for (const IRModule::Entry& entry : std::vector<IRModule::Entry>(module.entries())) {
    if (!entry.function) continue;
    std::map<std::string, Tensor> named;
    for (const Var& param : entry.function->params) {
      if (auto it = values.find(param->name); it != values.end()) named.emplace(it->first, it->second);
    }
    if (named.empty()) continue;
    bound += named.size();
    module = BindParams(entry.name, std::move(named))(std::move(module));
  }
  if (bound == 0) Throw(ErrorCode::kNotFound, "--bind-params: no parameter of ", source, " has a value in the params");
  return module;
}

IRModule LoadBound(const std::string& model, const std::string& params, const std::string& import_options,
                   Session& session) {
  std::map<std::string, Tensor> values;
  IRModule module;
  if (!model.ends_with(".rxt") && session.CanImport(model)) {
    std::string options = import_options.empty() ? "training=false" : import_options;
    ImportedModel imported = NamingFileInErrors(model, [&] { return session.Import(model, options); });
    module = std::move(imported.module);
    values = std::move(imported.values);
  } else {
    module = LoadModel(model, import_options, session);
  }
  std::string path = params;
  if (path.empty() && values.empty()) {
    path = std::filesystem::path(model).replace_extension(".safetensors").string();
    if (!std::filesystem::exists(path)) {
      Throw(ErrorCode::kNotFound, "--bind-params: no values to bind: ", path, " does not exist (give --params FILE)");
    }
  }
  if (!path.empty()) {
    values.clear();
    for (auto& [name, tensor] : LoadSafetensors(path).tensors) values.emplace(name, tensor);
  }
  return BindNamedParams(std::move(module), values, model);
}

/// --trainer: the trainer of |backbone|, its values from |params| (else Xavier with |seed|), saved
/// with its kernels as a trainer file.
void BuildTrainerFile(const IRModule& backbone, const TrainRequest& request, const std::string& params, uint64_t seed,
                      const std::string& output, Session& session) {
  std::unique_ptr<Trainer> trainer = session.CreateTrainer(backbone, request);
  if (params.empty()) {
    trainer->InitXavierUniform(seed);
  } else {
    std::map<std::string, Tensor> values;
    for (auto& [name, tensor] : LoadSafetensors(params).tensors) values.emplace(name, tensor);
    trainer->LoadParams(values);
  }
  session.SaveTrainer(*trainer, output, request.build.target);
  PrintNotes(session);
  std::cout << output << ": trainer file, " << trainer->program().params.size() << " parameters, loss "
            << request.loss.name << ", optimizer " << request.optimizer.name << ", backend "
            << trainer->program().executable.backend
            << (request.build.target.IsThisMachine() ? "" : ", for " + request.build.target.Describe()) << "\n";
}

}  // namespace

void AddBuildCommand(CLI::App& app, CommandResult& result) {
  struct Options {
    std::string file;
    std::string output;
    std::string backend;  // empty: the session's default (cpu if loaded, else reference)
    std::vector<std::string> libraries;
    std::string emit_library;
    bool no_emit_library = false;
    bool bind_params = false;
    std::string params;
    std::string import_options;
    bool trainer = false;
    bool data_parallel = false, accumulate = false;
    std::optional<double> bucket_mb;
    bool overlap = false;
    std::string loss = "cross_entropy", loss_options, optimizer = "adam", optimizer_options;
    uint64_t seed = 0;
    AotTarget target;
    PluginOptions plugins;
  };
  auto options = std::make_shared<Options>();
  CLI::App* build = app.add_subcommand("build", "Compile a model (.rxt, .onnx...) into an executable (.rxtx) for the VM.");
  build->add_option("FILE", options->file, "The model to compile: .rxt, or a format an importer reads (.onnx)")
      ->required();
  build->add_option("-o,--output", options->output, "Where to write the executable (OUT.rxtx)")->required();
  build->add_option("--backend", options->backend,
                    "The backend the executable is built for; 'rxt run' loads it from a plugin "
                    "(default: cpu when a plugin provides it, else reference)");
  build->add_option("--library", options->libraries,
                    "Kernel libraries for matmul/conv2d (dnnl), or none; default: the backend's (cpu: dnnl)");
  build->add_option("--emit-library", options->emit_library,
                    "Also compile the kernels ahead of time into this shared library (OUT.so), which 'rxt run' "
                    "then uses without a compiler; needs a backend that can (cpu)")
      ->type_name("OUT.so");
  build->add_flag("--no-emit-library", options->no_emit_library,
                  "Do not compile the kernels ahead of time (by default they go to OUT.so when the backend can; "
                  "'rxt run' then compiles them at each run)");
  build->add_flag("--bind-params", options->bind_params,
                  "Make the parameters that have values in the params file constants (an inference build: batch "
                  "normalizations fold into the convolutions before them, and 'rxt run' needs only the inputs)");
  build->add_option("--params", options->params,
                    "With --bind-params: the values by name (default: FILE's name with .safetensors, what 'rxt "
                    "import' writes beside the module; an .onnx model's own initializers); with --trainer: the starting "
                    "values")
      ->type_name("FILE.safetensors");
  build->add_option("--import-options", options->import_options,
                    "Options of the importer when FILE is a model of another format, e.g. training=false (an "
                    "inference forward; the default with --bind-params)");
  CLI::Option* trainer = build->add_flag(
      "--trainer", options->trainer,
      "Build the backbone (param_num, state_num) into a trainer file (OUT.rxtt): loss, optimizer, starting values "
      "(--params, else Xavier with --seed) and kernels compiled ahead of time, which 'rxt train --model' and a "
      "program linked with librxt_runtime alone train from");
  build->add_option("--loss", options->loss, "With --trainer: the loss")->capture_default_str()->needs(trainer);
  build->add_option("--loss-options", options->loss_options, "With --trainer: the loss's options, e.g. reduction=\"sum\"")
      ->needs(trainer);
  build->add_option("--optimizer", options->optimizer, "With --trainer: the optimizer")->capture_default_str()->needs(trainer);
  build->add_option("--optimizer-options", options->optimizer_options,
                    "With --trainer: the optimizer's options, e.g. 'lr=0.01, momentum=0.9'")
      ->needs(trainer);
  build->add_flag("--data-parallel", options->data_parallel,
                  "With --trainer: combine the gradients over the ranks of a distributed run (ccl.allreduce; "
                  "'mpirun -np N rxt train --distributed mpi --model OUT.rxtt'); one process trains with it as before")
      ->needs(trainer);
  build->add_option("--bucket-mb", options->bucket_mb,
                    "With --data-parallel: the most MiB of gradients in one allreduce (default: 25, or 1 with "
                    "--overlap)")
      ->type_name("MiB")
      ->needs(trainer);
  build->add_flag("--overlap", options->overlap,
                  "With --data-parallel: start each bucket's allreduce as soon as the backward pass has computed "
                  "it, instead of after the backward pass (pays when a network carries the allreduce while the "
                  "cores compute)")
      ->needs(trainer);
  build->add_flag("--accumulate", options->accumulate,
                  "With --trainer: add gradient accumulation ('rxt train --accumulate N', rxt_trainer_accumulate)")
      ->needs(trainer);
  build->add_option("--seed", options->seed, "With --trainer: seeds the Xavier initialization")
      ->capture_default_str()
      ->needs(trainer);
  build->add_option("--target", options->target.triple,
                    "With --trainer: compile the kernels for another machine, a target triple such as "
                    "aarch64-linux-gnu (linked with its cross compiler, aarch64-linux-gnu-gcc; no kernel library "
                    "unless --library asks); default: this machine")
      ->type_name("TRIPLE")
      ->needs(trainer);
  build->add_option("--target-cpu", options->target.cpu,
                    "With --trainer: the CPU to compile for (cortex-a72, x86-64-v3...); default: this machine's, or "
                    "the baseline of --target's architecture")
      ->needs(trainer);
  build->add_option("--target-features", options->target.features,
                    "With --trainer: CPU features to add or remove, as LLVM names them (+sve,-avx512f)")
      ->needs(trainer);
  AddPluginOptions(build, &options->plugins);
  build->footer("Runs the build pipeline first (LegalizeOps, then fusion), so op calls become kernels. Example:\n"
                "  rxt build examples/my_module.rxt -o my_module.rxtx");
  build->callback([options, &result] {
    Session session({.plugins = options->plugins.paths, .search_path = !options->plugins.no_search});
    BuildRequest request{.backend = options->backend, .emit_library = options->emit_library, .target = options->target};
    if (!options->libraries.empty()) request.libraries = ParseLibraryList(JoinLibraries(options->libraries), "--library");
    if (options->trainer) {
      if (options->bind_params) Throw(ErrorCode::kInvalidArgument, "--bind-params is for inference builds, not --trainer");
      TrainRequest train{.build = request,
                         .loss = {options->loss, options->loss_options},
                         .optimizer = {options->optimizer, options->optimizer_options},
                         .data_parallel = options->data_parallel,
                         .bucket_bytes = options->bucket_mb ? static_cast<int64_t>(*options->bucket_mb * (1 << 20)) : 0,
                         .overlap = options->overlap,
                         .accumulation = options->accumulate};
      if (options->bucket_mb && !(*options->bucket_mb > 0 && *options->bucket_mb <= 1 << 20)) {
        Throw(ErrorCode::kInvalidArgument, "--bucket-mb must be a number above 0 (MiB), not ", *options->bucket_mb);
      }
      train.build.emit_library.clear();  // the trainer file carries its own
      BuildTrainerFile(LoadModel(options->file, options->import_options, session), train, options->params,
                       options->seed, options->output, session);
      result.exit_code = 0;
      return;
    }
    if (!options->params.empty() && !options->bind_params) {
      Throw(ErrorCode::kInvalidArgument, "--params is for --bind-params ('rxt run' takes the values otherwise)");
    }
    IRModule module = options->bind_params
                          ? LoadBound(options->file, options->params, options->import_options, session)
                          : LoadModel(options->file, options->import_options, session);
    Executable exec =
        NamingFileInErrors(options->file, [&] { return session.Build(std::move(module), request); });
    PrintNotes(session);
    std::string library = options->emit_library;
    if (library.empty() && !options->no_emit_library && !exec.kernels.empty()) {
      library = DefaultKernelLibraryPath(options->output);
      try {
        EmitKernelLibrary(exec, library, session.plugins());
      } catch (const Error& e) {
        // A backend without an ahead-of-time compiler (reference), or no linker: kernels then
        // compile at each run, as before.
        if (e.code() != ErrorCode::kFailedPrecondition) {
          std::cerr << "rxt: note: kernels not compiled ahead of time (" << e.what() << "): 'rxt run' compiles them\n";
        }
        library.clear();
      }
    }
    exec.Save(options->output);
    auto count = [](size_t n, const char* what) { return StrCat(n, " ", what, n == 1 ? "" : "s"); };
    std::cout << options->output << ": " << count(exec.functions.size(), "function") << ", "
              << count(exec.kernels.size(), "kernel") << ", backend " << (exec.backend.empty() ? "any" : exec.backend)
              << (exec.aot_library.empty() ? "" : ", kernel library " + library) << "\n";
    result.exit_code = 0;
  });
}

}  // namespace rxt::cli
