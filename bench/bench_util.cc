#include "bench_util.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace rxt::bench {

PairTimes TimeAlternating(const std::function<void()>& a, const std::function<void()>& b, int warmup, int rounds,
                          int iters) {
  using Clock = std::chrono::steady_clock;
  for (int i = 0; i < warmup; ++i) a();
  for (int i = 0; i < warmup; ++i) b();
  PairTimes times;
  auto run = [&](const std::function<void()>& f, std::vector<double>& out) {
    for (int i = 0; i < iters; ++i) {
      auto t0 = Clock::now();
      f();
      out.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    }
  };
  for (int r = 0; r < rounds; ++r) {
    run(a, times.a_us);
    run(b, times.b_us);
  }
  return times;
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

double Min(const std::vector<double>& v) { return v.empty() ? 0 : *std::min_element(v.begin(), v.end()); }

std::string ReadExample(const std::string& name) {
  std::ifstream in(std::string(RXT_SOURCE_DIR) + "/examples/" + name);
  if (!in) throw std::runtime_error("cannot read examples/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

double PeakRssMb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  }
  return 0;
}

}  // namespace rxt::bench
