// Learning-rate schedules. The learning rate is a runtime value of the compiled step (the
// optimizer state "lr"), so a schedule only changes that tensor before each update: nothing
// is recompiled.
//
//   LrSchedule s = ParseLrSchedule("cosine:total_steps=4685,warmup=100");
//   double lr = s.LearningRate(/*base_lr=*/0.001, /*step=*/250);
//
// Text form: NAME[:KEY=VALUE,...]
//   constant                              base_lr throughout
//   step[:step_size=N,gamma=G]            base_lr * G^floor(t / N)            (gamma 0.1)
//   cosine[:total_steps=N,min_lr=M]       M + (base_lr - M) (1 + cos(pi t / T)) / 2
//   warmup:steps=N                        constant after a linear warmup of N steps
// and every schedule takes warmup=N: the first N updates ramp linearly up to base_lr
// (update k gets base_lr (k + 1) / N), then the schedule runs with t = step - N (cosine: over
// T = total_steps - N). Steps count updates from 0. step_size and total_steps may be left out
// for a caller that fills them in (rxt train: one epoch, the whole run); Validate() says what
// is missing.
#pragma once

#include <cstdint>
#include <string>

namespace rxt {

struct LrSchedule {
  enum class Kind : uint8_t { kConstant, kStep, kCosine };
  Kind kind = Kind::kConstant;
  int64_t warmup_steps = 0;
  int64_t step_size = 0;  // kStep; 0: not set
  double gamma = 0.1;     // kStep
  int64_t total_steps = 0;  // kCosine, counting the warmup; 0: not set
  double min_lr = 0;        // kCosine

  /// The learning rate of update |step| (0 for the first).
  double LearningRate(double base_lr, int64_t step) const;
  /// Throws kInvalidArgument naming the problem (step_size not set, total_steps <= warmup...).
  void Validate() const;
  /// The text form, parsed back by ParseLrSchedule.
  std::string ToString() const;
};

/// Parses the text form above. Throws kInvalidArgument naming the bad part and the accepted
/// schedules or keys.
LrSchedule ParseLrSchedule(const std::string& text);

}  // namespace rxt
