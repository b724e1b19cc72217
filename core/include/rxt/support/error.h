// Errors and source locations shared by every layer of the core.
#pragma once

#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace rxt {

/// Canonical error codes (the same list the C ABI exposes as rxt_code_t).
enum class ErrorCode : int {
  kOk = 0,
  kCancelled = 1,
  kUnknown = 2,
  kInvalidArgument = 3,
  kNotFound = 5,
  kAlreadyExists = 6,
  kResourceExhausted = 8,
  kFailedPrecondition = 9,
  kOutOfRange = 11,
  kUnimplemented = 12,
  kInternal = 13,
  kDataLoss = 15,
};

const char* ErrorCodeName(ErrorCode code);

/// A position in a source text; line and column are 1-based, 0 means unknown.
struct Span {
  std::shared_ptr<const std::string> file;
  int line = 0;
  int column = 0;

  bool known() const { return line > 0; }
  /// "file:line:col" (or "<input>:line:col" when the file has no name).
  std::string ToString() const;
};

/// The one exception type of rxt. It never crosses the C ABI.
class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

/// Concatenates anything streamable into a string: StrCat("axis ", 3, " is out of range").
template <typename... Args>
std::string StrCat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

template <typename... Args>
[[noreturn]] void Throw(ErrorCode code, const Args&... args) {
  throw Error(code, StrCat(args...));
}

/// Internal invariant check: a failure is a bug in rxt, not in the user's input.
#define RXT_CHECK(cond, ...)                                                                \
  do {                                                                                      \
    if (!(cond)) {                                                                          \
      ::rxt::Throw(::rxt::ErrorCode::kInternal, __FILE__, ":", __LINE__, ": check failed: ", \
                   #cond, " " __VA_OPT__(, ) __VA_ARGS__);                                  \
    }                                                                                       \
  } while (0)

}  // namespace rxt
