// The metrics JSON and the history kept in checkpoints (training_metrics.h).
#include "training_metrics.h"

#include <nlohmann/json.hpp>

#include "rxt/support/error.h"
#include "rxt/support/file_io.h"

namespace rxt::cli {

using nlohmann::json;

namespace {

json EpochsJson(const std::vector<EpochMetrics>& epochs) {
  json list = json::array();
  for (const EpochMetrics& e : epochs) {
    list.push_back({{"epoch", e.epoch},
                    {"loss", e.loss},
                    {"test_accuracy", e.test_accuracy},
                    {"seconds", e.seconds},
                    {"steps_per_second", e.steps_per_second}});
  }
  return list;
}

}  // namespace

std::string MetricsJson(const std::vector<EpochMetrics>& epochs) {
  return json{{"epochs", EpochsJson(epochs)}}.dump(2) + "\n";
}

std::string HistoryJson(const TrainingHistory& history) {
  json curve = json::array();
  for (const LossPoint& p : history.curve) curve.push_back({p.epoch, p.loss});
  return json{{"epochs", EpochsJson(history.epochs)}, {"curve", curve}}.dump();
}

TrainingHistory ParseHistoryJson(const std::string& text, const std::string& source) {
  try {
    json j = json::parse(text);
    TrainingHistory history;
    for (const json& e : j.at("epochs")) {
      history.epochs.push_back({e.at("epoch").get<int>(), e.at("loss").get<double>(),
                                e.at("test_accuracy").get<double>(), e.at("seconds").get<double>(),
                                e.at("steps_per_second").get<double>()});
    }
    for (const json& p : j.at("curve")) history.curve.push_back({p.at(0).get<double>(), p.at(1).get<double>()});
    return history;
  } catch (const json::exception& e) {
    Throw(ErrorCode::kDataLoss, source, ": the training history is not valid (", e.what(), ")");
  }
}

void WriteMetricsFile(const std::string& path, const std::vector<EpochMetrics>& epochs) {
  std::string text = MetricsJson(epochs);
  WriteFileAtomically(path, text.data(), text.size(), "metrics");
}

void WritePlotFile(const std::string& path, const TrainingHistory& history, const std::string& title) {
  if (path.size() < 4 || path.compare(path.size() - 4, 4, ".svg") != 0) {
    Throw(ErrorCode::kInvalidArgument, "--plot '", path, "': the plot is an SVG image: name the file *.svg");
  }
  std::string svg = PlotSvg(history, title);
  WriteFileAtomically(path, svg.data(), svg.size(), "plot");
}

}  // namespace rxt::cli
