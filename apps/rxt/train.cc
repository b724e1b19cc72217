// rxt train [--model FILE.rxt] [options]: trains a model on Fashion-MNIST with the Trainer
// (docs/cli.md, "rxt train"). The options live here; the run is train_run.cc.
#include <charconv>
#include <cmath>
#include <filesystem>
#include <memory>

#include "command.h"
#include "fashion_mnist.h"
#include "rxt/support/error.h"
#include "rxt/support/message_text.h"
#include "train_options.h"

namespace rxt::cli {

namespace {

/// The most micro-batches one optimizer step may accumulate.
constexpr int kMaxAccumulate = 1 << 20;

/// The shortest text that reads back as |value| (1e-05, 0.001, 0.9).
std::string ExactNumber(double value) {
  char text[64];
  auto [end, ec] = std::to_chars(text, text + sizeof text, value);
  return std::string(text, end);
}

}  // namespace

std::string TrainOptions::OptimizerOptions() const {
  std::string options = "lr=" + ExactNumber(lr);
  if (weight_decay) options += ", weight_decay=" + ExactNumber(*weight_decay);
  if (momentum) options += ", momentum=" + ExactNumber(*momentum);
  return options;
}

bool IsTrainerFile(const std::string& path) { return std::filesystem::path(path).extension() == ".rxtt"; }

std::string TrainOptions::LossOptions() const { return "reduction=\"" + reduction + "\""; }

void TrainOptions::Validate() const {
  if (reduction != "mean" && reduction != "sum") {
    Throw(ErrorCode::kInvalidArgument, "--reduction must be mean or sum, not ", Quoted(reduction),
          " (\"none\" gives no scalar loss to train)");
  }
  if (epochs < 1 || epochs > kMaxEpochs) {
    Throw(ErrorCode::kInvalidArgument, "--epochs must be from 1 to ", kMaxEpochs, ", not ", epochs);
  }
  if (batch_size < 1) Throw(ErrorCode::kInvalidArgument, "--batch-size must be at least 1, not ", batch_size);
  if (accumulate < 1 || accumulate > kMaxAccumulate) {
    Throw(ErrorCode::kInvalidArgument, "--accumulate must be from 1 to ", kMaxAccumulate, ", not ", accumulate);
  }
  if (bucket_mb && (!std::isfinite(*bucket_mb) || *bucket_mb <= 0 || *bucket_mb > 1 << 20)) {
    Throw(ErrorCode::kInvalidArgument, "--bucket-mb must be a number above 0 (MiB), not ", *bucket_mb);
  }
  if (train_data.empty() != test_data.empty()) {
    Throw(ErrorCode::kInvalidArgument, "--train-data and --test-data go together: give both");
  }
  if (!train_data.empty() && !data.empty()) {
    Throw(ErrorCode::kInvalidArgument, "--data (Fashion-MNIST's files) and --train-data exclude each other");
  }
  if (threads < 0) Throw(ErrorCode::kInvalidArgument, "--threads must be at least 1, not ", threads);
  if (!std::isfinite(lr) || lr < 0) Throw(ErrorCode::kInvalidArgument, "--lr must be a number >= 0, not ", lr);
  if (weight_decay && (!std::isfinite(*weight_decay) || *weight_decay < 0)) {
    Throw(ErrorCode::kInvalidArgument, "--weight-decay must be a number >= 0, not ", *weight_decay);
  }
  if (momentum && (!std::isfinite(*momentum) || *momentum < 0)) {
    Throw(ErrorCode::kInvalidArgument, "--momentum must be a number >= 0, not ", *momentum);
  }
  if (IsTrainerFile(model)) {
    // Compiled in: what would change them cannot be honored.
    const std::pair<bool, const char*> fixed[] = {{loss_given, "--loss"},
                                                  {optimizer_given, "--optimizer"},
                                                  {weight_decay.has_value(), "--weight-decay"},
                                                  {momentum.has_value(), "--momentum"},
                                                  {!params.empty(), "--params"},
                                                  {!import_options.empty(), "--import-options"},
                                                  {bucket_mb.has_value(), "--bucket-mb"},
                                                  {overlap, "--overlap"},
                                                  {backend_given, "--backend"}};
    for (const auto& [given, option] : fixed) {
      if (given) {
        Throw(ErrorCode::kInvalidArgument, option, ": ", model,
              " is a trainer file: its loss, optimizer, values and kernels are compiled in (start from the model "
              "instead, or use --init to start its parameters afresh)");
      }
    }
  }
  if (!save_trainer.empty()) {
    std::filesystem::path parent = std::filesystem::path(save_trainer).parent_path();
    std::error_code ec;
    if (!parent.empty() && !std::filesystem::is_directory(parent, ec)) {
      Throw(ErrorCode::kNotFound, "--save-trainer '", save_trainer, "': no directory '", parent.string(), "'");
    }
  }
  if (resume && checkpoint_dir.empty()) {
    Throw(ErrorCode::kInvalidArgument, "--resume needs --checkpoint-dir DIR (where the checkpoints are)");
  }
  if (!plot.empty() && (plot.size() < 4 || plot.compare(plot.size() - 4, 4, ".svg") != 0)) {
    Throw(ErrorCode::kInvalidArgument, "--plot '", plot, "': the plot is an SVG image: name the file *.svg");
  }
  // Found out now rather than after the first epoch.
  for (const auto& [option, path] : {std::pair<const char*, const std::string*>{"--plot", &plot}, {"--metrics", &metrics}}) {
    std::filesystem::path parent = std::filesystem::path(*path).parent_path();
    std::error_code ec;
    if (!path->empty() && !parent.empty() && !std::filesystem::is_directory(parent, ec)) {
      Throw(ErrorCode::kNotFound, option, " '", *path, "': no directory '", parent.string(), "'");
    }
  }
}

void AddTrainCommand(CLI::App& app, CommandResult& result) {
  auto o = std::make_shared<TrainOptions>();
  auto weight_decay = std::make_shared<double>(0), momentum = std::make_shared<double>(0);
  CLI::App* train = app.add_subcommand("train", "Train a model on Fashion-MNIST (the seed MLP by default).");
  // An option given twice takes its last value (a script's defaults, then the user's).
  train->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  train->add_option("--model", o->model,
                    "The backbone module to train (.rxt), a model an importer reads (.onnx), or a trainer file "
                    "(.rxtt: compiled, with its loss, optimizer and values) (default: the seed MLP 784-128-128-10)")
      ->type_name("FILE");
  train->add_option("--import-options", o->import_options, "Options of the model's importer (e.g. training=true)")
      ->type_name("TEXT");
  train->add_option("--params", o->params,
                    "Start from these values, by name (default: the model's own: FILE's name with .safetensors "
                    "beside it, or what its importer read; fine-tuning)")
      ->type_name("FILE.safetensors");
  train->add_option("--init", o->init, "Initialize instead of starting from the model's values: xavier or zero")
      ->type_name("xavier|zero")
      ->check(CLI::IsMember({"xavier", "zero"}));
  CLI::Option* loss = train->add_option("--loss", o->loss, "The loss (cross_entropy, mse, ...; 'rxt plugins' lists them)")
                          ->type_name("NAME")
                          ->capture_default_str();
  train->add_option("--reduction", o->reduction, "How the loss reduces over the batch: mean or sum")
      ->type_name("mean|sum")
      ->capture_default_str();
  CLI::Option* optimizer =
      train->add_option("--optimizer", o->optimizer, "sgd, momentum, adam, adamw, rmsprop, adagrad or a plugin's")
          ->type_name("NAME")
          ->capture_default_str();
  CLI::Option* lr = train->add_option("--lr", o->lr, "The learning rate (the base of --schedule)")->capture_default_str();
  CLI::Option* wd = train->add_option("--weight-decay", *weight_decay, "Weight decay (default: the optimizer's, 0)");
  CLI::Option* mom = train->add_option("--momentum", *momentum, "Momentum (momentum, rmsprop)");
  CLI::Option* schedule = train->add_option("--schedule", o->schedule,
                    "Learning-rate schedule: constant, step[:step_size=N,gamma=G], cosine[:min_lr=M], warmup:steps=N; "
                    "any with warmup=N (steps count updates; step_size defaults to one epoch, total_steps to the run)")
      ->type_name("SPEC")
      ->capture_default_str();
  train->add_option("--epochs", o->epochs, "Passes over the training set")->capture_default_str();
  train->add_option("--batch-size", o->batch_size, "Samples per step (the last partial batch of an epoch is dropped)")
      ->capture_default_str();
  train->add_option("--accumulate", o->accumulate,
                    "Gradient accumulation: micro-batches of --batch-size whose gradients are summed before each "
                    "optimizer step (a step trains on batch x N samples)")
      ->type_name("N")
      ->capture_default_str();
  train->add_option("--distributed", o->distributed,
                    "Data-parallel training over the processes of the launch (mpirun -np N rxt train --distributed "
                    "mpi ...): each rank trains on its share of every epoch, the gradients are averaged over the "
                    "ranks; rank 0 prints and writes the files")
      ->type_name("mpi");
  train->add_option("--bucket-mb", o->bucket_mb,
                    "With --distributed: the most MiB of gradients in one allreduce (default: 25, or 1 with "
                    "--overlap)")
      ->type_name("MiB");
  train->add_flag("--overlap", o->overlap,
                  "With --distributed: start each bucket's allreduce as soon as the backward pass has computed it, "
                  "instead of after the backward pass (pays when a network carries the allreduce while the cores "
                  "compute)");
  train->add_option("--seed", o->seed, "Seeds initialization and shuffling: the same seed, the same run")
      ->capture_default_str();
  train->add_option("--threads", o->threads, "Threads of the kernels (default: RXT_NUM_THREADS or every core)");
  train->add_option("--checkpoint-dir", o->checkpoint_dir, "Save a checkpoint here after each epoch")
      ->type_name("DIR");
  train->add_flag("--resume", o->resume, "Continue from the newest checkpoint in --checkpoint-dir");
  train->add_option("--plugin", o->plugins, "Also load the plugin library at PATH (repeatable)")
      ->type_name("PATH")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  train->add_option("--data", o->data, StrCat("Fashion-MNIST's IDX files (default: ", kFashionMnistDir, ")"))
      ->type_name("DIR");
  train->add_option("--train-data", o->train_data,
                    "Train on these arrays instead of Fashion-MNIST: the samples (float, one per row) and their "
                    "integer class labels")
      ->type_name("X.npy,Y.npy");
  train->add_option("--test-data", o->test_data, "The test set that goes with --train-data")->type_name("X.npy,Y.npy");
  train->add_option("--backend", o->backend, "The backend (default: cpu when a plugin provides it, else reference)")
      ->type_name("NAME");
  train->add_option("--plot", o->plot, "Write the loss and accuracy curves to this SVG file")->type_name("FILE.svg");
  train->add_option("--metrics", o->metrics, "Write per-epoch metrics to this JSON file")->type_name("FILE.json");
  train->add_flag("--profile", o->profile, "First print the time per kernel of one training step");
  train->add_option("--save-trainer", o->save_trainer,
                    "At the end, save the trained trainer as a trainer file (its kernels compiled ahead of time) that "
                    "'rxt train --model' and the runtime alone go on from")
      ->type_name("FILE.rxtt");
  CLI::Option* backend = train->get_option("--backend");
  train->footer(
      "Without --model, trains the seed MLP (784-128-128-10, Xavier init) with batch 64 for 5 epochs.\n"
      "A model with values (model.safetensors beside model.rxt, an .onnx file's initializers, or --params)\n"
      "starts from them; others start from Xavier init.\n"
      "The seed tutorial's own settings: --optimizer sgd --lr 0.01 --weight-decay 0.01 --reduction sum\n"
      "--schedule constant.\n"
      "A trainer file (--save-trainer) goes on with its own loss, optimizer, values, step count, learning\n"
      "rate and schedule (--lr and --schedule replace the last two).\n"
      "Example: rxt train --optimizer adam --lr 0.001 --plot curves.svg --metrics metrics.json");
  train->callback([o, weight_decay, momentum, loss, optimizer, wd, mom, lr, schedule, backend, &result] {
    TrainOptions options = *o;
    if (wd->count() > 0) options.weight_decay = *weight_decay;
    if (mom->count() > 0) options.momentum = *momentum;
    options.loss_given = loss->count() > 0;
    options.optimizer_given = optimizer->count() > 0;
    options.lr_given = lr->count() > 0;
    options.schedule_given = schedule->count() > 0;
    options.backend_given = backend->count() > 0;
    options.Validate();
    RunTraining(options);
    result.exit_code = 0;
  });
}

}  // namespace rxt::cli
