// The build session (exec/session.h): plugins, backend and kernel libraries resolved one way
// for the rxt command and the C ABI.
#include "rxt/exec/session.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include <boost/dll/shared_library.hpp>

#include "rxt/exec/available_libraries.h"
#include "rxt/exec/build_trainer.h"
#include "rxt/ir/parser.h"
#include "rxt/pass/pass_registry.h"
#include "rxt/transform/training/gradient.h"
#include "rxt/plugin/kernel_library_emitter.h"
#include "rxt/plugin/plugin_kernel_provider.h"
#include "rxt/runtime/aot_library.h"
#include "rxt/runtime/extern.h"
#include "rxt/support/file_io.h"
#include "rxt/support/message_text.h"
#include "rxt/train/trainer_file.h"

namespace rxt {
namespace {

bool AllExternsLoaded(const Executable& exec, const ExternRegistry& externs) {
  std::vector<std::string> loaded = externs.List();
  return std::all_of(exec.externs.begin(), exec.externs.end(), [&](const std::string& name) {
    // The collectives are the Trainer's own (its communicator), no plugin's.
    return IsCollectiveExtern(name) || std::find(loaded.begin(), loaded.end(), name) != loaded.end();
  });
}

}  // namespace

std::vector<std::string> ParseLibraryList(const std::string& text, const std::string& what) {
  std::vector<std::string> names;
  for (size_t start = 0;;) {
    size_t comma = std::min(text.find(',', start), text.size());
    std::string name = text.substr(start, comma - start);
    name.erase(0, name.find_first_not_of(' '));
    name.erase(name.find_last_not_of(' ') + 1);
    if (name.empty()) Throw(ErrorCode::kInvalidArgument, what, " ", Quoted(text), " has an empty name");
    names.push_back(std::move(name));
    if (comma == text.size()) break;
    start = comma + 1;
  }
  if (names.size() == 1 && names[0] == "none") return {};
  if (std::find(names.begin(), names.end(), "none") != names.end()) {
    Throw(ErrorCode::kInvalidArgument, what, " ", Quoted(text), ": 'none' cannot be combined with libraries");
  }
  return names;
}

Session::Session(SessionOptions options, PluginHost& host) : host_(host), options_(std::move(options)) {
  for (const std::string& path : options_.plugins) host_.Load(path);
}

Session::Session(Context& context, SessionOptions options) : Session(std::move(options), context.plugins()) {
  context_ = &context;
  options_.search_path = options_.search_path && context.search_path();
}

void Session::Note(std::string message) {
  if (context_ != nullptr) context_->Note(message);
  notes_.push_back(std::move(message));
}

IRModule Session::Parse(const std::string& text, const std::string& name) {
  try {
    return ParseModule(text, name);
  } catch (const Error&) {
    if (searched_ || !options_.search_path) throw;
  }
  LoadSearchPathOnce();
  return ParseModule(text, name);
}

bool Session::CanImport(const std::string& path) {
  if (IsImportable(host_, path)) return true;
  LoadSearchPathOnce();
  return IsImportable(host_, path);
}

ImportedModel Session::Import(const std::string& path, const std::string& options) {
  CanImport(path);  // loads the search path if no loaded importer reads it
  return ImportModel(host_, path, options);
}

ExportedModel Session::Export(const IRModule& module, const std::map<std::string, Tensor>& values,
                              const ExportRequest& request) {
  if (!IsExportable(host_, request.format, request.path)) LoadSearchPathOnce();
  return ExportModel(host_, module, values, request);
}

IRModule Session::Differentiate(const IRModule& module, const std::string& function, std::vector<int> require_grads) {
  try {
    return Gradient(module, function, require_grads, 0, &host_);
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kUnimplemented || searched_ || !options_.search_path) throw;
  }
  LoadSearchPathOnce();
  return Gradient(module, function, require_grads, 0, &host_);
}

IRModule Session::RunPasses(const IRModule& module, const std::vector<std::string>& passes) {
  return WithTrainingPlugins([&] { return rxt::RunPasses(module, passes); });
}

bool Session::MayNeedPlugins(const Error& e) const {
  // A missing gradient rule (kUnimplemented), loss or optimizer (kNotFound) may be a plugin's.
  bool plugin_may_help = e.code() == ErrorCode::kUnimplemented || e.code() == ErrorCode::kNotFound;
  return plugin_may_help && !searched_ && options_.search_path;
}

void Session::LoadWhatIsMissing(const std::string& backend, const std::optional<std::vector<std::string>>& libraries,
                                const LossSpec* loss, const OptimizerSpec* optimizer) {
  if (searched_ || !options_.search_path) return;
  std::string wanted = backend.empty() ? "cpu" : backend;
  bool missing = !host_.Find(PluginItemKind::kBackend, wanted);
  // The libraries asked for, or those the backend prefers (known once it is loaded).
  for (const std::string& library : libraries ? *libraries : host_.PreferredLibraries(wanted)) {
    missing = missing || !host_.Find(PluginItemKind::kLibrary, library);
  }
  if (loss != nullptr && !loss->name.empty()) {
    missing = missing || !host_.Find(PluginItemKind::kLoss, loss->name) ||
              host_.Items(PluginItemKind::kGradient).empty();
  }
  if (optimizer != nullptr && !optimizer->name.empty()) {
    missing = missing || !host_.Find(PluginItemKind::kOptimizer, optimizer->name);
  }
  if (missing) LoadSearchPathOnce();
}

void Session::LoadSearchPathOnce() {
  if (searched_ || !options_.search_path) return;
  searched_ = true;
  for (const Error& failure : host_.LoadSearchPath()) Note(failure.what());
}

BuildOptions Session::Resolve(const BuildRequest& request) {
  if (request.opt_level < 0 || request.opt_level > 3) {
    Throw(ErrorCode::kInvalidArgument, "opt_level is ", request.opt_level, "; expected 0 to 3");
  }
  LoadWhatIsMissing(request.backend, request.libraries, nullptr, nullptr);
  BuildOptions build;
  build.backend = request.backend;
  if (build.backend.empty()) {
    build.backend = host_.Find(PluginItemKind::kBackend, "cpu") ? "cpu" : "reference";
    if (build.backend != "cpu") Note("no cpu backend is loaded: using the reference interpreter (slow)");
  }
  build.opt_level = request.opt_level;
  if (request.libraries) {
    // Asked for by name: each must be loaded.
    for (const std::string& library : *request.libraries) RequireLibrary(library);
    build.libraries = *request.libraries;
  } else if (request.target.IsOtherArchitecture()) {
    Note(StrCat("building for ", request.target.triple, ": no kernel library unless asked for (--library): the ones ",
                "loaded here are for this machine"));
  } else {
    LibraryChoice choice = ChooseLoadedLibraries(build.backend, {}, host_);
    build.libraries = choice.used;
    for (const std::string& library : choice.missing) {
      Note(StrCat("kernel library ", Quoted(library), " is not loaded: using generated kernels only"));
    }
  }
  build.library_provider = &host_;
  build.emit_library = request.emit_library;
  last_build_ = build;
  return build;
}

void Session::RequireLibrary(const std::string& library) const {
  if (host_.Find(PluginItemKind::kLibrary, library)) return;
  std::string loaded;
  for (const PluginItem& item : host_.Items(PluginItemKind::kLibrary)) {
    loaded += (loaded.empty() ? "" : ", ") + item.name;
  }
  Throw(ErrorCode::kNotFound, "no kernel library ", Quoted(library), " is loaded (",
        loaded.empty() ? "no loaded plugin provides one" : "loaded libraries: " + loaded,
        "); load the plugin that provides it");
}

Executable Session::Build(IRModule module, const BuildRequest& request) {
  BuildOptions options = Resolve(request);
  options.emit_library.clear();  // emitted below, by this session's plugins
  Executable exec = rxt::Build(std::move(module), options);
  if (!request.emit_library.empty()) EmitKernelLibrary(exec, request.emit_library, host_, request.target);
  return exec;
}

std::unique_ptr<Trainer> Session::CreateTrainer(const IRModule& module, const TrainRequest& request) {
  bool trainer_module = IsTrainerModule(module);
  if (trainer_module && (!request.loss.name.empty() || !request.optimizer.name.empty())) {
    Throw(ErrorCode::kInvalidArgument,
          "a trainer module has its loss and optimizer compiled in: give the backbone module to choose them");
  }
  if (trainer_module && (request.data_parallel || request.accumulation)) {
    Throw(ErrorCode::kInvalidArgument, "a trainer module has its data parallelism and gradient accumulation compiled "
          "in (SetupTrainer's options): give the backbone module to choose them");
  }
  if (!trainer_module && (request.loss.name.empty() || request.optimizer.name.empty())) {
    Throw(ErrorCode::kInvalidArgument,
          "a backbone module needs a loss and an optimizer (e.g. \"cross_entropy\" and \"sgd\")");
  }
  LoadWhatIsMissing(request.build.backend, request.build.libraries, &request.loss, &request.optimizer);
  BuildOptions build = Resolve(request.build);
  TrainerProgram program = trainer_module ? BuildTrainerProgram(module, build)
                                          : BuildTrainerProgram(module, {.loss = request.loss,
                                                                         .optimizer = request.optimizer,
                                                                         .plugins = &host_,
                                                                         .data_parallel = request.data_parallel,
                                                                         .bucket_bytes = request.bucket_bytes,
                                                                         .overlap = request.overlap,
                                                                         .accumulation = request.accumulation},
                                                                build);
  auto kernels = std::make_shared<PluginKernelProvider>(PluginKernelProvider::Find(build.backend, host_));
  auto trainer = std::make_unique<Trainer>(std::move(program), std::move(kernels), host_.externs());
  if (context_ != nullptr) {
    trainer->set_thread_pool(context_->thread_pool());
    trainer->set_allocator(context_->allocator());
  }
  return trainer;
}

std::shared_ptr<Communicator> Session::CreateCommunicator(const std::string& name, const std::string& options,
                                                         void* external) {
  if (!host_.Find(PluginItemKind::kCollective, name)) LoadSearchPathOnce();
  std::optional<PluginItem> item = host_.Find(PluginItemKind::kCollective, name);
  if (!item || item->collective == nullptr) {
    std::string known;
    for (const PluginItem& c : host_.Items(PluginItemKind::kCollective)) known += (known.empty() ? "" : ", ") + c.name;
    Throw(ErrorCode::kNotFound, "no collective named '", name, "' is loaded (",
          known.empty() ? "none is: plugins/ccl_mpi provides \"mpi\" where OpenMPI was found at build time"
                        : "known: " + known,
          ")");
  }
  return Communicator::Create(*item->collective, item->keep_alive, options, external);
}

std::unique_ptr<KernelProvider> Session::KernelsFor(const Executable& exec, const std::string& backend) {
  std::string name = !backend.empty() ? backend : !exec.backend.empty() ? exec.backend : "reference";
  // The extern functions it calls (a library's) come from plugins too.
  LoadExternPlugins(exec);
  // Kernels compiled ahead of time run from their library, unless another backend is asked for.
  if (!exec.aot_library.empty() && name == exec.backend) {
    return std::make_unique<AotKernelProvider>(AotKernelProvider::ForExecutable(exec));
  }
  LoadWhatIsMissing(name, std::vector<std::string>{}, nullptr, nullptr);
  return std::make_unique<PluginKernelProvider>(PluginKernelProvider::Find(name, host_));
}

void Session::LoadExternPlugins(const Executable& exec) {
  if (AllExternsLoaded(exec, host_.externs()) || searched_ || !options_.search_path) return;
  // By name first: a process that only runs kernels compiled ahead of time then never loads a
  // backend plugin (and the LLVM it links).
  std::set<std::string> libraries;
  std::vector<std::string> loaded = host_.externs().List();
  for (const std::string& name : exec.externs) {
    size_t dot = name.find('.');
    if (dot != std::string::npos && dot > 0 && !IsCollectiveExtern(name) &&
        std::find(loaded.begin(), loaded.end(), name) == loaded.end()) {
      libraries.insert(name.substr(0, dot));
    }
  }
  for (const std::string& library : libraries) {
    if (!IsPrintableText(library) || library.find('/') != std::string::npos) continue;
    for (const std::string& dir : PluginHost::SearchPath()) {
      std::filesystem::path candidate =
          std::filesystem::path(dir) / ("rxt_lib_" + library + boost::dll::shared_library::suffix().string());
      std::error_code ec;
      if (!std::filesystem::is_regular_file(candidate, ec)) continue;
      try {
        host_.Load(candidate.string());
      } catch (const Error& e) {
        Note(e.what());
      }
      break;
    }
  }
  if (!AllExternsLoaded(exec, host_.externs())) LoadSearchPathOnce();
}

void Session::SaveTrainer(const Trainer& trainer, const std::string& path, const AotTarget& target) {
  TrainerFile file = MakeTrainerFile(trainer, {});
  Executable& exec = file.program.executable;
  const auto* aot = dynamic_cast<const AotKernelProvider*>(&trainer.kernels());
  if (aot != nullptr && target.IsThisMachine()) {
    // Kernels that already run from a library (a trainer opened from a file): the same bytes.
    file.kernel_library = aot->LibraryBytes();
    exec.aot_library.clear();
  } else if (!exec.kernels.empty()) {
    // The backend writes a library file; its bytes go into the trainer file.
    std::string library = StrCat(path, ".kernels-", getpid(), ".so");
    try {
      EmitKernelLibrary(exec, library, host_, target);
      file.kernel_library = ReadWholeFile(library, "kernel library");
      std::filesystem::remove(library);
    } catch (const Error& e) {
      std::error_code ec;
      std::filesystem::remove(library, ec);
      // A backend without an ahead-of-time compiler: LoadTrainer compiles the kernels (on this
      // machine; one asked for another has no such fallback).
      if (e.code() != ErrorCode::kFailedPrecondition || !target.IsThisMachine()) throw;
      Note(StrCat("trainer file ", Quoted(path), ": kernels not compiled ahead of time (", e.what(), ")"));
    }
    exec.aot_library.clear();
  }
  SaveTrainerFile(file, path);
}

std::unique_ptr<Trainer> Session::LoadTrainer(const std::string& path) {
  TrainerFile file = LoadTrainerFile(path);
  LoadExternPlugins(file.program.executable);
  std::shared_ptr<KernelProvider> fallback;
  if (file.kernel_library.empty()) fallback = KernelsFor(file.program.executable);
  std::unique_ptr<Trainer> trainer = OpenTrainerFile(std::move(file), std::move(fallback), host_.externs());
  if (context_ != nullptr) {
    trainer->set_thread_pool(context_->thread_pool());
    trainer->set_allocator(context_->allocator());
  }
  return trainer;
}

RunnableExecutable Session::CreateVM(Executable exec, const std::string& backend) {
  RunnableExecutable run;
  run.kernels = KernelsFor(exec, backend);
  run.vm = std::make_unique<VirtualMachine>(std::move(exec), *run.kernels, host_.externs());
  if (context_ != nullptr) {
    run.vm->set_thread_pool(context_->thread_pool());
    run.vm->set_allocator(context_->allocator());
  }
  return run;
}

}  // namespace rxt
