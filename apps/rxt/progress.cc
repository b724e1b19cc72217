// The progress display (progress.h). Redraws are limited to ten a second: printing is not free
// next to a sub-millisecond training step.
#include "progress.h"

#include <unistd.h>

#include <cmath>

#include "rxt/support/error.h"

namespace rxt::cli {
namespace {

constexpr int kBarWidth = 24;
constexpr auto kRedrawInterval = std::chrono::milliseconds(100);

}  // namespace

bool IsTerminal(std::FILE* file) { return ::isatty(::fileno(file)) != 0; }

ProgressBar::ProgressBar(std::FILE* out, bool interactive, int64_t line_every)
    : out_(out), interactive_(interactive), line_every_(line_every > 0 ? line_every : 1) {}

std::string ProgressBar::FormatDuration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  int64_t s = static_cast<int64_t>(std::llround(seconds));
  char text[32];
  if (s >= 3600) {
    std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", static_cast<long long>(s / 3600),
                  static_cast<long long>(s / 60 % 60), static_cast<long long>(s % 60));
  } else {
    std::snprintf(text, sizeof text, "%lld:%02lld", static_cast<long long>(s / 60), static_cast<long long>(s % 60));
  }
  return text;
}

std::string ProgressBar::StatusText(int epoch, int epochs, int64_t step, int64_t total, double loss,
                                    double steps_per_second) {
  double eta = steps_per_second > 0 ? static_cast<double>(total - step) / steps_per_second : NAN;
  char text[160];
  std::snprintf(text, sizeof text, "epoch %d/%d step %lld/%lld loss %.4f %.1f steps/s ETA %s", epoch, epochs,
                static_cast<long long>(step), static_cast<long long>(total), loss, steps_per_second,
                FormatDuration(eta).c_str());
  return text;
}

void ProgressBar::Start(int epoch, int epochs, int64_t total_steps) {
  epoch_ = epoch;
  epochs_ = epochs;
  total_ = total_steps;
  start_ = std::chrono::steady_clock::now();
  last_draw_ = start_ - kRedrawInterval;
  drawn_width_ = 0;
}

void ProgressBar::Update(int64_t step, double loss) {
  auto now = std::chrono::steady_clock::now();
  bool last = step == total_;
  if (interactive_ ? (now - last_draw_ < kRedrawInterval && !last) : (step % line_every_ != 0 && !last)) return;
  last_draw_ = now;
  double seconds = std::chrono::duration<double>(now - start_).count();
  double rate = seconds > 0 ? static_cast<double>(step) / seconds : 0;
  std::string status = StatusText(epoch_, epochs_, step, total_, loss, rate);
  if (!interactive_) {
    std::fprintf(out_, "%s\n", status.c_str());
    std::fflush(out_);
    return;
  }
  int filled = total_ > 0 ? static_cast<int>(kBarWidth * step / total_) : kBarWidth;
  std::string line = "[" + std::string(filled, '#') + std::string(kBarWidth - filled, '.') + "] " + status;
  size_t width = line.size();
  if (width < drawn_width_) line += std::string(drawn_width_ - width, ' ');  // erase the longer line before
  drawn_width_ = width;
  std::fprintf(out_, "\r%s", line.c_str());
  std::fflush(out_);
}

void ProgressBar::Finish() {
  if (interactive_ && drawn_width_ > 0) {
    std::fprintf(out_, "\r%s\r", std::string(drawn_width_, ' ').c_str());
    std::fflush(out_);
  }
  drawn_width_ = 0;
}

}  // namespace rxt::cli
