// The gradient rules of grad_std see the host's C table (rxt/ir_builder.h) through Rule: one
// rule call's op call, output and output adjoint, the attributes and struct info it reads, and
// the ops it emits. Rules are written as `void XGrad(Rule& r)` and listed with RXT_GRAD_RULE.
//
//   void ExpGrad(Rule& r) {                         // z = exp(x): dx = dz * z
//     r.SetGrad(0, r.Op("multiply", {r.grad(), r.output()}));
//   }
//
// A rule that cannot differentiate a call calls r.Fail("why"): the host reports it with the
// op's name. No C++ exception crosses the C boundary.
#pragma once

#include <rxt/ir_builder.h>
#include <rxt/plugin.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace rxt::grad_std {

using Expr = rxt_ir_expr_t;

class Rule {
 public:
  Rule(const rxt_ir_api_t* ir, rxt_ir_builder_t* b, Expr call, Expr output, Expr output_grad, Expr* input_grads)
      : ir_(ir), b_(b), call_(call), output_(output), grad_(output_grad), input_grads_(input_grads) {}

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

  // ---- Attributes (complete with defaults); a missing or mistyped one fails the rule
  int64_t Int(const char* name);
  std::optional<int64_t> OptionalInt(const char* name);
  double Float(const char* name);
  bool Bool(const char* name);
  std::string String(const char* name);
  std::vector<int64_t> Ints(const char* name);
  std::optional<std::vector<int64_t>> OptionalInts(const char* name);
  /// The attribute in the text format, or NULL if absent.
  const char* AttrText(const char* name) { return ir_->attr_text(b_, call_, name); }

  // ---- Struct info
  int Ndim(Expr e) { return ir_->ndim(b_, e); }
  /// Ndim, failing the rule when unknown (|what| names the value in the message).
  int KnownNdim(Expr e, const char* what);
  std::string DType(Expr e) { return ir_->dtype(b_, e); }
  bool IsFloat(Expr e);
  std::optional<int64_t> Dim(Expr e, int axis);
  /// Dim |axis| when static, else fails the rule naming |why| it must be.
  int64_t StaticDim(Expr e, int axis, const char* why);
  int TupleSize(Expr e) { return ir_->tuple_size(b_, e); }
  std::string StructInfoText(Expr e) { return ir_->struct_info_text(b_, e); }

  // ---- Building
  /// op(args; attrs in the text format, "axis=[1], keepdims=true").
  Expr Op(const char* name, std::initializer_list<Expr> args, const std::string& attrs = "");
  Expr Op(const char* name, const std::vector<Expr>& args, const std::string& attrs = "");
  /// A 0-d constant of |like|'s dtype.
  Expr ScalarLike(double value, Expr like) { return ir_->scalar(b_, value, DType(like).c_str()); }
  Expr Constant(const std::vector<double>& values, const std::vector<int64_t>& shape, const std::string& dtype);
  Expr ShapeOf(Expr tensor) { return ir_->shape_of(b_, tensor); }
  Expr Shape(const std::vector<int64_t>& dims) { return ir_->shape(b_, dims.data(), static_cast<int>(dims.size())); }
  Expr Tuple(const std::vector<Expr>& fields) { return ir_->tuple(b_, fields.data(), static_cast<int>(fields.size())); }
  Expr Item(Expr tuple, int index) { return ir_->get_item(b_, tuple, index); }

  /// Records |message| as the rule's error and stops the rule.
  [[noreturn]] void Fail(const std::string& message);

  const rxt_ir_api_t* ir() const { return ir_; }
  rxt_ir_builder_t* builder() const { return b_; }

 private:
  [[noreturn]] void FailAttr(const char* name, const char* kind, rxt_code_t code);

  const rxt_ir_api_t* ir_;
  rxt_ir_builder_t* b_;
  Expr call_, output_, grad_;
  Expr* input_grads_;
};

/// Thrown by Rule::Fail after the error is recorded; caught by RunRule.
struct RuleStopped {};

using RuleBody = void (*)(Rule& r);

/// Runs |body| as an rxt_gradient_rule_fn: exceptions stop here and become the builder's error.
rxt_code_t RunRule(RuleBody body, const rxt_ir_api_t* ir, rxt_ir_builder_t* b, Expr call, Expr output, Expr output_grad,
                   Expr* input_grads);

template <RuleBody Body>
rxt_code_t GradientRule(const rxt_ir_api_t* ir, rxt_ir_builder_t* b, Expr call, Expr output, Expr output_grad,
                        Expr* input_grads) {
  return RunRule(Body, ir, b, call, output, output_grad, input_grads);
}

/// A plugin item for the rule of op |op| (the item's name) with a one-line |summary|.
#define RXT_GRAD_RULE(op, summary, body)                                                                             \
  rxt_plugin_item_t {                                                                                                \
    sizeof(rxt_plugin_item_t), op, summary, reinterpret_cast<rxt_plugin_fn_t>(&::rxt::grad_std::GradientRule<body>), \
        nullptr                                                                                                      \
  }

// ---- Attribute text (the IR text format's syntax)
std::string IntsText(const std::vector<int64_t>& values);
std::string FloatText(double value);
std::string Quoted(const std::string& text);

}  // namespace rxt::grad_std
