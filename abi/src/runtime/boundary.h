// Internal to the C ABI (librxt and librxt_runtime): the one way every function stops
// exceptions at the boundary:
//
//   rxt_status_t rxt_module_verify(const rxt_module_t* module) {
//     RXT_API_BEGIN();
//     rxt::VerifyWellFormed(rxt::abi_impl::Unwrap(module, "module"));
//     RXT_API_END();
//   }
#pragma once

#include <atomic>
#include <cstring>
#include <new>
#include <string>
#include <string_view>

#include "rxt/rxt.h"
#include "rxt/support/c_status.h"  // struct rxt_status_s
#include "rxt/support/error.h"

namespace rxt::abi_impl {

/// A heap status; never throws (falls back to a static out-of-memory status).
rxt_status_t MakeStatus(ErrorCode code, std::string_view message) noexcept;

/// Throws kInvalidArgument naming the function and the argument when |pointer| is NULL.
template <typename T>
void CheckArg(T* pointer, const char* function, const char* argument) {
  if (pointer == nullptr) Throw(ErrorCode::kInvalidArgument, function, ": argument '", argument, "' is NULL");
}

/// A malloc'ed copy, freed by rxt_string_free.
char* CopyString(std::string_view text);

}  // namespace rxt::abi_impl

#define RXT_API_BEGIN() try {
#define RXT_API_END()                                                                      \
  }                                                                                        \
  catch (const ::rxt::Error& e) {                                                          \
    return ::rxt::abi_impl::MakeStatus(e.code(), e.what());                                     \
  }                                                                                        \
  catch (const std::bad_alloc&) {                                                          \
    return ::rxt::abi_impl::MakeStatus(::rxt::ErrorCode::kInternal, "out of memory");           \
  }                                                                                        \
  catch (const std::exception& e) {                                                        \
    return ::rxt::abi_impl::MakeStatus(::rxt::ErrorCode::kInternal, e.what());                  \
  }                                                                                        \
  catch (...) {                                                                            \
    return ::rxt::abi_impl::MakeStatus(::rxt::ErrorCode::kUnknown, "unknown exception");        \
  }                                                                                        \
  return nullptr

/// NULL-argument check naming the calling function: RXT_CHECK_ARG(out_module).
#define RXT_CHECK_ARG(argument) ::rxt::abi_impl::CheckArg(argument, __func__, #argument)
