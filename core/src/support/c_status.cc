#include "rxt/support/c_status.h"

#include <cstring>

namespace rxt {
namespace {

// Statuses must be creatable when memory is exhausted: this one is never freed.
rxt_status_s out_of_memory_status{RXT_INTERNAL, "out of memory"};

#define RXT_SAME_CODE(c_code, cpp_code) \
  static_assert(static_cast<int>(c_code) == static_cast<int>(ErrorCode::cpp_code), #c_code)
RXT_SAME_CODE(RXT_OK, kOk);
RXT_SAME_CODE(RXT_CANCELLED, kCancelled);
RXT_SAME_CODE(RXT_UNKNOWN, kUnknown);
RXT_SAME_CODE(RXT_INVALID_ARGUMENT, kInvalidArgument);
RXT_SAME_CODE(RXT_NOT_FOUND, kNotFound);
RXT_SAME_CODE(RXT_ALREADY_EXISTS, kAlreadyExists);
RXT_SAME_CODE(RXT_RESOURCE_EXHAUSTED, kResourceExhausted);
RXT_SAME_CODE(RXT_FAILED_PRECONDITION, kFailedPrecondition);
RXT_SAME_CODE(RXT_OUT_OF_RANGE, kOutOfRange);
RXT_SAME_CODE(RXT_UNIMPLEMENTED, kUnimplemented);
RXT_SAME_CODE(RXT_INTERNAL, kInternal);
RXT_SAME_CODE(RXT_DATA_LOSS, kDataLoss);
#undef RXT_SAME_CODE

}  // namespace

rxt_status_t MakeCStatus(ErrorCode code, std::string_view message) noexcept {
  if (code == ErrorCode::kOk) return nullptr;
  try {
    return new rxt_status_s{static_cast<rxt_code_t>(code), std::string(message)};
  } catch (...) {
    return &out_of_memory_status;
  }
}

void FreeCStatus(rxt_status_t status) noexcept {
  if (status != &out_of_memory_status) delete status;
}

ErrorCode ErrorCodeFromNumber(int number) noexcept {
  switch (number) {
    case RXT_OK: case RXT_CANCELLED: case RXT_UNKNOWN: case RXT_INVALID_ARGUMENT: case RXT_NOT_FOUND:
    case RXT_ALREADY_EXISTS: case RXT_RESOURCE_EXHAUSTED: case RXT_FAILED_PRECONDITION: case RXT_OUT_OF_RANGE:
    case RXT_UNIMPLEMENTED: case RXT_INTERNAL: case RXT_DATA_LOSS:
      return static_cast<ErrorCode>(number);
    default:
      return ErrorCode::kUnknown;
  }
}

ErrorCode ErrorCodeFromC(const rxt_code_t& code) noexcept {
  int number = 0;
  static_assert(sizeof number == sizeof code);
  std::memcpy(&number, &code, sizeof number);
  return ErrorCodeFromNumber(number);
}

void ThrowIfFailed(rxt_status_t status, std::string_view context) {
  if (status == nullptr) return;
  CStatusPtr owned(status);
  ErrorCode code = ErrorCodeFromC(owned->code);
  if (code == ErrorCode::kOk) code = ErrorCode::kUnknown;
  const std::string& message = owned->message;
  Throw(code, context, context.empty() ? "" : ": ", message.empty() ? "failed without a message" : message);
}

rxt_status_t HostStatusCreate(rxt_code_t code, const char* message) noexcept {
  // A plugin in C may pass any number: its bytes are read as an int, never loaded as the enum
  // (in C++ a value outside the enum's range is undefined behaviour).
  int number = 0;
  std::memcpy(&number, &code, sizeof number);
  return MakeCStatus(ErrorCodeFromNumber(number), message != nullptr ? message : "");
}
rxt_code_t HostStatusCode(rxt_status_t status) noexcept { return status == nullptr ? RXT_OK : status->code; }
const char* HostStatusMessage(rxt_status_t status) noexcept { return status == nullptr ? "" : status->message.c_str(); }
void HostStatusFree(rxt_status_t status) noexcept { FreeCStatus(status); }

}  // namespace rxt
