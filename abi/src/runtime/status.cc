// Versions, statuses and strings: the ABI's basic vocabulary.
#include <cstdlib>

#include "boundary.h"

namespace rxt::abi_impl {

rxt_status_t MakeStatus(ErrorCode code, std::string_view message) noexcept {
  // A failure is never NULL, even one that carries no proper code.
  return MakeCStatus(code == ErrorCode::kOk ? ErrorCode::kUnknown : code, message);
}

char* CopyString(std::string_view text) {
  char* copy = static_cast<char*>(std::malloc(text.size() + 1));
  if (copy == nullptr) throw std::bad_alloc();
  std::memcpy(copy, text.data(), text.size());
  copy[text.size()] = '\0';
  return copy;
}

}  // namespace rxt::abi_impl

extern "C" {

const char* rxt_version(void) {
#define RXT_STRINGIFY2(x) #x
#define RXT_STRINGIFY(x) RXT_STRINGIFY2(x)
  return RXT_STRINGIFY(RXT_VERSION_MAJOR) "." RXT_STRINGIFY(RXT_VERSION_MINOR) "." RXT_STRINGIFY(RXT_VERSION_PATCH);
}

uint32_t rxt_abi_version(void) { return RXT_ABI_VERSION; }

rxt_code_t rxt_status_code(rxt_status_t status) { return status == nullptr ? RXT_OK : status->code; }

const char* rxt_status_message(rxt_status_t status) { return status == nullptr ? "" : status->message.c_str(); }

void rxt_status_free(rxt_status_t status) { rxt::FreeCStatus(status); }

rxt_status_t rxt_status_create(rxt_code_t code, const char* message) {
  return rxt::MakeCStatus(rxt::ErrorCodeFromC(code), message != nullptr ? message : "");
}

const char* rxt_code_name(rxt_code_t code) {
  switch (code) {
    case RXT_OK: return "ok";
    case RXT_CANCELLED: return "cancelled";
    case RXT_UNKNOWN: return "unknown";
    case RXT_INVALID_ARGUMENT: return "invalid argument";
    case RXT_NOT_FOUND: return "not found";
    case RXT_ALREADY_EXISTS: return "already exists";
    case RXT_RESOURCE_EXHAUSTED: return "resource exhausted";
    case RXT_FAILED_PRECONDITION: return "failed precondition";
    case RXT_OUT_OF_RANGE: return "out of range";
    case RXT_UNIMPLEMENTED: return "unimplemented";
    case RXT_INTERNAL: return "internal";
    case RXT_DATA_LOSS: return "data loss";
  }
  return "unknown code";
}

void rxt_string_free(char* text) { std::free(text); }

}  // extern "C"
