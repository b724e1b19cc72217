// The host side of rxt_ir_api_t (abi/include/rxt/ir_builder.h): how plugins' IR generators
// (gradient rules, losses, optimizers) build IR. One IRBuilderHost serves one callback: it
// wraps a BlockBuilder positioned where the generated bindings go, hands out handles for
// expressions (an arena: a handle stays valid while the host lives), keeps the strings and
// lists it returns alive, and records the first error.
//
//   BlockBuilder builder(&module);
//   builder.BeginDataflowBlock();
//   IRBuilderHost host(builder);
//   rxt_ir_expr_t x = host.Wrap(x_var);
//   rxt_ir_expr_t y = IRBuilderHost::Api()->op(host.handle(), "exp", &x, 1, nullptr);
//   if (host.failed()) ... host.error() ...;   // else host.Unwrap(y) is the bound variable
//
// Function building (losses and optimizers, rxt/plugin/ir_generators.h): with
// Options::allow_params the callback may declare parameters (param()), with allow_states
// optimizer state (state(), set_state()); the caller assembles the function from params(),
// states() and what the callback returned.
#pragma once

#include <deque>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "rxt/ir/builder.h"
#include "rxt/ir/op.h"
#include "rxt/ir_builder.h"

namespace rxt {
class IRBuilderHost;
}

/// What a plugin sees as its opaque rxt_ir_builder_t*.
struct rxt_ir_builder_s {
  rxt::IRBuilderHost* host;
};

namespace rxt {

class IRBuilderHost {
 public:
  struct Options {
    /// Bind to non-dataflow variables even inside a dataflow block (for values that must be
    /// visible after the block, e.g. the Gradient pass's adjoints outside a single block).
    bool bind_outputs = false;
    /// param() is allowed (a loss declares its targets).
    bool allow_params = false;
    /// state() and set_state() are allowed (an optimizer declares its state).
    bool allow_states = false;
    /// Reading only (an op plugin's legalization): building functions fail.
    bool read_only = false;
    /// An op plugin's struct info inference: reading and set_struct_info() only.
    bool infer = false;
  };

  /// One tensor of optimizer state declared with state().
  struct State {
    std::string name;
    Var var;        // its current value in the function being built
    double init;    // every element's value at the start of training
    Expr next;      // its value after the step (set_state); null: unchanged
  };

  IRBuilderHost(BlockBuilder& builder, Options options);
  explicit IRBuilderHost(BlockBuilder& builder) : IRBuilderHost(builder, Options()) {}
  IRBuilderHost(const IRBuilderHost&) = delete;
  IRBuilderHost& operator=(const IRBuilderHost&) = delete;

  /// The table handed to plugins (one for the process, static storage).
  static const rxt_ir_api_t* Api();
  rxt_ir_builder_t* handle() { return &handle_; }

  /// A handle for |e| (the same handle for the same node); NULL for a null expression.
  rxt_ir_expr_t Wrap(const Expr& e);
  /// The expression behind |handle|; null for NULL or a handle this host did not give out.
  Expr Unwrap(rxt_ir_expr_t handle) const;

  bool failed() const { return !error_.empty(); }
  /// The first error recorded ("" if none).
  const std::string& error() const { return error_; }
  /// Records |message| unless an error is already recorded (the first one is the cause).
  void Fail(const std::string& message);

  // ---- For the C functions of the table (ir_api_*.cc).
  BlockBuilder& builder() { return builder_; }
  const Options& options() const { return options_; }
  /// Binds |value| to a new variable in the builder's current block (a dataflow variable
  /// inside a dataflow block unless options().bind_outputs). Throws rxt::Error on a bad value.
  Var Bind(const Expr& value, const std::string& name_hint = "lv");
  /// Keeps a copy alive while the host lives; returns a pointer to it.
  const char* Keep(std::string text);
  const int64_t* Keep(std::vector<int64_t> values);
  const double* Keep(std::vector<double> values);

  // ---- Function building.
  /// Makes the symbolic dims of |sinfo| known by name to the struct infos that param() and
  /// state() parse (so "Tensor((n,), int64)" means the prediction's n).
  void AddSymbols(const StructInfo& sinfo);
  /// param(): throws kFailedPrecondition unless allowed, kInvalidArgument on a bad name or
  /// struct info.
  Var AddParam(const std::string& name, const std::string& sinfo_text);
  /// state(): as AddParam, and a state name must be unique.
  Var AddState(const std::string& name, const std::string& sinfo_text, double init);
  /// set_state(): |state| must be a variable returned by AddState; |next| must fit its struct info.
  void SetState(const Expr& state, const Expr& next);
  const std::vector<Var>& params() const { return params_; }

  // ---- Struct info inference (Options::infer).
  /// set_struct_info(): parses |sinfo_text| with the symbols added by AddSymbols; it must be a
  /// tensor or a tuple of tensors. Throws kFailedPrecondition outside an inference.
  void SetInferred(const std::string& sinfo_text);
  /// What set_struct_info() set; null if nothing.
  const StructInfo& inferred() const { return inferred_; }
  const std::vector<State>& states() const { return states_; }

 private:
  StructInfo ParseDeclared(const char* what, const std::string& name, const std::string& sinfo_text);

  BlockBuilder& builder_;
  Options options_;
  rxt_ir_builder_s handle_{this};
  uintptr_t tag_;            // this host's bits of every handle it gives out
  std::vector<Expr> arena_;  // handle tag_ | h is arena_[h - 1]
  std::unordered_map<const ExprNode*, size_t> handles_;
  std::deque<std::string> strings_;
  std::deque<std::vector<int64_t>> int_lists_;
  std::deque<std::vector<double>> float_lists_;
  std::string error_;
  std::map<std::string, PrimVar> symbols_;
  std::vector<Var> params_;
  std::vector<State> states_;
  StructInfo inferred_;
};

}  // namespace rxt
