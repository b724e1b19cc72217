// rule.h (plugin SDK): gradient rules. A rule sees one op call being differentiated — its
// arguments, attributes, output and output adjoint — through Rule, and builds the adjoints of
// the arguments with Builder's calls (builder.h). Rules are written as `void XGrad(Rule& r)` and
// listed with RXT_GRADIENT_RULE:
//
//   void ExpGrad(Rule& r) {                         // z = exp(x): dx = dz * z
//     r.SetGrad(0, r.Mul(r.grad(), r.output()));
//   }
//   const rxt_gradient_rule_t kExp = RXT_GRADIENT_RULE("exp", "dx = dz * exp(x)", ExpGrad);
//
// A rule that cannot differentiate a call calls r.Fail("why"): the host reports it with the
// op's name. No C++ exception crosses into the host.
#pragma once

#include <rxt/ir_builder.h>
#include <rxt/plugin.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rxt/plugin_support/attr_text.h"
#include "rxt/plugin_support/builder.h"

namespace rxt::plugin_support {

class Rule : public Builder {
 public:
  Rule(const rxt_ir_api_t* ir, rxt_ir_builder_t* b, Expr call, Expr output, Expr output_grad, Expr* input_grads)
      : Builder(ir, b), call_(call), output_(output), grad_(output_grad), input_grads_(input_grads) {}

  // ---- The call being differentiated
  int num_args() const { return ir_->num_args(b_, call_); }
  Expr arg(int index) const { return ir_->arg(b_, call_, index); }
  /// The variable bound to the call, and its adjoint (tuples for ops with a tuple result).
  Expr output() const { return output_; }
  Expr grad() const { return grad_; }
  /// Field |index| of the output / of its adjoint (ops with a tuple result).
  Expr OutputField(int index) { return Item(output_, index); }
  Expr GradField(int index) { return Item(grad_, index); }
  /// The adjoint of argument |index|; arguments never set take no gradient.
  void SetGrad(int index, Expr grad) { input_grads_[index] = grad; }

  // ---- Attributes of the call (complete with defaults); a missing or mistyped one fails the rule
  int64_t Int(const char* name);
  std::optional<int64_t> OptionalInt(const char* name);
  double Float(const char* name);
  bool Bool(const char* name);
  std::string String(const char* name);
  std::vector<int64_t> Ints(const char* name);
  std::optional<std::vector<int64_t>> OptionalInts(const char* name);
  /// The attribute in the text format, or NULL if absent.
  const char* AttrText(const char* name) { return ir_->attr_text(b_, call_, name); }

 private:
  [[noreturn]] void FailAttr(const char* name, const char* kind, rxt_code_t code);

  Expr call_, output_, grad_;
  Expr* input_grads_;
};

using RuleBody = void (*)(Rule& r);

/// Runs |body| as a gradient rule; returns NULL, or a status once the builder holds the error
/// (as RunGenerator, generator.h). No exception leaves it.
rxt_status_t RunRule(RuleBody body, const rxt_ir_api_t* ir, rxt_ir_builder_t* b, Expr call, Expr output,
                     Expr output_grad, Expr* input_grads);

/// |Body| as the build function of an rxt_gradient_rule_t.
template <RuleBody Body>
rxt_status_t GradientRule(void* /*state*/, const rxt_ir_api_t* ir, rxt_ir_builder_t* b, Expr call, Expr output,
                          Expr output_grad, Expr* input_grads) {
  return RunRule(Body, ir, b, call, output, output_grad, input_grads);
}

}  // namespace rxt::plugin_support

/// The vtable of the rule of op |op| (its name) with a one-line |summary|, built by |body|.
#define RXT_GRADIENT_RULE(op, summary, body) \
  rxt_gradient_rule_t { sizeof(rxt_gradient_rule_t), op, summary, nullptr, &::rxt::plugin_support::GradientRule<body> }
