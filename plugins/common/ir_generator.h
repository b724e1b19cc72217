// The C++ view of the host's IR table (rxt/ir_builder.h) that the loss and optimizer plugins
// (loss_std, optim_std) build their functions with: options with defaults and range checks,
// struct-info text for declared parameters and state, op calls, and one way to fail. Compiled
// into each plugin that uses it (plugins link nothing of rxt, nor each other).
//
//   rxt_code_t MyLoss(const rxt_ir_api_t* ir, rxt_ir_builder_t* b, const char* options,
//                     rxt_ir_expr_t prediction, rxt_ir_expr_t* loss) {
//     return RunGenerator(ir, b, options, [&](Generator& g) {
//       g.CheckOptions({"scale"});
//       double scale = g.Float("scale", 1.0);
//       Expr target = g.Param("targets", g.StructInfoText(prediction));
//       *loss = g.Mul(g.Op("sum", {g.Sub(prediction, target)}), g.ScalarLike(scale, prediction));
//     });
//   }
//
// Generator::Fail records the message in the builder and unwinds to RunGenerator; no C++
// exception crosses the C boundary.
#pragma once

#include <rxt/ir_builder.h>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace rxt::plugin_support {

using Expr = rxt_ir_expr_t;

class Generator {
 public:
  Generator(const rxt_ir_api_t* ir, rxt_ir_builder_t* b, const char* options)
      : ir_(ir), b_(b), options_(options != nullptr ? options : "") {}

  // ---- Options ("lr=0.001, betas=[0.9, 0.999]"): an absent option takes |fallback|; one of
  // another kind fails with the host's message naming it.
  /// Fails naming the first option not in |known| (and listing the known ones).
  void CheckOptions(const std::vector<const char*>& known);
  double Float(const char* name, double fallback);
  std::optional<double> OptionalFloat(const char* name);
  int64_t Int(const char* name, int64_t fallback);
  bool Bool(const char* name, bool fallback);
  std::string String(const char* name, const std::string& fallback);
  std::optional<std::vector<double>> Floats(const char* name);
  /// Fails with "option 'name' must be <rule>, got <value>" unless |ok|.
  void Require(bool ok, const char* name, const char* rule, double value);

  // ---- Struct info
  int Ndim(Expr e) { return ir_->ndim(b_, e); }
  std::string DType(Expr e) { return ir_->dtype(b_, e); }
  bool IsFloat(Expr e);
  std::optional<int64_t> Dim(Expr e, int axis);
  /// Dim |axis| in the text format ("64", "n"); fails if unknown.
  std::string DimText(Expr e, int axis);
  std::string StructInfoText(Expr e) { return ir_->struct_info_text(b_, e); }
  /// "Tensor((<dims of e>), dtype)" for the dims of |e| listed in |axes|.
  std::string TensorText(Expr e, const std::vector<int>& axes, const std::string& dtype);
  /// "Tensor((<every dim of e>), dtype)".
  std::string TensorLike(Expr e, const std::string& dtype);

  // ---- Building
  Expr Op(const char* name, std::initializer_list<Expr> args, const std::string& attrs = "");
  Expr Scalar(double value, const std::string& dtype) { return ir_->scalar(b_, value, dtype.c_str()); }
  Expr ScalarLike(double value, Expr like) { return Scalar(value, DType(like)); }
  Expr Constant(const std::vector<double>& values, const std::vector<int64_t>& shape, const std::string& dtype);
  Expr Add(Expr a, Expr b) { return Op("add", {a, b}); }
  Expr Sub(Expr a, Expr b) { return Op("subtract", {a, b}); }
  Expr Mul(Expr a, Expr b) { return Op("multiply", {a, b}); }
  Expr Div(Expr a, Expr b) { return Op("divide", {a, b}); }
  Expr Neg(Expr a) { return Op("negative", {a}); }
  /// |x| converted to |dtype| (|x| itself if it has that dtype already).
  Expr Cast(Expr x, const std::string& dtype);

  // ---- Functions
  Expr Param(const std::string& name, const std::string& struct_info);
  Expr State(const std::string& name, const std::string& struct_info, double init);
  void SetState(Expr state, Expr next);

  /// Records |message| as the error and stops the generator.
  [[noreturn]] void Fail(const std::string& message);

  const rxt_ir_api_t* ir() const { return ir_; }
  rxt_ir_builder_t* builder() const { return b_; }

 private:
  [[noreturn]] void Stop();
  const rxt_ir_api_t* ir_;
  rxt_ir_builder_t* b_;
  std::string options_;
};

/// Runs |body|; returns RXT_OK, or an error code once the builder holds the error (whether
/// from Fail, a building call that failed, or an unexpected C++ exception).
rxt_code_t RunGenerator(const rxt_ir_api_t* ir, rxt_ir_builder_t* b, const char* options,
                        const std::function<void(Generator&)>& body);

/// A float in the text format that stays a float ("1.0", not "1").
std::string FloatText(double value);

}  // namespace rxt::plugin_support
