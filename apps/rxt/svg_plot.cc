// PlotSvg (training_metrics.h): two charts drawn by hand in SVG (no plotting library): the
// training loss over the epochs and the test accuracy after each epoch.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "training_metrics.h"

namespace rxt::cli {
namespace {

struct Point {
  double x, y;
};

struct Axis {
  double lo = 0, hi = 1, step = 1;
};

/// About |count| round ticks (1, 2 or 5 times a power of ten) covering [lo, hi].
Axis NiceAxis(double lo, double hi, int count) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) lo = 0, hi = 1;
  if (hi - lo < 1e-12) hi = lo + (lo == 0 ? 1 : std::abs(lo) * 0.1);
  double raw = (hi - lo) / count;
  double power = std::pow(10.0, std::floor(std::log10(raw)));
  double step = power;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * power;
    if (step >= raw) break;
  }
  return {std::floor(lo / step) * step, std::ceil(hi / step) * step, step};
}

std::string Number(double v) {
  char text[32];
  double a = std::abs(v);
  std::snprintf(text, sizeof text, a != 0 && (a < 0.01 || a >= 1e5) ? "%.2g" : "%.4g", v);
  return text;
}

std::string Escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

/// One chart in the box (left, top, width, height) with its axes, grid and labels.
class Chart {
 public:
  Chart(std::string& svg, double left, double top, double width, double height, Axis x, Axis y)
      : svg_(svg), left_(left), top_(top), width_(width), height_(height), x_(x), y_(y) {}

  double X(double v) const { return left_ + (v - x_.lo) / (x_.hi - x_.lo) * width_; }
  double Y(double v) const { return top_ + height_ - (v - y_.lo) / (y_.hi - y_.lo) * height_; }

  void Frame(const std::string& title, const std::string& x_label, const std::string& y_label) {
    char buf[512];
    for (double v = y_.lo; v <= y_.hi + y_.step / 2; v += y_.step) {
      std::snprintf(buf, sizeof buf,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>"
                    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\">%s</text>\n",
                    left_, Y(v), left_ + width_, Y(v), left_ - 6, Y(v) + 4, Number(v).c_str());
      svg_ += buf;
    }
    for (double v = x_.lo; v <= x_.hi + x_.step / 2; v += x_.step) {
      std::snprintf(buf, sizeof buf,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>"
                    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"11\">%s</text>\n",
                    X(v), top_, X(v), top_ + height_, X(v), top_ + height_ + 16, Number(v).c_str());
      svg_ += buf;
    }
    std::snprintf(buf, sizeof buf,
                  "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#444\"/>\n"
                  "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"14\" font-weight=\"bold\">%s</text>\n"
                  "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"12\">%s</text>\n"
                  "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"12\" "
                  "transform=\"rotate(-90 %.1f %.1f)\">%s</text>\n",
                  left_, top_, width_, height_, left_ + width_ / 2, top_ - 10, Escape(title).c_str(),
                  left_ + width_ / 2, top_ + height_ + 34, Escape(x_label).c_str(), left_ - 46, top_ + height_ / 2,
                  left_ - 46, top_ + height_ / 2, Escape(y_label).c_str());
    svg_ += buf;
  }

  void Line(const std::vector<Point>& points, const char* color, double stroke_width) {
    if (points.empty()) return;
    svg_ += "<polyline fill=\"none\" stroke=\"" + std::string(color) + "\" stroke-width=\"" + Number(stroke_width) +
            "\" points=\"";
    char buf[64];
    for (const Point& p : points) {
      std::snprintf(buf, sizeof buf, "%.1f,%.1f ", X(p.x), Y(p.y));
      svg_ += buf;
    }
    svg_ += "\"/>\n";
  }

  void Dots(const std::vector<Point>& points, const char* color) {
    char buf[160];
    for (const Point& p : points) {
      std::snprintf(buf, sizeof buf, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>\n", X(p.x), Y(p.y), color);
      svg_ += buf;
    }
  }

 private:
  std::string& svg_;
  double left_, top_, width_, height_;
  Axis x_, y_;
};

}  // namespace

std::string PlotSvg(const TrainingHistory& history, const std::string& title) {
  constexpr double kWidth = 900, kHeight = 380, kChartWidth = 340, kChartHeight = 250, kTop = 70;
  std::string svg;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n"
                "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
                kWidth, kHeight, kWidth, kHeight);
  svg += buf;
  std::snprintf(buf, sizeof buf, "<text x=\"%.0f\" y=\"28\" text-anchor=\"middle\" font-size=\"16\">", kWidth / 2);
  svg += buf + Escape(title) + "</text>\n";

  std::vector<Point> curve, epoch_loss, accuracy;
  for (const LossPoint& p : history.curve) {
    if (std::isfinite(p.loss)) curve.push_back({p.epoch, p.loss});
  }
  for (const EpochMetrics& e : history.epochs) {
    if (std::isfinite(e.loss)) epoch_loss.push_back({static_cast<double>(e.epoch), e.loss});
    accuracy.push_back({static_cast<double>(e.epoch), 100.0 * e.test_accuracy});
  }
  double last_epoch = history.epochs.empty() ? 1 : history.epochs.back().epoch;
  for (const Point& p : curve) last_epoch = std::max(last_epoch, p.x);
  // Clamped before the conversion: a history read from a checkpoint may hold any epoch number.
  Axis x = NiceAxis(0, std::max(1.0, last_epoch), static_cast<int>(std::clamp(last_epoch, 2.0, 10.0)));

  double loss_hi = 0;
  for (const Point& p : curve) loss_hi = std::max(loss_hi, p.y);
  for (const Point& p : epoch_loss) loss_hi = std::max(loss_hi, p.y);
  Chart loss(svg, 90, kTop, kChartWidth, kChartHeight, x, NiceAxis(0, loss_hi, 5));
  loss.Frame("Training loss", "epoch", "loss");
  loss.Line(curve, "#1f77b4", 1.2);
  loss.Dots(epoch_loss, "#d62728");

  double acc_lo = 100, acc_hi = 0;
  for (const Point& p : accuracy) acc_lo = std::min(acc_lo, p.y), acc_hi = std::max(acc_hi, p.y);
  if (accuracy.empty()) acc_lo = 0, acc_hi = 100;
  Axis acc_axis = NiceAxis(std::max(0.0, acc_lo - 2), std::min(100.0, acc_hi + 2), 5);
  acc_axis.lo = std::max(0.0, acc_axis.lo);
  acc_axis.hi = std::min(100.0, acc_axis.hi);
  Chart acc(svg, 90 + kChartWidth + 110, kTop, kChartWidth, kChartHeight, x, acc_axis);
  acc.Frame("Test accuracy", "epoch", "accuracy (%)");
  acc.Line(accuracy, "#2ca02c", 2);
  acc.Dots(accuracy, "#2ca02c");

  std::snprintf(buf, sizeof buf,
                "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\" fill=\"#1f77b4\">line: running mean of the steps</text>"
                "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\" fill=\"#d62728\">dots: mean of each epoch</text>\n",
                90.0, kTop + kChartHeight + 52, 300.0, kTop + kChartHeight + 52);
  svg += buf;
  svg += "</svg>\n";
  return svg;
}

}  // namespace rxt::cli
