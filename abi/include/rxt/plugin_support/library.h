// library.h (plugin SDK): kernel-library patterns (rxt_library_pattern_t, rxt/plugin.h). A
// pattern's body sees one match through Pattern — the anchor call and the epilogue calls after
// it, the producers of their arguments it may absorb, the sibling calls — reads them with
// Builder's readers, and either returns without deciding (it declines) or builds the replacement
// and calls Replace:
//
//   void MatmulRelu(Pattern& p) {                          // matmul, then nn.relu
//     if (p.num_calls() < 2 || p.OpName(p.call(1)) != "nn.relu") return;      // declines
//     Expr a = p.Arg(p.call(0), 0), b = p.Arg(p.call(0), 1);
//     p.Replace(2, p.CallExtern("mylib.matmul_relu", {a, b}, {p.result(1)}));
//   }
//   const char* const kRelu[] = {"nn.relu", nullptr};
//   const rxt_library_pattern_t kMatmulRelu =
//       RXT_LIBRARY_PATTERN("mylib.matmul_relu", "matmul", kRelu, nullptr, nullptr, MatmulRelu);
//
// Fail (builder.h) stops the pattern with an error: the build fails, naming the library and the
// pattern. No C++ exception crosses into the host.
#pragma once

#include <rxt/ir_builder.h>
#include <rxt/plugin.h>

#include "rxt/plugin_support/builder.h"

namespace rxt::plugin_support {

class Pattern : public Builder {
 public:
  Pattern(const rxt_ir_api_t* ir, rxt_ir_builder_t* b, const rxt_library_match_t* match, rxt_library_rewrite_t* out)
      : Builder(ir, b), match_(match), out_(out) {}

  // ---- The match
  /// The anchor (call(0)) and the epilogue calls after it, each the only reader of the one before.
  int num_calls() const { return match_->num_calls; }
  Expr call(int i) const { return match_->calls[i].call; }
  /// The variable call(i) is bound to.
  Expr result(int i) const { return match_->calls[i].result; }
  /// The call binding argument |arg| of call(i) when the pattern may absorb it (one of its
  /// input_ops, read only by call(i)); NULL otherwise.
  Expr producer(int i, int arg) const { return match_->calls[i].producers[arg]; }
  /// Calls of the pattern's sibling_ops in the block that read an argument of the anchor.
  int num_siblings() const { return match_->num_siblings; }
  Expr sibling(int i) const { return match_->siblings[i].call; }
  Expr sibling_result(int i) const { return match_->siblings[i].result; }

  // ---- The decision
  /// |value| (built by this pattern, e.g. with CallExtern) replaces calls 0 to |num_calls| - 1:
  /// it takes the place of result(num_calls - 1).
  void Replace(int num_calls, Expr value) { Replace(num_calls, -1, value); }
  /// The same, also computing sibling |sibling|: |value| is a tuple of result(num_calls - 1)'s
  /// replacement and the sibling's.
  void Replace(int num_calls, int sibling, Expr value);

 private:
  const rxt_library_match_t* match_;
  rxt_library_rewrite_t* out_;
};

using PatternBody = void (*)(Pattern& p);

/// Runs |body| as a pattern's rewrite; NULL (out->value set, or NULL if it declined), or a
/// status once the builder holds the error (as RunRule, rule.h). No exception leaves it.
rxt_status_t RunPattern(PatternBody body, const rxt_ir_api_t* ir, rxt_ir_builder_t* b,
                        const rxt_library_match_t* match, rxt_library_rewrite_t* out);

/// |Body| as the rewrite function of an rxt_library_pattern_t.
template <PatternBody Body>
rxt_status_t PatternRewrite(void* /*state*/, const rxt_ir_api_t* ir, rxt_ir_builder_t* b,
                            const rxt_library_match_t* match, rxt_library_rewrite_t* out) {
  return RunPattern(Body, ir, b, match, out);
}

}  // namespace rxt::plugin_support

/// The pattern |name| anchored at op |anchor| with its op lists (NULL-terminated arrays of op
/// names, or nullptr), rewritten by |body|.
#define RXT_LIBRARY_PATTERN(name, anchor, epilogue, input_ops, sibling_ops, body)                  \
  rxt_library_pattern_t {                                                                          \
    sizeof(rxt_library_pattern_t), name, anchor, epilogue, input_ops, sibling_ops,                  \
        &::rxt::plugin_support::PatternRewrite<body>                                               \
  }
