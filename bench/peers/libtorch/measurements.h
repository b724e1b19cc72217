// What the peer reports: order statistics of timings, the process's memory, and the RESULT
// line's JSON (the field names bench/train.sh and docs/benchmarks.md read).
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace peer {

double Median(std::vector<double> values);
/// The |percent|-th percentile, interpolated linearly between the nearest ranks (numpy's way).
double Percentile(std::vector<double> values, double percent);
double Mean(const std::vector<double>& values);

/// The process's peak resident set so far (getrusage), in MiB.
double PeakRssMb();
/// The process's resident set now (/proc/self/status), in MiB; NaN if unknown.
double CurrentRssMb();

/// A flat JSON object built field by field: {"a": 1, "b": [2, 3], "c": "x"}.
class JsonObject {
 public:
  JsonObject& Add(const std::string& key, double value);
  JsonObject& Add(const std::string& key, const std::string& value);
  JsonObject& Add(const std::string& key, const char* value) { return Add(key, std::string(value)); }
  JsonObject& AddBool(const std::string& key, bool value);
  JsonObject& Add(const std::string& key, const std::vector<double>& values);
  std::string str() const { return "{" + body_.str() + "}"; }

 private:
  std::ostringstream& Key(const std::string& key);
  std::ostringstream body_;
  bool empty_ = true;
};

}  // namespace peer
