// Kernel libraries as LegalizeLibraryCalls sees them: named sets of patterns, each an anchor op,
// the ops it may absorb around it, and a rewrite that builds the library call. They come from
// plugins (rxt_library_t, abi/include/rxt/plugin.h; the plugin host implements LibraryProvider),
// so the compiler names no library:
//
//   std::vector<KernelLibrary> libraries = DefaultLibraryProvider().Libraries();
//   IRModule out = LegalizeLibraryCalls(&provider)(module, context);   // context names the libraries
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "rxt/ir/builder.h"
#include "rxt/ir/expr.h"

namespace rxt {

/// One op call of a match: the call, the variable it is bound to, and per argument the call
/// that binds it when the pattern may absorb that one (null otherwise).
struct LibraryCall {
  Expr call;
  Var result;
  std::vector<Expr> producers;
};

/// What a pattern matched at one anchor: the anchor and its epilogue (calls, each the sole
/// reader of the one before), and the calls of its sibling ops that read an argument of the anchor.
struct LibraryMatch {
  std::vector<LibraryCall> calls;
  std::vector<LibraryCall> siblings;
};

/// A pattern's decision: |value|, a variable the rewrite bound in the builder's current block,
/// replaces the result of calls[num_calls - 1] (with a sibling: a tuple of that result and the
/// sibling's). num_calls 0: declined.
struct LibraryRewrite {
  size_t num_calls = 0;
  int sibling = -1;
  Var value;
};

struct LibraryPattern {
  std::string name;  // "dnnl.matmul"
  std::string anchor;
  std::vector<std::string> epilogue, input_ops, sibling_ops;
  /// Builds the replacement into the builder's current block (a scratch block) or declines.
  /// Throws rxt::Error naming the library and the pattern when it fails.
  std::function<LibraryRewrite(const LibraryMatch& match, BlockBuilder& builder)> rewrite;
};

struct KernelLibrary {
  std::string name;    // "dnnl"
  std::string origin;  // "library 'dnnl' (plugin lib_dnnl)", for messages
  std::vector<LibraryPattern> patterns;  // in the order they are tried
};

/// Where LegalizeLibraryCalls finds kernel libraries.
class LibraryProvider {
 public:
  virtual ~LibraryProvider() = default;
  /// Every library it provides, sorted by name.
  virtual std::vector<KernelLibrary> Libraries() const = 0;
};

/// The provider used when the pass is given none: the process-wide plugin host. Declared here,
/// defined by the plugin layer (core/src/plugin/plugin_host.cc).
const LibraryProvider& DefaultLibraryProvider();

/// The libraries of |provider| with a pattern anchored at |op|, for `rxt ops`.
std::vector<std::string> LibrariesTaking(const std::string& op,
                                         const LibraryProvider& provider = DefaultLibraryProvider());

}  // namespace rxt
