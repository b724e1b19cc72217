// The build session: what the rxt command and the C ABI both go through to build executables,
// create trainers and pick the kernels an executable runs with, so that they resolve plugins,
// backend and kernel libraries the same way. The defaults, in one place (docs/abi.md and
// docs/cli.md point here):
//
//   plugins    the files asked for are loaded first (a failure is an error); then, unless the
//              search path is off, the search path (RXT_PLUGIN_PATH, then the installation's
//              plugin directory) is loaded if something the session needs is not loaded yet
//              (its failures become notes: what is still missing then fails by name later)
//   backend    as asked; else "cpu" when a loaded plugin provides it, else "reference"
//   libraries  as asked ("dnnl", "dnnl,other", "none"), each of which a loaded plugin must
//              provide; else the libraries the backend prefers (its rxt_backend_t's
//              preferred_libraries; cpu: dnnl) that a loaded plugin provides, a note for each
//              one that none does
//   running    an executable runs on the backend asked for, else the one it was built for;
//              kernels it carries compiled ahead of time run from their library unless another
//              backend is asked for
//
//   Session session({.plugins = {"lion.so"}});
//   Executable exec = session.Build(module, {.backend = ""});            // cpu + dnnl if loaded
//   std::unique_ptr<Trainer> trainer = session.CreateTrainer(backbone, {.loss = {"mse", ""},
//                                                                      .optimizer = {"sgd", "lr=0.1"}});
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rxt/exec/build.h"
#include "rxt/exec/context.h"
#include "rxt/exec/export.h"
#include "rxt/exec/import.h"
#include "rxt/ir/module.h"
#include "rxt/plugin/kernel_library_emitter.h"
#include "rxt/plugin/plugin_host.h"
#include "rxt/runtime/kernel.h"
#include "rxt/runtime/vm.h"
#include "rxt/train/trainer.h"
#include "rxt/transform/training/training_components.h"

namespace rxt {

struct SessionOptions {
  /// Plugin files to load first; a failure is an error.
  std::vector<std::string> plugins;
  /// Load the search path when something the session needs is not loaded (false: never).
  bool search_path = true;
};

/// What to build: empty fields take the defaults above.
struct BuildRequest {
  std::string backend;
  /// The libraries asked for (ParseLibraryList; empty: none); nullopt: the backend's defaults.
  std::optional<std::vector<std::string>> libraries;
  int opt_level = 2;
  /// Also compile the kernels ahead of time into this shared library (BuildOptions::emit_library).
  std::string emit_library;
  /// The machine that library (or the trainer file of SaveTrainer) is for; empty: this one. For
  /// another architecture, the defaults take no kernel library: this machine's (dnnl) may not
  /// be there.
  AotTarget target;
};

/// What a trainer needs beyond the build: the loss and optimizer of a backbone module (a
/// trainer module has them compiled in and must leave both empty).
struct TrainRequest {
  BuildRequest build;
  LossSpec loss;
  OptimizerSpec optimizer;
  /// TrainerSetup's: data parallelism (its bucket size, 0: the default; whether the allreduce
  /// overlaps with the backward pass), gradient accumulation. A trainer module has them compiled
  /// in already (these must then be left as they are).
  bool data_parallel = false;
  int64_t bucket_bytes = 0;
  bool overlap = false;
  bool accumulation = false;
};

/// "dnnl, other" -> {"dnnl", "other"} (names trimmed); "none" -> {}. kInvalidArgument for an
/// empty name ("dnnl,,x") naming |what| ("--library", "options.libraries").
std::vector<std::string> ParseLibraryList(const std::string& text, const std::string& what);

/// A VM and the kernels it runs with (the VM holds a reference to them: keep both).
struct RunnableExecutable {
  std::unique_ptr<KernelProvider> kernels;
  std::unique_ptr<VirtualMachine> vm;
};

class Session {
 public:
  /// A session of |context|: its plugins, threads, allocator and log (notes go there too);
  /// |options| add plugins to load, and may turn the search path off.
  explicit Session(Context& context, SessionOptions options = {});
  /// A session of the default context; with |host|, one that uses |host|'s plugins only.
  explicit Session(SessionOptions options = {}, PluginHost& host = PluginHost::Global());

  /// Parses |text| (named |name| in diagnostics). A module may call ops that plugins define: if
  /// it does not parse, the search path is loaded (once, unless off) and it is parsed again; the
  /// error of the last try is thrown.
  IRModule Parse(const std::string& text, const std::string& name);
  /// Whether an importer of the session's plugins reads |path| (by its extension), loading the
  /// search path (once, unless off) when none of the loaded ones does.
  bool CanImport(const std::string& path);
  /// The model at |path| read by its importer (exec/import.h), |options| passed on.
  ImportedModel Import(const std::string& path, const std::string& options = "");
  /// |module|'s function written by an exporter (exec/export.h); the search path is loaded
  /// (once, unless off) when no loaded exporter fits |request|.
  ExportedModel Export(const IRModule& module, const std::map<std::string, Tensor>& values,
                       const ExportRequest& request);
  /// The Gradient pass (transform/training/gradient.h) with the session's gradient rules; if an
  /// op has no rule, the search path is loaded (once, unless off) and it runs again.
  IRModule Differentiate(const IRModule& module, const std::string& function, std::vector<int> require_grads);
  /// Runs passes by name, with options (pass/pass_list.h: "Gradient(func_name=main), Normalize");
  /// if one fails for want of a gradient rule, a loss or an optimizer, the search path is loaded
  /// (once, unless off) and they run again. Passes by name use the process's plugins (the default context's).
  IRModule RunPasses(const IRModule& module, const std::vector<std::string>& passes);
  /// Runs |work|, a training transform given plugins() as its TrainingProvider; if it fails for
  /// want of a gradient rule, a loss or an optimizer, the search path is loaded (once, unless
  /// off) and it runs again.
  template <typename Work>
  auto WithTrainingPlugins(Work&& work) -> decltype(work()) {
    try {
      return work();
    } catch (const Error& e) {
      if (!MayNeedPlugins(e)) throw;
    }
    LoadSearchPathOnce();
    return work();
  }
  /// The backend, libraries and options a build of |request| uses (loads plugins as needed).
  BuildOptions Resolve(const BuildRequest& request);
  /// Resolve, then Build (exec/build.h).
  Executable Build(IRModule module, const BuildRequest& request = {});
  /// A trainer for |module|, a backbone (with request.loss and request.optimizer) or a trainer
  /// module, running on the resolved backend. The options it was built with: last_build().
  std::unique_ptr<Trainer> CreateTrainer(const IRModule& module, const TrainRequest& request);
  /// |trainer| as a trainer file (train/trainer_file.h) at |path|: its kernels compiled ahead
  /// of time by its backend into the file (a backend that cannot, such as reference: none, and
  /// LoadTrainer compiles them), its values, step count and schedule. Written atomically.
  /// With |target|, the kernels are compiled for that machine (another CPU or architecture),
  /// and a backend that cannot is an error.
  void SaveTrainer(const Trainer& trainer, const std::string& path, const AotTarget& target = {});
  /// The trainer a trainer file holds, going on from where it was saved. Its kernels run from
  /// the file's library: no backend plugin, no compiler, no LLVM is loaded for them; the
  /// plugins of its extern functions are loaded by name (rxt_lib_<library>) before the search
  /// path is tried.
  std::unique_ptr<Trainer> LoadTrainer(const std::string& path);
  /// A communicator of the collective |name| ("mpi": plugins/ccl_mpi) for data-parallel
  /// training (Trainer::SetCommunicator), loading the search path (once, unless off) when no
  /// loaded plugin provides it; |external| is the caller's own communicator (an MPI_Comm*),
  /// null for the launch's world. kNotFound naming the loaded collectives.
  std::shared_ptr<Communicator> CreateCommunicator(const std::string& name, const std::string& options = "",
                                                   void* external = nullptr);
  /// The kernels |exec| runs with on |backend| (empty: the one it was built for).
  std::unique_ptr<KernelProvider> KernelsFor(const Executable& exec, const std::string& backend = "");
  /// A VM running |exec| with KernelsFor(exec, backend), the extern functions of the session's
  /// plugins (and the process's), on the context's threads and allocator.
  RunnableExecutable CreateVM(Executable exec, const std::string& backend = "");

  /// Its plugin host.
  PluginHost& plugins() const { return host_; }

  /// What the session decided that a user may want to know, one line each: search-path
  /// plugins that failed to load, default libraries no plugin provides, the reference
  /// fallback. The rxt command prints them; the C ABI sends them to the plugin log.
  const std::vector<std::string>& notes() const { return notes_; }
  /// The options of the last Resolve (or Build, CreateTrainer).
  const BuildOptions& last_build() const { return last_build_; }

 private:
  /// Loads the search path once if |backend| (empty: the cpu default), the |libraries| asked
  /// for (nullopt: those the backend prefers) or the training items are not all loaded.
  void LoadWhatIsMissing(const std::string& backend, const std::optional<std::vector<std::string>>& libraries,
                         const LossSpec* loss, const OptimizerSpec* optimizer);
  /// kNotFound naming the loaded libraries unless a loaded plugin provides |library|.
  void RequireLibrary(const std::string& library) const;
  /// Loads the search path unless it is off or already loaded.
  void LoadSearchPathOnce();
  /// Whether |e| is what a missing plugin causes (kUnimplemented: a gradient rule; kNotFound: a
  /// loss or optimizer) and the search path may still be loaded.
  bool MayNeedPlugins(const Error& e) const;
  /// Loads the plugins of |exec|'s extern functions that are not loaded: rxt_lib_<library> for
  /// "<library>.<name>" from the search path, then the whole search path if one is still missing.
  void LoadExternPlugins(const Executable& exec);
  /// Keeps |message| in notes() and sends it to the context's log.
  void Note(std::string message);

  Context* context_ = nullptr;  // null: a session over a plugin host alone
  PluginHost& host_;
  SessionOptions options_;
  bool searched_ = false;
  std::vector<std::string> notes_;
  BuildOptions last_build_;
};

}  // namespace rxt
