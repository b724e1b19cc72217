// generator.h (plugin SDK): losses and optimizers, which build whole functions: their options
// (with defaults and range checks), the parameters a loss declares and the state an optimizer
// keeps, on top of Builder (builder.h).
//
//   rxt_status_t MyLoss(void* state, const rxt_ir_api_t* ir, rxt_ir_builder_t* b, const char* options,
//                       rxt_ir_expr_t prediction, rxt_ir_expr_t* loss) {   // rxt_loss_t.build
//     return RunGenerator(ir, b, options, [&](Generator& g) {
//       g.CheckOptions({"scale"});
//       double scale = g.Float("scale", 1.0);
//       Expr target = g.Param("targets", g.StructInfoText(prediction));
//       *loss = g.Mul(g.Op("sum", {g.Sub(prediction, target)}), g.ScalarLike(scale, prediction));
//     });
//   }
#pragma once

#include <rxt/ir_builder.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "rxt/plugin_support/attr_text.h"
#include "rxt/plugin_support/builder.h"

namespace rxt::plugin_support {

class Generator : public Builder {
 public:
  Generator(const rxt_ir_api_t* ir, rxt_ir_builder_t* b, const char* options)
      : Builder(ir, b), options_(options != nullptr ? options : "") {}

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

  // ---- Functions
  /// A parameter of the function being built (a loss's targets).
  Expr Param(const std::string& name, const std::string& struct_info);
  /// A tensor of optimizer state, every element |init| at the start; its current value.
  Expr State(const std::string& name, const std::string& struct_info, double init);
  /// The value |state| takes after this step.
  void SetState(Expr state, Expr next);

 private:
  /// Whether an option read with |code| is present; fails when the host recorded an error.
  bool Present(rxt_code_t code);

  std::string options_;
};

/// Runs |body| as the build function of a loss or optimizer; returns NULL, or a status once the
/// builder holds the error (from Fail or a building call that failed: RXT_INVALID_ARGUMENT; an
/// unexpected C++ exception: RXT_INTERNAL). No exception leaves it.
rxt_status_t RunGenerator(const rxt_ir_api_t* ir, rxt_ir_builder_t* b, const char* options,
                        const std::function<void(Generator&)>& body);

}  // namespace rxt::plugin_support
