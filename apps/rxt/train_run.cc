// The run of `rxt train` (train_options.h): plugins, data, model, build, then the epochs —
// shuffled batches through Trainer::Update, the test accuracy, a checkpoint, the metrics and
// the plot after each.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <numeric>

#include "command.h"
#include "progress.h"
#include "rxt/exec/build_trainer.h"
#include "rxt/exec/session.h"
#include "rxt/ir/parser.h"
#include "rxt/runtime/memory_limit.h"
#include "rxt/runtime/safetensors.h"
#include "rxt/transform/passes.h"
#include "rxt/train/random.h"
#include "npy_data.h"
#include "seed_mlp.h"
#include "session_notes.h"
#include "train_batches.h"
#include "train_checkpoints.h"
#include "train_distributed.h"
#include "train_options.h"

namespace rxt::cli {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

/// FNV-1a of the model's text: a resumed run must train the same model.
std::string TextHash(const std::string& text) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ull;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

struct Model {
  IRModule module;
  std::string description;
  std::string hash;
  std::map<std::string, Tensor> values;  // starting values by name (parameters and states); may be empty
  std::string values_source;             // where they come from
};

Model LoadModel(const TrainOptions& options, Session& session) {
  if (options.model.empty()) {
    std::string text = SeedMlpText(options.batch_size);
    return {ParseModule(text, "seed MLP"), "seed MLP 784-128-128-10", TextHash(text), {}, ""};
  }
  const bool is_text = std::filesystem::path(options.model).extension() == ".rxt";
  Model model;
  if (!is_text && session.CanImport(options.model)) {
    ImportedModel imported = session.Import(options.model, options.import_options);
    model = {imported.module, options.model, TextHash(ReadFile(options.model) + options.import_options),
             std::move(imported.values), StrCat(options.model, " (", imported.format, ")")};
  } else {
    if (!options.import_options.empty()) {
      Throw(ErrorCode::kInvalidArgument, "--import-options: ", options.model, " is not imported (it is rxt's text)");
    }
    std::string text = ReadFile(options.model);
    model = {session.Parse(text, options.model), options.model, TextHash(text), {}, ""};
    std::filesystem::path beside = std::filesystem::path(options.model).replace_extension(".safetensors");
    if (options.params.empty() && std::filesystem::exists(beside)) {
      for (auto& [name, tensor] : LoadSafetensors(beside.string()).tensors) model.values.emplace(name, tensor);
      model.values_source = beside.string();
    }
  }
  // Kernels (and kernel libraries) are built for static shapes: a symbolic batch dim of the
  // backbone's input is bound to --batch-size.
  if (Function backbone = model.module.FindFunction("backbone"); backbone && !IsTrainerModule(model.module)) {
    const auto* input = backbone->params.empty() ? nullptr : backbone->params[0]->struct_info->As<TensorSINode>();
    if (input != nullptr && input->shape && !input->shape->empty()) {
      if (const auto* batch = (*input->shape)[0]->As<PrimVarNode>()) {
        model.module = BindSymbolicVars("backbone", {{batch->name, options.batch_size}})(model.module);
        model.description += StrCat(" (", batch->name, " = ", options.batch_size, ")");
      }
    }
  }
  if (!options.params.empty()) {
    model.values.clear();
    for (auto& [name, tensor] : LoadSafetensors(options.params).tensors) model.values.emplace(name, tensor);
    model.values_source = options.params;
  }
  if (IsTrainerModule(model.module) && (options.loss_given || options.optimizer_given)) {
    Throw(ErrorCode::kInvalidArgument, options.model,
          " is a trainer module: its loss and optimizer are compiled in, --loss and --optimizer cannot change them "
          "(give the backbone module instead)");
  }
  return model;
}

/// A trainer file as the run's model: its name, and its bytes' hash (a resumed run must go on
/// from the same file).
Model TrainerFileModel(const TrainOptions& options) {
  std::vector<uint8_t> bytes = ReadFileWithinMemoryLimit(options.model, "trainer file");
  return {IRModule(), StrCat(options.model, " (trainer file)"),
          TextHash(std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size())), {}, options.model};
}

/// The trainer's first values: the model's own (fine-tuning) unless --init says otherwise or it
/// has none; every parameter and state must then have one.
void StartingValues(Trainer& trainer, const Model& model, const TrainOptions& options) {
  if (options.init == "zero") {
    trainer.ZeroInitParams();
    std::cout << "init: zeros\n";
    return;
  }
  if (options.init == "xavier" || model.values.empty()) {
    trainer.InitXavierUniform(options.seed);
    if (!options.model.empty()) std::cout << "init: Xavier uniform\n";
    return;
  }
  std::map<std::string, Tensor> params, states;
  std::vector<std::string> missing;
  for (const auto& [name, unused] : trainer.ExportParams()) {
    auto it = model.values.find(name);
    if (it == model.values.end()) missing.push_back(name);
    else params.emplace(name, it->second);
  }
  for (const auto& [name, unused] : trainer.ExportStates()) {
    auto it = model.values.find(name);
    if (it == model.values.end()) missing.push_back(name);
    else states.emplace(name, it->second);
  }
  if (!missing.empty()) {
    std::string list;
    for (size_t i = 0; i < missing.size() && i < 5; ++i) list += StrCat(i ? ", " : "", missing[i]);
    Throw(ErrorCode::kInvalidArgument, model.values_source, " has no value for ", missing.size(), " of the model's ",
          "parameters and states (", list, missing.size() > 5 ? ", ..." : "", "); give --init xavier to start afresh");
  }
  trainer.LoadParams(params);
  trainer.LoadStates(states);
  std::cout << "init: " << params.size() << " parameters and " << states.size() << " states from "
            << model.values_source << "\n";
}

LrSchedule ScheduleFor(const TrainOptions& options, int64_t steps_per_epoch) {
  LrSchedule schedule = ParseLrSchedule(options.schedule);
  if (schedule.kind == LrSchedule::Kind::kStep && schedule.step_size == 0) schedule.step_size = steps_per_epoch;
  if (schedule.kind == LrSchedule::Kind::kCosine && schedule.total_steps == 0) {
    schedule.total_steps = steps_per_epoch * options.epochs;
  }
  schedule.Validate();
  return schedule;
}

/// The training and test sets: Fashion-MNIST (--data DIR, default Debian's), or the arrays of
/// --train-data and --test-data (the same sample size; the classes of both).
struct TrainingData {
  LabeledSet train, test;
  std::string description;
};

TrainingData LoadTrainingData(const TrainOptions& options) {
  TrainingData data;
  if (options.train_data.empty()) {
    std::string dir = options.data.empty() ? kFashionMnistDir : options.data;
    FashionMnist fashion = LoadFashionMnist(dir);
    data.train = std::move(fashion.train);
    data.test = std::move(fashion.test);
    data.description = StrCat("Fashion-MNIST, ", data.train.count, " training / ", data.test.count, " test images (",
                              dir, ")");
    return data;
  }
  data.train = LoadNpySet(options.train_data, "--train-data");
  data.test = LoadNpySet(options.test_data, "--test-data");
  if (data.test.features != data.train.features) {
    Throw(ErrorCode::kInvalidArgument, "--test-data has samples of ", data.test.features,
          " values, --train-data of ", data.train.features);
  }
  int classes = std::max(data.train.num_classes, data.test.num_classes);
  data.train.num_classes = data.test.num_classes = classes;
  data.description = StrCat(data.train.count, " training (", options.train_data, ") / ", data.test.count, " test (",
                            options.test_data, ") samples of ", data.train.features, " values, ", classes, " classes");
  return data;
}

RunSettings SettingsOf(const TrainOptions& options, const Model& model, const Ranks& ranks) {
  return {{"model (FNV-1a of its text)", model.hash},
          // The samples of a step and their split over ranks: a resumed run must keep both.
          {"ranks", std::to_string(ranks.size)},
          {"--accumulate", std::to_string(options.accumulate)},
          {"--loss", options.loss},
          {"--reduction", options.reduction},
          {"--optimizer", options.optimizer},
          {"optimizer options", options.OptimizerOptions()},
          // As given: a length derived from --epochs ("cosine") may grow when a run is extended.
          {"--schedule", options.schedule},
          {"--batch-size", std::to_string(options.batch_size)},
          {"--seed", std::to_string(options.seed)},
          {"data", options.train_data.empty() ? "Fashion-MNIST" : options.train_data}};
}

std::string Percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f%%", 100.0 * fraction);
  return text;
}

void WriteReports(const TrainOptions& options, const TrainingHistory& history, const std::string& title) {
  if (!options.metrics.empty()) WriteMetricsFile(options.metrics, history.epochs);
  if (!options.plot.empty()) WritePlotFile(options.plot, history, title);
}

/// The time per kernel of a step on the first batch (the second of two runs: the first one
/// also allocates), which changes nothing.
/// Under data parallelism a step is a collective call: every rank profiles it, rank 0 prints.
void PrintStepProfile(Trainer& trainer, const DataLayout& layout, const LabeledSet& set) {
  std::vector<int64_t> samples(std::min(layout.batch, set.count));
  std::iota(samples.begin(), samples.end(), 0);
  Tensor x = InputBatch(layout, set, samples), y = TargetBatch(layout, set, samples);
  trainer.ProfileStep({x}, {y});
  std::cout << "profile of one training step:\n" << trainer.ProfileStep({x}, {y}).Format() << std::flush;
}

/// What a rank has prepared before training: the data, the trainer, the plan of the epochs and
/// what the run reports.
struct PreparedRun {
  std::unique_ptr<Trainer> trainer;
  TrainingData data;
  Model model;
  LrSchedule schedule;
  DataLayout layout;
  RunSettings settings;
  TrainingHistory history;
  int first_epoch = 1;
  int64_t steps_per_epoch = 0, shard_size = 0;
  bool from_file = false;
  bool own_rate = false;  // a trainer file's own learning rate (and schedule) goes on
  std::string title;      // of the plot
};

/// Prints the run's header: "rxt train: model | loss and optimizer | rate | batch | epochs",
/// the data, the ranks, the backend or the trainer file. Sets |run.title|.
void PrintHeader(const TrainOptions& options, const Context& context, Session& session, const Ranks& ranks,
                 PreparedRun& run, double build_seconds) {
  const Trainer& trainer = *run.trainer;
  const int64_t samples_per_step = static_cast<int64_t>(options.batch_size) * options.accumulate;
  std::string setup = run.from_file ? StrCat("its own loss and optimizer (step ", trainer.step(), ")")
                                    : StrCat(options.loss, " (", options.reduction, ") | ", options.optimizer, " ",
                                             options.OptimizerOptions());
  std::string rate = run.own_rate ? (trainer.schedule() ? StrCat("its own schedule ", trainer.schedule()->ToString())
                                                        : StrCat("its own lr ", trainer.learning_rate()))
                                  : StrCat("schedule ", run.schedule.ToString());
  std::string batch = StrCat(options.batch_size);
  if (options.accumulate > 1) batch += StrCat(" x ", options.accumulate, " micro-batches");
  if (ranks.size > 1) batch += StrCat(" x ", ranks.size, " ranks = ", samples_per_step * ranks.size, " per step");
  run.title = run.from_file ? StrCat(run.model.description, ", batch ", batch)
                            : StrCat(run.model.description, ", ", options.optimizer, " lr ", options.lr, ", batch ",
                                     batch, ", ", options.loss, " (", options.reduction, ")");
  std::cout << "rxt train: " << run.model.description << " | " << setup << " | " << rate << " | batch " << batch
            << " | " << options.epochs << (options.epochs == 1 ? " epoch" : " epochs") << " | seed " << options.seed
            << "\n";
  std::cout << "data: " << run.data.description << "\n";
  if (ranks.size > 1) {
    const std::vector<std::string>& externs = trainer.program().executable.externs;
    bool overlapped = std::any_of(externs.begin(), externs.end(),
                                  [](const std::string& name) { return name.rfind("ccl.allreduce_start_", 0) == 0; });
    std::cout << "distributed: " << ranks.size << " ranks (" << ranks.communicator->name() << "), " << run.shard_size
              << " training samples each per epoch (DistributedSampler's rule), gradients combined "
              << (overlapped ? "during the backward pass" : "after the backward pass") << "\n";
  }
  char built[64];
  std::snprintf(built, sizeof built, "%.1f", build_seconds);
  std::string threads = StrCat(context.num_threads(), " thread", context.num_threads() == 1 ? "" : "s");
  if (run.from_file) {
    std::cout << "kernels: compiled ahead of time (" << options.model << "), " << threads << "; loaded in " << built
              << " s\n" << std::flush;
  } else {
    const BuildOptions& build = session.last_build();
    std::string libraries;
    for (const std::string& l : build.libraries) libraries += (libraries.empty() ? "" : ", ") + l;
    std::cout << "backend: " << build.backend << (libraries.empty() ? "" : " with " + libraries) << ", " << threads
              << "; compiled in " << built << " s\n"
              << std::flush;
  }
}

/// Everything before training, which may fail on one rank alone (a file it cannot read): the
/// data, the model built into a trainer, the header, and the starting values (or rank 0's
/// checkpoint, with --resume).
void Prepare(const TrainOptions& options, const Context& context, Session& session, const Ranks& ranks,
             PreparedRun& run) {
  const bool root = ranks.is_root();
  const int64_t samples_per_step = static_cast<int64_t>(options.batch_size) * options.accumulate;
  run.from_file = IsTrainerFile(options.model);
  run.data = LoadTrainingData(options);
  run.shard_size = (run.data.train.count + ranks.size - 1) / ranks.size;
  run.steps_per_epoch = run.shard_size / samples_per_step;
  if (run.steps_per_epoch == 0) {
    Throw(ErrorCode::kInvalidArgument, "--batch-size ", options.batch_size,
          options.accumulate > 1 ? StrCat(" x --accumulate ", options.accumulate) : std::string(),
          ranks.size > 1 ? StrCat(" on each of ", ranks.size, " ranks") : std::string(),
          " is larger than the training set (", run.data.train.count, " samples)");
  }
  run.model = run.from_file ? TrainerFileModel(options) : LoadModel(options, session);
  run.schedule = ScheduleFor(options, run.steps_per_epoch);

  auto build_start = Clock::now();
  if (run.from_file) {
    run.trainer = session.LoadTrainer(options.model);  // its errors name the file
  } else {
    TrainRequest request{.build = {.backend = options.backend}};
    if (!IsTrainerModule(run.model.module)) {
      request.loss = {options.loss, options.LossOptions()};
      request.optimizer = {options.optimizer, options.OptimizerOptions()};
      request.data_parallel = ranks.communicator != nullptr;
      request.bucket_bytes = options.bucket_mb ? static_cast<int64_t>(*options.bucket_mb * (1 << 20)) : 0;
      request.overlap = options.overlap;
      request.accumulation = options.accumulate > 1;
    }
    run.trainer = session.CreateTrainer(run.model.module, request);
  }
  if (root) PrintNotes(session);
  Trainer& trainer = *run.trainer;
  if (options.accumulate > 1 && !trainer.can_accumulate()) {
    Throw(ErrorCode::kInvalidArgument, "--accumulate ", options.accumulate, ": ", options.model,
          " was built without gradient accumulation (rxt build --trainer --accumulate)");
  }
  if (ranks.size > 1 && !trainer.data_parallel()) {
    Throw(ErrorCode::kInvalidArgument, "--distributed: ", options.model,
          " was built without data parallelism, so each rank would train alone (rxt build --trainer "
          "--data-parallel)");
  }
  run.layout = MatchModelToData(trainer.program(), options.batch_size, run.data.train);
  double build_seconds = SecondsSince(build_start);
  run.settings = SettingsOf(options, run.model, ranks);
  // A trainer file has its own loss, optimizer and learning rate (--lr or --schedule replace it).
  run.own_rate = run.from_file && !options.lr_given && !options.schedule_given;
  PrintHeader(options, context, session, ranks, run, build_seconds);
  if (options.resume && root) {
    // Rank 0's checkpoint: the others take its values with the communicator.
    auto newest = NewestCheckpoint(options.checkpoint_dir);
    if (!newest) {
      Throw(ErrorCode::kNotFound, "--resume: no checkpoint (epoch-N.safetensors) in '", options.checkpoint_dir, "'");
    }
    ResumePoint point = ReadCheckpointMetadata(trainer.LoadCheckpoint(newest->second), newest->second);
    CheckSameSettings(point.settings, run.settings, newest->second);
    run.history = point.history;
    run.first_epoch = point.epoch + 1;
    std::cout << "resumed from " << newest->second << " (epoch " << point.epoch << ", step " << trainer.step() << ")\n";
  } else if (!options.resume && (!run.from_file || !options.init.empty())) {
    StartingValues(trainer, run.model, options);
  } else if (!options.resume) {
    std::cout << "start: the trainer file's values (step " << trainer.step() << ")\n";
  }
}

/// The learning rate of the run: a trainer file's own goes on (a note when its schedule has
/// ended), else --lr with --schedule.
void SetLearningRate(const TrainOptions& options, bool root, PreparedRun& run) {
  Trainer& trainer = *run.trainer;
  if (run.own_rate) {
    // The file's rate and schedule go on; a schedule that has run its course stays at its end.
    const std::optional<LrSchedule>& own = trainer.schedule();
    if (root && own && own->kind == LrSchedule::Kind::kCosine && trainer.step() >= own->total_steps) {
      std::cerr << "rxt: note: " << options.model << ": its schedule (" << own->ToString() << ") ended at step "
                << own->total_steps << ": training goes on at its last rate (" << trainer.learning_rate()
                << "); --lr or --schedule set a new one\n";
    }
  } else if (run.schedule.kind != LrSchedule::Kind::kConstant || run.schedule.warmup_steps > 0) {
    trainer.SetSchedule(run.schedule, options.lr);
  } else if (run.from_file) {
    trainer.SetLearningRate(options.lr);
  }
}

/// One epoch over this rank's shard of the shuffled samples: the sum of its steps' losses (the
/// loss curve goes into |run.history|).
double TrainEpoch(const TrainOptions& options, const Ranks& ranks, PreparedRun& run, int epoch,
                  std::vector<int64_t>& order, ProgressBar& progress) {
  Trainer& trainer = *run.trainer;
  const LabeledSet& train = run.data.train;
  const int64_t window = std::max<int64_t>(1, run.steps_per_epoch / 50);
  std::iota(order.begin(), order.end(), 0);
  Random rng = Random::Stream(options.seed, static_cast<uint64_t>(epoch));
  Shuffle(order, rng);
  std::vector<int64_t> shard = ShardOf(order, ranks.rank, ranks.size);
  double sum = 0, window_sum = 0;
  for (int64_t step = 0; step < run.steps_per_epoch; ++step) {
    auto batch_of = [&](int64_t micro) {
      return std::span<const int64_t>(shard.data() + (step * options.accumulate + micro) * options.batch_size,
                                      options.batch_size);
    };
    double loss = 0;
    if (options.accumulate == 1) {
      std::span<const int64_t> samples = batch_of(0);
      loss = trainer.Update({InputBatch(run.layout, train, samples)}, {TargetBatch(run.layout, train, samples)})
                 .GetAsDouble(0);
    } else {
      for (int micro = 0; micro < options.accumulate; ++micro) {
        std::span<const int64_t> samples = batch_of(micro);
        trainer.Accumulate({InputBatch(run.layout, train, samples)}, {TargetBatch(run.layout, train, samples)});
      }
      loss = trainer.ApplyAccumulated().GetAsDouble(0);
    }
    sum += loss;
    window_sum += loss;
    if ((step + 1) % window == 0) {
      run.history.curve.push_back({epoch - 1 + static_cast<double>(step + 1) / run.steps_per_epoch,
                                   window_sum / static_cast<double>(window)});
      window_sum = 0;
    }
    if (ranks.is_root()) progress.Update(step + 1, sum / static_cast<double>(step + 1));
  }
  return sum;
}

/// After the epochs (rank 0): the trainer file (--save-trainer) and the final accuracy.
void Conclude(const TrainOptions& options, Session& session, PreparedRun& run) {
  if (run.first_epoch > options.epochs) {
    std::cout << "nothing to train: the checkpoint has " << run.first_epoch - 1 << " epochs (--epochs "
              << options.epochs << ")\n";
    WriteReports(options, run.history, run.title);
  }
  if (!options.save_trainer.empty()) {
    session.SaveTrainer(*run.trainer, options.save_trainer);
    PrintNotes(session);
    std::error_code ec;
    double mib = static_cast<double>(std::filesystem::file_size(options.save_trainer, ec)) / (1 << 20);
    char size[32];
    std::snprintf(size, sizeof size, "%.1f MiB", mib);
    std::cout << "saved the trainer (step " << run.trainer->step() << ") to " << options.save_trainer << " (" << size
              << "): rxt train --model " << options.save_trainer << " goes on from it\n";
  }
  if (!run.history.epochs.empty()) {
    int epochs = run.history.epochs.back().epoch;
    std::cout << "final test accuracy " << Percent(run.history.epochs.back().test_accuracy) << " after " << epochs
              << (epochs == 1 ? " epoch\n" : " epochs\n");
  }
}

/// The run on this rank (every rank of a distributed run runs it; rank 0 reports).
/// |started| is set once every rank is ready: a failure after it ends the job (the others would
/// wait for this rank), one before it every rank knows of already.
void Train(const TrainOptions& options, Context& context, Session& session, const Ranks& ranks, bool& started) {
  // Other ranks train silently: rank 0 prints progress, metrics and notes, and writes files.
  if (!ranks.is_root()) std::cout.setstate(std::ios_base::badbit);
  const bool root = ranks.is_root();

  // Each rank says whether it got ready before any of them waits for the others in a collective.
  PreparedRun run;
  bool ready = false;
  std::exception_ptr failure;
  try {
    Prepare(options, context, session, ranks, run);
    ready = true;
  } catch (...) {
    if (ranks.size == 1) throw;
    failure = std::current_exception();
  }
  run.first_epoch = static_cast<int>(AgreeOnRootValue(ranks, ready, run.first_epoch, "get ready to train"));
  if (failure) std::rethrow_exception(failure);
  started = true;
  Trainer& trainer = *run.trainer;
  // Every rank from rank 0's parameters, states, optimizer state and step count.
  if (ranks.communicator != nullptr) trainer.SetCommunicator(ranks.communicator);

  run.model.values.clear();  // the trainer holds its own copy: a model's weights stay in memory once
  SetLearningRate(options, root, run);
  if (root && !options.checkpoint_dir.empty()) std::filesystem::create_directories(options.checkpoint_dir);
  if (options.profile) PrintStepProfile(trainer, run.layout, run.data.train);

  ProgressBar progress(stderr, IsTerminal(stderr));
  std::vector<int64_t> order(run.data.train.count);
  for (int epoch = run.first_epoch; epoch <= options.epochs; ++epoch) {
    auto start = Clock::now();
    if (root) progress.Start(epoch, options.epochs, run.steps_per_epoch);
    double sum = TrainEpoch(options, ranks, run, epoch, order, progress);
    double seconds = SecondsSince(start);
    if (!root) continue;  // rank 0 tests, reports and writes the checkpoint
    progress.Finish();

    EpochMetrics metrics{epoch, sum / static_cast<double>(run.steps_per_epoch),
                         TestAccuracy(trainer, run.layout, run.data.test), seconds,
                         static_cast<double>(run.steps_per_epoch) / seconds};
    run.history.epochs.push_back(metrics);
    char line[256];
    std::snprintf(line, sizeof line, "epoch %d/%d: loss %.4f, test accuracy %s, %.2f s (%.1f steps/s)%s\n", epoch,
                  options.epochs, metrics.loss, Percent(metrics.test_accuracy).c_str(), seconds,
                  metrics.steps_per_second, std::isfinite(metrics.loss) ? "" : " (the loss diverged)");
    std::cout << line << std::flush;
    if (!options.checkpoint_dir.empty()) {
      trainer.SaveCheckpoint(CheckpointPath(options.checkpoint_dir, epoch),
                             CheckpointMetadata(epoch, run.settings, run.history));
    }
    WriteReports(options, run.history, run.title);
  }
  if (root) Conclude(options, session, run);
}

}  // namespace

void RunTraining(const TrainOptions& options) {
  // --threads: a context with a pool of its own (0: the process pool, RXT_NUM_THREADS).
  Context context({.num_threads = options.threads, .plugins = options.plugins});
  Session session(context);
  Ranks ranks;
  if (!options.distributed.empty()) {
    ranks.communicator = session.CreateCommunicator(options.distributed);
    ranks.rank = ranks.communicator->rank();
    ranks.size = ranks.communicator->size();
  }
  bool started = false;
  try {
    Train(options, context, session, ranks, started);
  } catch (const std::exception& e) {
    if (ranks.size == 1) throw;
    // Each rank names itself; a rank that fails while training ends the job, or the others
    // would wait for it in their next allreduce for ever.
    std::cerr << FormatError(StrCat("rank ", ranks.rank, " of ", ranks.size, ": ", e.what())) << std::endl;
    if (started) ranks.communicator->Abort(1);
    throw ReportedError();
  }
}

}  // namespace rxt::cli
