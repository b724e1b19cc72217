#include "rxt/runtime/memory_limit.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "rxt/support/checked_math.h"
#include "rxt/support/error.h"
#include "rxt/support/file_io.h"
#include "rxt/support/message_text.h"

namespace rxt {
namespace {

constexpr int64_t kGiB = int64_t{1} << 30;
constexpr int64_t kMaxByteSize = int64_t{1} << 62;

std::atomic<int64_t> configured_limit{0};  // 0: the default

int64_t PhysicalMemoryBytes() {
  long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
  int64_t bytes = 0;
  if (pages <= 0 || page_size <= 0 || !CheckedMul<int64_t>(pages, page_size, &bytes)) return 0;
  return bytes;
}

}  // namespace

std::optional<int64_t> ParseByteSize(std::string_view text) {
  size_t pos = 0;
  int64_t value = 0;
  while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
    if (!CheckedMul<int64_t>(value, 10, &value) || !CheckedAdd<int64_t>(value, text[pos] - '0', &value)) {
      return std::nullopt;
    }
    ++pos;
  }
  if (pos == 0) return std::nullopt;
  std::string_view unit = text.substr(pos);
  int shift = 0;
  if (!unit.empty()) {
    switch (std::toupper(static_cast<unsigned char>(unit[0]))) {
      case 'K': shift = 10; break;
      case 'M': shift = 20; break;
      case 'G': shift = 30; break;
      case 'T': shift = 40; break;
      case 'B': shift = 0; break;
      default: return std::nullopt;
    }
    std::string rest;
    for (char c : unit.substr(1)) rest += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    bool bytes_unit = unit[0] == 'B' || unit[0] == 'b';
    if (bytes_unit ? !rest.empty() : !(rest.empty() || rest == "B" || rest == "IB")) return std::nullopt;
  }
  if (value == 0 || value > (kMaxByteSize >> shift)) return std::nullopt;
  return value << shift;
}

std::string ByteSizeText(int64_t bytes) {
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return StrCat(bytes, bytes == 1 ? " byte" : " bytes");
  double value = static_cast<double>(bytes);
  int unit = -1;
  while (value >= 1024 && unit < 5) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, value < 10 ? "%.1f %s" : "%.0f %s", value, kUnits[unit]);
  return text;
}

/// The default as first computed (the environment is read once per process).
static int64_t ComputeDefaultMemoryLimit() {
  if (const char* env = std::getenv("RXT_MAX_MEMORY"); env != nullptr && *env != '\0') {
    std::optional<int64_t> bytes = ParseByteSize(env);
    if (!bytes) {
      Throw(ErrorCode::kInvalidArgument, "RXT_MAX_MEMORY=", Quoted(env),
            " is not a size (bytes, or with a unit: 512M, 4G, 1T)");
    }
    return *bytes;
  }
  return std::max(kGiB, PhysicalMemoryBytes() / 2);
}

int64_t DefaultMemoryLimit() {
  static const int64_t limit = ComputeDefaultMemoryLimit();  // a throw leaves it to compute again
  return limit;
}

int64_t MemoryLimit() {
  int64_t limit = configured_limit.load(std::memory_order_relaxed);
  return limit > 0 ? limit : DefaultMemoryLimit();
}

void SetMemoryLimit(int64_t bytes) {
  if (bytes < 0) Throw(ErrorCode::kInvalidArgument, "memory limit: ", bytes, " bytes is negative");
  configured_limit.store(bytes, std::memory_order_relaxed);
}

void CheckMemoryLimit(int64_t bytes, const std::string& what) {
  int64_t limit = MemoryLimit();
  if (bytes <= limit) return;
  Throw(ErrorCode::kResourceExhausted, what, " needs ", ByteSizeText(bytes), " (", bytes,
        " bytes), more than the memory limit of ", ByteSizeText(limit),
        " (raise it with --max-memory or RXT_MAX_MEMORY)");
}

std::vector<uint8_t> ReadFileWithinMemoryLimit(const std::string& path, const std::string& what) {
  std::error_code ec;
  uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > static_cast<uintmax_t>(MemoryLimit())) {
    CheckMemoryLimit(static_cast<int64_t>(std::min<uintmax_t>(size, INT64_MAX)), StrCat(what, " ", Quoted(path), ": the file"));
  }
  return ReadWholeFile(path, what);
}

}  // namespace rxt
