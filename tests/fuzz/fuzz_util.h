// What every fuzz target shares: how a target reports a broken invariant (a finding, like a
// crash), and FuzzInput, a cursor that turns fuzz bytes into choices for targets that build
// their input rather than parse it. Targets define LLVMFuzzerTestOneInput; libFuzzer (the
// RXT_FUZZ build) or replay_main.cc (the normal build's corpus replay) calls it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace rxt::fuzz {

/// Reports a broken invariant and aborts, so that libFuzzer records the input as a crash.
[[noreturn]] inline void Fail(const char* file, int line, const std::string& what) {
  std::fprintf(stderr, "%s:%d: fuzz invariant broken: %s\n", file, line, what.c_str());
  std::fflush(stderr);
  std::abort();
}

/// Choices drawn from the fuzz bytes, front to back. When the bytes run out every draw gives
/// its smallest value, so any input is a complete (if small) description.
class FuzzInput {
 public:
  FuzzInput(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  bool empty() const { return pos_ >= size_; }
  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  bool Bool() { return (Byte() & 1) != 0; }
  /// A value in [lo, hi] (lo <= hi), from as many bytes as the range needs.
  uint64_t Range(uint64_t lo, uint64_t hi) {
    uint64_t span = hi - lo, value = 0;
    for (uint64_t covered = 0; covered < span && !empty(); covered = (covered << 8) | 0xFF) value = (value << 8) | Byte();
    return lo + (span == UINT64_MAX ? value : value % (span + 1));
  }
  int Int(int lo, int hi) { return static_cast<int>(Range(0, static_cast<uint64_t>(hi - lo))) + lo; }
  /// Up to |max_size| raw bytes (any values, NUL and invalid UTF-8 included).
  std::string String(size_t max_size) {
    size_t n = static_cast<size_t>(Range(0, max_size));
    std::string s;
    while (s.size() < n && !empty()) s.push_back(static_cast<char>(Byte()));
    return s;
  }
  std::vector<uint8_t> Rest() {
    std::vector<uint8_t> rest(data_ + pos_, data_ + size_);
    pos_ = size_;
    return rest;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace rxt::fuzz

/// FUZZ_CHECK(cond, message): |message| (a std::string expression) is built only on failure.
#define FUZZ_CHECK(cond, message)                                   \
  do {                                                              \
    if (!(cond)) ::rxt::fuzz::Fail(__FILE__, __LINE__, (message)); \
  } while (false)
