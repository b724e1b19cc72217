// Valid IR modules from fuzz bytes, for the structure-aware target ir_structured: the shapes
// byte mutation of text rarely reaches. Functions of 2-D float32 tensors (rows symbolic `n` or
// static) built from long chains, values shared many times (%a = add(%p, %p), over and over),
// residual reuse of old values, matmuls, reductions broadcast back, tuples of tuples nested
// deep, and calls between many functions (function i calls only j > i: deep call chains, no
// recursion).
#pragma once

#include <string>

#include "fuzz_util.h"

namespace rxt::fuzz {

struct ModuleLimits {
  int max_functions = 2000;
  int max_bindings = 4000;     // in the whole module
  int max_tuple_depth = 200;   // below the parser's 256 levels of nesting
  int max_shared_chain = 64;   // %a_i = add(%a_{i-1}, %a_{i-1}), i up to this
};

/// The text of a module that parses and is well formed (a generator bug otherwise); its first
/// function @f0 is the entry.
std::string GenerateModule(FuzzInput& in, const ModuleLimits& limits = {});

}  // namespace rxt::fuzz
