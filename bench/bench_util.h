// What the benchmarks share: timing rounds that alternate rxt and its peer, medians, and
// reading example modules.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace rxt::bench {

/// Times |a| and |b| alternately: |rounds| rounds of |iters| calls each (after |warmup| calls of
/// each), so that both see the same machine state. Per-call times in microseconds.
struct PairTimes {
  std::vector<double> a_us, b_us;
};
PairTimes TimeAlternating(const std::function<void()>& a, const std::function<void()>& b, int warmup, int rounds,
                          int iters);

double Median(std::vector<double> v);
double Min(const std::vector<double>& v);

/// The text of examples/<name>.
std::string ReadExample(const std::string& name);

/// Peak resident set size of this process in MB (VmHWM).
double PeakRssMb();

}  // namespace rxt::bench
