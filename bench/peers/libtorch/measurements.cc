#include "measurements.h"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <numeric>

namespace peer {

double Median(std::vector<double> values) { return Percentile(std::move(values), 50); }

double Percentile(std::vector<double> values, double percent) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(values.begin(), values.end());
  const double rank = percent / 100.0 * static_cast<double>(values.size() - 1);
  const size_t below = static_cast<size_t>(std::floor(rank));
  const size_t above = std::min(below + 1, values.size() - 1);
  return values[below] + (rank - static_cast<double>(below)) * (values[above] - values[below]);
}

double Mean(const std::vector<double>& values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

double PeakRssMb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux reports KiB
}

double CurrentRssMb() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmRSS:") {
      double kib = 0;
      status >> kib;
      return kib / 1024.0;
    }
    status.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return std::numeric_limits<double>::quiet_NaN();
}

std::ostringstream& JsonObject::Key(const std::string& key) {
  if (!empty_) body_ << ", ";
  empty_ = false;
  body_ << '"' << key << "\": ";
  return body_;
}

JsonObject& JsonObject::Add(const std::string& key, double value) {
  // JSON has no NaN or infinity.
  if (std::isfinite(value)) Key(key) << value;
  else Key(key) << "null";
  return *this;
}

JsonObject& JsonObject::Add(const std::string& key, const std::string& value) {
  Key(key) << '"' << value << '"';  // our values need no escaping (names, flags)
  return *this;
}

JsonObject& JsonObject::AddBool(const std::string& key, bool value) {
  Key(key) << (value ? "true" : "false");
  return *this;
}

JsonObject& JsonObject::Add(const std::string& key, const std::vector<double>& values) {
  std::ostringstream& out = Key(key);
  out << '[';
  for (size_t i = 0; i < values.size(); ++i) out << (i > 0 ? ", " : "") << values[i];
  out << ']';
  return *this;
}

}  // namespace peer
