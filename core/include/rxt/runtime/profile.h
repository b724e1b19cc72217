// Profiling of VM runs: time and call count per kernel and per instruction kind.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rxt {

struct ProfileRow {
  std::string name;  // "kernel linear0", "extern env.relu", "instr call_kernel"
  int64_t calls = 0;
  int64_t total_ns = 0;
};

struct Profile {
  std::vector<ProfileRow> kernels;       // kernels and extern functions, by total time
  std::vector<ProfileRow> instructions;  // instruction kinds, by total time
  /// A printable table: name, calls, total ms, mean us, percent of the total.
  std::string Format() const;
};

}  // namespace rxt
