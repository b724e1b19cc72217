#include "rxt/support/error.h"

namespace rxt {

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk: return "ok";
    case ErrorCode::kCancelled: return "cancelled";
    case ErrorCode::kUnknown: return "unknown";
    case ErrorCode::kInvalidArgument: return "invalid argument";
    case ErrorCode::kNotFound: return "not found";
    case ErrorCode::kAlreadyExists: return "already exists";
    case ErrorCode::kResourceExhausted: return "resource exhausted";
    case ErrorCode::kFailedPrecondition: return "failed precondition";
    case ErrorCode::kOutOfRange: return "out of range";
    case ErrorCode::kUnimplemented: return "unimplemented";
    case ErrorCode::kInternal: return "internal";
    case ErrorCode::kDataLoss: return "data loss";
  }
  return "unknown";
}

std::string Span::ToString() const {
  std::string name = file && !file->empty() ? *file : std::string("<input>");
  if (!known()) return name;
  return StrCat(name, ":", line, ":", column);
}

}  // namespace rxt
