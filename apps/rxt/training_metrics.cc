// The metrics JSON and the history kept in checkpoints (training_metrics.h).
#include "training_metrics.h"

#include <cmath>
#include <limits>
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

TrainingHistory ParseHistoryJson(const std::string& text, const std::string& source, int max_epoch) {
  auto fail = [&](const auto&... what) {
    Throw(ErrorCode::kDataLoss, source, ": the training history is not valid: ", what...);
  };
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    fail("not JSON (at byte ", e.byte, ")");
  } catch (const json::out_of_range&) {  // a number past double's range: 1e999
    fail("a number is out of range");
  }
  // A number of the file: finite, or null (JSON's NaN: a run whose loss diverged).
  auto number = [&](const json& value, const std::string& where) {
    if (value.is_null()) return std::numeric_limits<double>::quiet_NaN();
    if (!value.is_number() || !std::isfinite(value.get<double>())) fail(where, " is not a number");
    return value.get<double>();
  };
  if (!j.is_object() || !j.contains("epochs") || !j["epochs"].is_array() || !j.contains("curve") || !j["curve"].is_array()) {
    fail("expected {\"epochs\": [...], \"curve\": [...]}");
  }
  TrainingHistory history;
  for (const json& e : j["epochs"]) {
    std::string where = StrCat("epochs[", history.epochs.size(), "]");
    if (!e.is_object()) fail(where, " is not an object");
    for (const char* key : {"epoch", "loss", "test_accuracy", "seconds", "steps_per_second"}) {
      if (!e.contains(key)) fail(where, " has no '", key, "'");
    }
    const json& epoch = e["epoch"];
    int previous = history.epochs.empty() ? 0 : history.epochs.back().epoch;
    if (!epoch.is_number_integer() || epoch.get<int64_t>() <= previous || epoch.get<int64_t>() > max_epoch) {
      fail(where, ".epoch is ", epoch.is_number() ? epoch.dump() : "not a number", ", expected an epoch after ", previous,
           " and at most ", max_epoch);
    }
    history.epochs.push_back({static_cast<int>(epoch.get<int64_t>()), number(e["loss"], where + ".loss"),
                              number(e["test_accuracy"], where + ".test_accuracy"), number(e["seconds"], where + ".seconds"),
                              number(e["steps_per_second"], where + ".steps_per_second")});
  }
  for (const json& p : j["curve"]) {
    std::string where = StrCat("curve[", history.curve.size(), "]");
    if (!p.is_array() || p.size() != 2) fail(where, " is not a pair [epoch, loss]");
    double epoch = number(p[0], where + "[0]");
    if (!(epoch >= 0 && epoch <= max_epoch)) fail(where, "[0] is ", epoch, ", expected an epoch from 0 to ", max_epoch);
    history.curve.push_back({epoch, number(p[1], where + "[1]")});
  }
  return history;
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
