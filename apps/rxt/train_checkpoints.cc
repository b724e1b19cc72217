// Checkpoints of `rxt train` (train_checkpoints.h).
#include "train_checkpoints.h"

#include <charconv>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "rxt/support/error.h"

namespace rxt::cli {

std::string CheckpointPath(const std::string& dir, int epoch) {
  return (std::filesystem::path(dir) / StrCat("epoch-", epoch, ".safetensors")).string();
}

std::optional<std::pair<int, std::string>> NewestCheckpoint(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    Throw(ErrorCode::kNotFound, "--resume: no checkpoint directory '", dir, "'");
  }
  static const std::regex kName("epoch-([0-9]{1,9})\\.safetensors");
  std::optional<std::pair<int, std::string>> newest;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::smatch match;
    std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || !std::regex_match(name, match, kName)) continue;
    int epoch = std::stoi(match[1].str());
    if (!newest || epoch > newest->first) newest = std::make_pair(epoch, entry.path().string());
  }
  return newest;
}

std::map<std::string, std::string> CheckpointMetadata(int epoch, const RunSettings& settings,
                                                      const TrainingHistory& history) {
  return {{"epoch", std::to_string(epoch)},
          {"settings", nlohmann::json(settings).dump()},
          {"history", HistoryJson(history)}};
}

ResumePoint ReadCheckpointMetadata(const std::map<std::string, std::string>& metadata, const std::string& source) {
  auto field = [&](const char* key) -> const std::string& {
    auto it = metadata.find(key);
    if (it == metadata.end()) {
      Throw(ErrorCode::kDataLoss, source, ": not a checkpoint of rxt train (no metadata '", key, "')");
    }
    return it->second;
  };
  ResumePoint point;
  const std::string& epoch = field("epoch");
  auto [end, ec] = std::from_chars(epoch.data(), epoch.data() + epoch.size(), point.epoch);
  if (ec != std::errc() || end != epoch.data() + epoch.size() || point.epoch < 1) {
    Throw(ErrorCode::kDataLoss, source, ": metadata 'epoch' is not an epoch number: '", epoch, "'");
  }
  try {
    point.settings = nlohmann::json::parse(field("settings")).get<RunSettings>();
  } catch (const nlohmann::json::exception& e) {
    Throw(ErrorCode::kDataLoss, source, ": metadata 'settings' is not valid (", e.what(), ")");
  }
  point.history = ParseHistoryJson(field("history"), source);
  return point;
}

void CheckSameSettings(const RunSettings& saved, const RunSettings& now, const std::string& source) {
  std::string differences;
  for (const auto& [key, value] : now) {
    auto it = saved.find(key);
    std::string before = it == saved.end() ? "(not set)" : it->second;
    if (before != value) differences += StrCat("\n  ", key, ": ", before, " in the checkpoint, ", value, " now");
  }
  if (!differences.empty()) {
    Throw(ErrorCode::kFailedPrecondition, "--resume: ", source,
          " was made with other settings; resume with the same ones (or start a new --checkpoint-dir):",
          differences);
  }
}

}  // namespace rxt::cli
