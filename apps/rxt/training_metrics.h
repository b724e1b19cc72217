// What `rxt train` measures, per epoch, and the files it writes from it: the metrics JSON
// (--metrics) and the loss/accuracy plot (--plot, SVG).
//
//   {"epochs": [{"epoch": 1, "loss": 0.52, "test_accuracy": 0.8431, "seconds": 2.4,
//                "steps_per_second": 390.1}, ...]}
// loss: the mean training loss of the epoch's steps; test_accuracy: the fraction of the test
// set classified right after the epoch; seconds: the epoch's training time (the steps, without
// the evaluation).
#pragma once

#include <string>
#include <vector>

namespace rxt::cli {

struct EpochMetrics {
  int epoch = 0;
  double loss = 0;
  double test_accuracy = 0;
  double seconds = 0;
  double steps_per_second = 0;
};

/// The training loss over the run, for the plot: (epochs done, e.g. 1.25, mean loss of the
/// steps since the previous point).
struct LossPoint {
  double epoch = 0;
  double loss = 0;
};

struct TrainingHistory {
  std::vector<EpochMetrics> epochs;
  std::vector<LossPoint> curve;
};

/// The metrics file's JSON (the format above).
std::string MetricsJson(const std::vector<EpochMetrics>& epochs);
/// The history as JSON (for a checkpoint's metadata) and back; kDataLoss naming |source| and
/// the field for text that is not one (epochs increasing from 1 to |max_epoch|, numbers finite
/// or null).
std::string HistoryJson(const TrainingHistory& history);
TrainingHistory ParseHistoryJson(const std::string& text, const std::string& source, int max_epoch);

/// An SVG image: the training loss (the curve, and each epoch's mean) and the test accuracy
/// per epoch, side by side. |title| goes above.
std::string PlotSvg(const TrainingHistory& history, const std::string& title);

/// Write atomically (a temporary file, then rename).
void WriteMetricsFile(const std::string& path, const std::vector<EpochMetrics>& epochs);
/// kInvalidArgument unless |path| ends with ".svg".
void WritePlotFile(const std::string& path, const TrainingHistory& history, const std::string& title);

}  // namespace rxt::cli
