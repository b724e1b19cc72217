// The well-formedness checker: the rules every module must satisfy between passes.
//
// Relax functions: every variable is defined exactly once (parameters included) before it
// is used; a dataflow variable is defined only inside a dataflow block and used only inside
// it; dataflow blocks hold no impure call (an op marked FPurity{false}, or an impure module
// function); every value is normalized and fits its variable's struct info; the body fits
// the declared return struct info; calls name functions and kernels that exist (call_kernel:
// with as many kernel parameters as inputs plus outputs); a symbolic dim is used only after a
// parameter's struct info or a match_cast defined it.
// Kernel functions: buffers and scalar variables are declared (parameters, alloc, loops,
// block iterators) before use and only once; loads and stores use one index per buffer dim;
// stored values match the buffer's dtype; a block with an init step has a reduce iterator.
#pragma once

#include <string>
#include <vector>

#include "rxt/ir/module.h"
#include "rxt/support/error.h"

namespace rxt {

struct Diagnostic {
  Span span;             // where, when known
  std::string message;   // starts with the function: "@main: %x is used before it is defined"
  std::string function;  // the function or kernel's name ("" for the module itself)

  /// "file:line:col: <message>", or just the message when the span is unknown.
  std::string ToString() const;
};

/// Every problem found, in the order of the module's entries; empty if well formed.
std::vector<Diagnostic> CheckWellFormed(const IRModule& module);

/// Throws rxt::Error(kInvalidArgument) listing every diagnostic, one per line, if the
/// module is not well formed.
void VerifyWellFormed(const IRModule& module);

}  // namespace rxt
