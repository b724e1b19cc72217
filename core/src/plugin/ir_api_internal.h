// Internal to the IR-builder table: the guard every C function of rxt_ir_api_t runs its body
// in (nothing thrown may reach plugin code) and the two halves of the table.
#pragma once

#include <exception>
#include <string>

#include "rxt/plugin/ir_builder_host.h"

namespace rxt::ir_api {

/// Thrown when an operand handle is NULL or foreign: the call returns NULL, and an error is
/// recorded only if none is yet (a NULL operand usually carries an earlier failure along).
struct NullOperand {
  std::string what;
};

/// Runs |body|(host) and returns its result; on any exception records the error in the host
/// and returns |on_error|. A NULL builder gives |on_error| too.
template <typename R, typename Body>
R Guard(rxt_ir_builder_t* b, R on_error, Body&& body) noexcept {
  IRBuilderHost* host = b != nullptr ? b->host : nullptr;
  if (host == nullptr) return on_error;
  try {
    return body(*host);
  } catch (const NullOperand& e) {
    if (!host->failed()) host->Fail(e.what + " is NULL or not a handle of this builder");
  } catch (const std::exception& e) {
    host->Fail(e.what());
  } catch (...) {
    host->Fail("unknown error");
  }
  return on_error;
}

/// The expression behind an operand handle; throws NullOperand naming it (|what|).
inline Expr Operand(IRBuilderHost& host, rxt_ir_expr_t handle, const std::string& what) {
  Expr e = host.Unwrap(handle);
  if (e == nullptr) throw NullOperand{what};
  return e;
}

inline const std::vector<Expr>& CallArgs(const CallNode& call) { return IRCallArgs(call); }

/// The reading functions (ir_api_read.cc) and the building ones (ir_api_build.cc).
void FillReadFunctions(rxt_ir_api_t& api);
void FillBuildFunctions(rxt_ir_api_t& api);

}  // namespace rxt::ir_api
