// `rxt train --checkpoint-dir DIR [--resume]`: one checkpoint per epoch, DIR/epoch-<N>.safetensors
// (the Trainer's checkpoint plus the epoch, the run's settings and its history), and the newest
// one found again to resume.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "training_metrics.h"

namespace rxt::cli {

/// DIR/epoch-<epoch>.safetensors.
std::string CheckpointPath(const std::string& dir, int epoch);

/// The epoch of a checkpoint's file name "epoch-<N>.safetensors" (1 to kMaxEpochs), or nullopt.
std::optional<int> CheckpointEpoch(std::string_view name);

/// The checkpoint with the highest epoch in |dir|, or nullopt if it has none. kNotFound if
/// |dir| does not exist.
std::optional<std::pair<int, std::string>> NewestCheckpoint(const std::string& dir);

/// The settings a resumed run must share with the one that wrote the checkpoint (the model,
/// loss, optimizer, learning rate, schedule, batch size, seed), as "key" -> value.
using RunSettings = std::map<std::string, std::string>;

/// The metadata stored with an epoch's checkpoint, and read back (kDataLoss naming |source|).
std::map<std::string, std::string> CheckpointMetadata(int epoch, const RunSettings& settings,
                                                      const TrainingHistory& history);
struct ResumePoint {
  int epoch = 0;
  RunSettings settings;
  TrainingHistory history;
};
ResumePoint ReadCheckpointMetadata(const std::map<std::string, std::string>& metadata, const std::string& source);

/// kFailedPrecondition listing each setting that differs ("--batch-size: 32 in the checkpoint,
/// 64 now").
void CheckSameSettings(const RunSettings& saved, const RunSettings& now, const std::string& source);

}  // namespace rxt::cli
