#include "rxt/runtime/profile.h"

#include <cstdio>

namespace rxt {
namespace {

void AppendSection(std::string& out, const char* title, const std::vector<ProfileRow>& rows) {
  int64_t total = 0;
  for (const ProfileRow& r : rows) total += r.total_ns;
  char line[256];
  std::snprintf(line, sizeof line, "%-40s %10s %12s %12s %7s\n", title, "calls", "total ms", "mean us", "%");
  out += line;
  for (const ProfileRow& r : rows) {
    double ms = r.total_ns / 1e6;
    double mean_us = r.calls > 0 ? r.total_ns / 1e3 / r.calls : 0.0;
    double percent = total > 0 ? 100.0 * r.total_ns / total : 0.0;
    std::snprintf(line, sizeof line, "%-40s %10lld %12.3f %12.3f %7.1f\n", r.name.c_str(),
                  static_cast<long long>(r.calls), ms, mean_us, percent);
    out += line;
  }
}

}  // namespace

std::string Profile::Format() const {
  std::string out;
  AppendSection(out, "kernel", kernels);
  out += "\n";
  AppendSection(out, "instruction", instructions);
  return out;
}

}  // namespace rxt
