// Checkpoints of `rxt train` (train_checkpoints.h).
#include "train_checkpoints.h"

#include <charconv>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "rxt/support/error.h"
#include "rxt/support/message_text.h"
#include "train_options.h"

namespace rxt::cli {

std::string CheckpointPath(const std::string& dir, int epoch) {
  return (std::filesystem::path(dir) / StrCat("epoch-", epoch, ".safetensors")).string();
}

std::optional<int> CheckpointEpoch(std::string_view name) {
  constexpr std::string_view kPrefix = "epoch-", kSuffix = ".safetensors";
  if (name.size() <= kPrefix.size() + kSuffix.size() || name.substr(0, kPrefix.size()) != kPrefix ||
      name.substr(name.size() - kSuffix.size()) != kSuffix) {
    return std::nullopt;
  }
  std::string_view digits = name.substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size());
  int epoch = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), epoch);
  if (ec != std::errc() || end != digits.data() + digits.size() || epoch < 1 || epoch > kMaxEpochs) return std::nullopt;
  return epoch;
}

std::optional<std::pair<int, std::string>> NewestCheckpoint(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    Throw(ErrorCode::kNotFound, "--resume: no checkpoint directory '", dir, "'");
  }
  std::optional<std::pair<int, std::string>> newest;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::optional<int> epoch = CheckpointEpoch(entry.path().filename().string());
    if (!entry.is_regular_file() || !epoch) continue;
    if (!newest || *epoch > newest->first) newest = std::make_pair(*epoch, entry.path().string());
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
  if (ec != std::errc() || end != epoch.data() + epoch.size() || point.epoch < 1 || point.epoch > kMaxEpochs) {
    Throw(ErrorCode::kDataLoss, source, ": metadata 'epoch' is ", Quoted(epoch), ", not an epoch number (1 to ",
          kMaxEpochs, ")");
  }
  // A file renamed from another epoch's would resume at the wrong place.
  std::optional<int> named = CheckpointEpoch(std::filesystem::path(source).filename().string());
  if (named && *named != point.epoch) {
    Throw(ErrorCode::kDataLoss, source, ": metadata 'epoch' is ", point.epoch, " but the file is named for epoch ", *named);
  }
  nlohmann::json settings;
  try {
    settings = nlohmann::json::parse(field("settings"));
  } catch (const nlohmann::json::parse_error& e) {
    Throw(ErrorCode::kDataLoss, source, ": metadata 'settings' is not JSON (at byte ", e.byte, ")");
  } catch (const nlohmann::json::out_of_range&) {  // a number past double's range: 1e999
    Throw(ErrorCode::kDataLoss, source, ": metadata 'settings' holds a number out of range");
  }
  if (!settings.is_object()) Throw(ErrorCode::kDataLoss, source, ": metadata 'settings' is not a JSON object");
  for (auto it = settings.begin(); it != settings.end(); ++it) {
    if (!it.value().is_string()) {
      Throw(ErrorCode::kDataLoss, source, ": metadata 'settings': ", Quoted(it.key()), " is not a string");
    }
    point.settings[it.key()] = it.value().get<std::string>();
  }
  // Settings added since: what a checkpoint written before them was made with.
  point.settings.emplace("ranks", "1");
  point.settings.emplace("--accumulate", "1");
  point.history = ParseHistoryJson(field("history"), source, point.epoch);
  return point;
}

void CheckSameSettings(const RunSettings& saved, const RunSettings& now, const std::string& source) {
  std::string differences;
  for (const auto& [key, value] : now) {
    auto it = saved.find(key);
    std::string before = it == saved.end() ? "(not set)" : it->second;
    if (before != value) {
      differences += StrCat(differences.empty() ? "" : "; ", key, ": ", MessageText(before, 60), " in the checkpoint, ",
                            MessageText(value, 60), " now");
    }
  }
  if (!differences.empty()) {
    Throw(ErrorCode::kFailedPrecondition, "--resume: ", source,
          " was made with other settings; resume with the same ones (or start a new --checkpoint-dir): ", differences);
  }
}

}  // namespace rxt::cli
