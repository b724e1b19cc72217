// builder.h (plugin SDK): the C++ view of the host's IR table (rxt/ir_builder.h) that gradient
// rules (rule.h), losses and optimizers (generator.h) and kernel-library patterns (library.h)
// read and build IR with: struct info, op calls, constants, and one way to fail. Compiled into
// each plugin that links rxt::plugin_support (plugins link nothing of rxt, nor each other).
//
//   Expr Softplus(Builder& g, Expr x) {        // log(1 + exp(x))
//     return g.Op("log", {g.Add(g.ScalarLike(1, x), g.Op("exp", {x}))});
//   }
//
// A building call that fails returns NULL and the host records why; every later call given that
// NULL returns NULL too, so code may check once at the end (the Run* functions of rule.h and
// generator.h do). Fail records a message of the plugin's own and stops the rule or generator:
// it unwinds (a C++ exception) to the Run* function, which never lets it cross into the host.
#pragma once

#include <rxt/ir_builder.h>
#include <rxt/rxt.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace rxt::plugin_support {

using Expr = rxt_ir_expr_t;

/// Thrown by Builder::Fail once the error is recorded; caught by the Run* functions.
struct BuilderStopped {};

class Builder {
 public:
  Builder(const rxt_ir_api_t* ir, rxt_ir_builder_t* b) : ir_(ir), b_(b) {}

  // ---- Struct info
  /// -1 when unknown.
  int Ndim(Expr e) const { return ir_->ndim(b_, e); }
  /// Ndim, failing when unknown (|what| names the value in the message).
  int KnownNdim(Expr e, const char* what);
  /// "float32"; "" when unknown.
  std::string DType(Expr e) const;
  bool IsFloat(Expr e) const;
  /// Dim |axis| when it is a known integer.
  std::optional<int64_t> Dim(Expr e, int axis) const;
  /// Dim |axis| when static, else fails naming |why| it must be.
  int64_t StaticDim(Expr e, int axis, const char* why);
  /// Dim |axis| in the text format ("64", "n"); fails if unknown.
  std::string DimText(Expr e, int axis);
  /// Fields of a tuple; -1 for anything else.
  int TupleSize(Expr e) const { return ir_->tuple_size(b_, e); }
  /// "Tensor((n, 10), float32)".
  std::string StructInfoText(Expr e) const;
  /// "Tensor((<dims of e>), dtype)" for the dims of |e| listed in |axes|.
  std::string TensorText(Expr e, const std::vector<int>& axes, const std::string& dtype);
  /// "Tensor((<every dim of e>), dtype)".
  std::string TensorLike(Expr e, const std::string& dtype);
  /// Every dim of a tensor when all are known integers, else nullopt.
  std::optional<std::vector<int64_t>> StaticShape(Expr e) const;

  // ---- Reading op calls (the call a rule differentiates, a library pattern's matches)
  /// The op a call calls ("matmul"); "" for anything but an op call.
  std::string OpName(Expr call) const;
  /// Its number of arguments (-1 for anything but an op call) and argument |index| (NULL if none).
  int NumArgs(Expr call) const { return ir_->num_args(b_, call); }
  Expr Arg(Expr call, int index) const { return ir_->arg(b_, call, index); }
  /// Its attributes (complete with defaults); nullopt when absent, unset or of another kind.
  std::optional<int64_t> AttrInt(Expr call, const char* name) const;
  std::optional<bool> AttrBool(Expr call, const char* name) const;
  std::optional<std::string> AttrString(Expr call, const char* name) const;
  std::optional<std::vector<int64_t>> AttrInts(Expr call, const char* name) const;
  /// The value of a constant of one element, else nullopt (also on a host without the reader).
  std::optional<double> ConstantValue(Expr e) const;

  // ---- Building (each op call is bound to a new variable, its struct info inferred)
  /// op(args) with attributes in the text format ("axis=[1], keepdims=true").
  Expr Op(const char* name, std::initializer_list<Expr> args, const std::string& attrs = "");
  Expr Op(const char* name, const std::vector<Expr>& args, const std::string& attrs = "");
  /// A 0-d constant of |dtype|.
  Expr Scalar(double value, const std::string& dtype) { return ir_->scalar(b_, value, dtype.c_str()); }
  /// A 0-d constant of |like|'s dtype.
  Expr ScalarLike(double value, Expr like) { return Scalar(value, DType(like)); }
  Expr Constant(const std::vector<double>& values, const std::vector<int64_t>& shape, const std::string& dtype);
  /// The shape of a tensor as a shape value (symbolic dims kept).
  Expr ShapeOf(Expr tensor) { return ir_->shape_of(b_, tensor); }
  Expr Shape(const std::vector<int64_t>& dims) { return ir_->shape(b_, dims.data(), static_cast<int>(dims.size())); }
  Expr Tuple(const std::vector<Expr>& fields) {
    return ir_->tuple(b_, fields.data(), static_cast<int>(fields.size()));
  }
  Expr Item(Expr tuple, int index) { return ir_->get_item(b_, tuple, index); }
  /// An int64 scalar value (Prim), e.g. an integer argument of an extern function.
  Expr PrimInt(int64_t value) { return ir_->prim(b_, static_cast<double>(value), "int64"); }
  /// call_extern(name, (args...)) whose results have the struct info of the tensors |outs_like|
  /// (several: a tuple), bound to a new variable; fails on a host without call_extern.
  Expr CallExtern(const std::string& name, const std::vector<Expr>& args, const std::vector<Expr>& outs_like);
  Expr Add(Expr a, Expr b) { return Op("add", {a, b}); }
  Expr Sub(Expr a, Expr b) { return Op("subtract", {a, b}); }
  Expr Mul(Expr a, Expr b) { return Op("multiply", {a, b}); }
  Expr Div(Expr a, Expr b) { return Op("divide", {a, b}); }
  Expr Neg(Expr a) { return Op("negative", {a}); }
  /// |x| converted to |dtype| (|x| itself if it has that dtype already).
  Expr Cast(Expr x, const std::string& dtype);

  /// Records |message| as the error (unless empty: the host's message is already recorded) and
  /// stops.
  [[noreturn]] void Fail(const std::string& message);

  const rxt_ir_api_t* ir() const { return ir_; }
  rxt_ir_builder_t* builder() const { return b_; }

 protected:
  const rxt_ir_api_t* ir_;
  rxt_ir_builder_t* b_;
};

/// How the Run* functions of rule.h and generator.h end a failed generator: records |message|
/// in the builder (unless it holds an error already: the first is the cause) and returns a
/// status of |code| and the builder's first error (host.h's MakeStatus).
rxt_status_t FailGenerator(const rxt_ir_api_t* ir, rxt_ir_builder_t* b, rxt_code_t code, const std::string& message);

}  // namespace rxt::plugin_support
