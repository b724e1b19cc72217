// The options of `rxt train` (train.cc defines them on the command line, docs/cli.md documents
// them) and the run they describe (train_run.cc).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rxt::cli {

/// The most epochs a run may have (--epochs, and the epoch a checkpoint may record).
inline constexpr int kMaxEpochs = 1000000;

struct TrainOptions {
  std::string model;  // a backbone (or trainer) module, a model an importer reads (.onnx), or a trainer file (.rxtt); empty: the seed MLP
  std::string import_options;  // passed to the importer
  std::string params;  // starting values (.safetensors); empty: the model's own (beside it, or imported), if any
  std::string init;    // xavier or zero: ignore the starting values; empty: them when there are, else xavier
  std::string loss = "cross_entropy";
  std::string reduction = "mean";
  std::string optimizer = "adam";
  double lr = 0.001;
  std::optional<double> weight_decay;  // not given: the optimizer's default
  std::optional<double> momentum;
  std::string schedule = "cosine";  // over the whole run: the default that trains best
  int epochs = 5;  // 1 to kMaxEpochs
  int batch_size = 64;  // per micro-batch and rank
  int accumulate = 1;   // micro-batches per optimizer step (gradient accumulation)
  std::string distributed;  // a collective ("mpi"): data-parallel over the launch's ranks; empty: one process
  std::optional<double> bucket_mb;  // the most MiB of gradients in one allreduce (default: SetupTrainer's)
  bool overlap = false;             // each bucket's allreduce during the backward pass, not after it
  uint64_t seed = 0;
  int threads = 0;  // 0: RXT_NUM_THREADS or the machine's cores
  std::string checkpoint_dir;
  bool resume = false;
  std::vector<std::string> plugins;
  std::string data;     // empty: Debian's dataset-fashion-mnist
  std::string train_data, test_data;  // "X.npy,Y.npy" each (instead of Fashion-MNIST); both or neither
  std::string backend;  // empty: cpu if a plugin provides it, else reference
  std::string plot;     // an .svg file
  std::string metrics;  // a .json file
  bool profile = false; // print the time per kernel of one step first
  std::string save_trainer;  // a trainer file (.rxtt) written at the end; empty: none
  bool loss_given = false, optimizer_given = false;  // set on the command line (a trainer module has its own)
  bool lr_given = false, schedule_given = false;  // set on the command line (a trainer file has its own)
  bool backend_given = false;

  /// The optimizer's options in the attribute syntax: "lr=0.001, weight_decay=0.01".
  std::string OptimizerOptions() const;
  /// The loss's options: "reduction=\"mean\"".
  std::string LossOptions() const;
  /// Throws kInvalidArgument naming the option for values out of range.
  void Validate() const;
};

/// Whether |path| names a trainer file (.rxtt, train/trainer_file.h).
bool IsTrainerFile(const std::string& path);

/// Runs the training |options| describe; prints to stdout (epoch results) and stderr (progress).
void RunTraining(const TrainOptions& options);

}  // namespace rxt::cli
