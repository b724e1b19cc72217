// The progress display of `rxt train`: on a terminal, one line redrawn in place (a bar, the
// step, the running loss, steps per second and the time left); otherwise a plain line now and
// then, so that logs stay readable.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace rxt::cli {

class ProgressBar {
 public:
  /// |interactive|: redraw in place (a terminal); else print a line every |line_every| steps.
  ProgressBar(std::FILE* out, bool interactive, int64_t line_every = 200);

  /// A new epoch of |total_steps| steps.
  void Start(int epoch, int epochs, int64_t total_steps);
  /// Step |step| (1-based) is done; |loss| is the running mean loss of the epoch.
  void Update(int64_t step, double loss);
  /// Clears the line (terminal) so that the epoch's summary takes its place.
  void Finish();

  /// "0:42", "1:02:03".
  static std::string FormatDuration(double seconds);
  /// The line for step |step| of |total| (what Update prints), without the bar.
  static std::string StatusText(int epoch, int epochs, int64_t step, int64_t total, double loss,
                                double steps_per_second);

 private:
  std::FILE* out_;
  bool interactive_;
  int64_t line_every_;
  int epoch_ = 0, epochs_ = 0;
  int64_t total_ = 0;
  std::chrono::steady_clock::time_point start_, last_draw_;
  size_t drawn_width_ = 0;
};

/// True if |file| is a terminal.
bool IsTerminal(std::FILE* file);

}  // namespace rxt::cli
