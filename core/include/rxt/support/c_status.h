// The C ABI's status object (rxt_status_t of rxt/rxt.h) on the C++ side. It is defined here,
// once, because two boundaries hand statuses across: the C ABI (abi/src) and the plugin host,
// whose table lets plugins create statuses and whose plugins return them. A status made on one
// side is freed on the other, so both must agree on what it is.
//
//   rxt_status_t status = backend.call_kernel(...);   // a plugin's status: now ours
//   ThrowIfFailed(status, "backend 'cpu': kernel 'k0'");   // frees it, throws code + message
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "rxt/rxt.h"
#include "rxt/support/error.h"

/// What a non-NULL rxt_status_t points to (NULL means OK).
struct rxt_status_s {
  rxt_code_t code;
  std::string message;
};

namespace rxt {

/// A new status, NULL for kOk. Never throws: without memory it returns a static "out of memory"
/// status, which FreeCStatus knows not to free.
rxt_status_t MakeCStatus(ErrorCode code, std::string_view message) noexcept;
/// Frees |status|; NULL is a no-op.
void FreeCStatus(rxt_status_t status) noexcept;

/// The ErrorCode of a C code given as a number (any int: one outside the list is kUnknown).
ErrorCode ErrorCodeFromNumber(int number) noexcept;
/// A code received from C (a plugin may pass any int): codes outside the canonical list read
/// as kUnknown. Reads the bytes as an int: in C++ an enum value outside its range is undefined,
/// so |code| is taken by reference (a copy would load it as the enum).
ErrorCode ErrorCodeFromC(const rxt_code_t& code) noexcept;

/// The status functions of the plugin host API (rxt_host_api_t.status_create, _code, _message,
/// _free), which both hosts (the compiler's and the runtime's) hand to plugins.
rxt_status_t HostStatusCreate(rxt_code_t code, const char* message) noexcept;
rxt_code_t HostStatusCode(rxt_status_t status) noexcept;
const char* HostStatusMessage(rxt_status_t status) noexcept;
void HostStatusFree(rxt_status_t status) noexcept;

/// Owns a status and frees it.
struct CStatusDeleter {
  void operator()(rxt_status_t status) const noexcept { FreeCStatus(status); }
};
using CStatusPtr = std::unique_ptr<rxt_status_s, CStatusDeleter>;

/// Takes |status| (frees it). NULL returns; otherwise throws an rxt::Error of its code (kUnknown
/// for RXT_OK, which no failure may carry) and "<context>: <message>" ("<context>: failed
/// without a message" when its message is empty).
void ThrowIfFailed(rxt_status_t status, std::string_view context);

}  // namespace rxt
