// Legalization: the op attribute that lowers a call of an op to kernel calls, as used by the
// LegalizeOps pass (transform/passes.h).
//
//   Expr LegalizeRelu(LegalizeContext& ctx, const CallNode& call) {
//     KernelBuilder kb;
//     TensorRef x = kb.Input("x", call.args[0]->struct_info);
//     TensorRef y = kb.Compute("compute", x.shape(), [&](const Index& i) { ... });
//     return ctx.CallKernel("relu", kb.Build({y}), {call.args[0]}, {call.struct_info});
//   }
//   registry.FindMutable("nn.relu")->Set<FLegalize>(LegalizeRelu);
#pragma once

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "rxt/ir/builder.h"
#include "rxt/ir/kernel.h"
#include "rxt/ir/module.h"
#include "rxt/ir/op.h"

namespace rxt {

/// What a legalization sees besides the call: the builder of the function being rewritten
/// (to emit helper bindings before the replacement) and the module receiving the kernels.
class LegalizeContext {
 public:
  /// |module| receives the kernels; |builder| is positioned where the call is bound.
  LegalizeContext(IRModule& module, BlockBuilder& builder);

  BlockBuilder& builder() { return builder_; }
  const IRModule& module() const { return module_; }

  /// Adds |kernel| to the module under a fresh name derived from |name_hint|, or returns the
  /// name of a structurally equal kernel already there.
  std::string AddKernel(const std::string& name_hint, KernelFunction kernel);

  /// call_kernel(@kernel, (args...), out_sinfo=outputs), adding the kernel (AddKernel).
  /// Several outputs give a Tuple result.
  Expr CallKernel(const std::string& name_hint, KernelFunction kernel, std::vector<Expr> args,
                  std::vector<StructInfo> outputs);

  /// The constant |arg| holds: |arg| itself when it is a Constant, or the Constant a variable
  /// is bound to earlier in the function being rewritten (RecordConstant); else null. Lets a
  /// legalization specialise on a value known at compile time (power(x, 2) is x * x).
  const ConstantNode* KnownConstant(const Expr& arg) const;
  /// Records that |var| is bound to |constant| (LegalizeOps does, for each such binding).
  void RecordConstant(const Var& var, const ConstantNode* constant);

 private:
  IRModule& module_;
  BlockBuilder& builder_;
  std::unordered_map<const VarNode*, const ConstantNode*> constants_;  // variables bound to constants
  std::unordered_multimap<size_t, std::string> kernels_by_hash_;  // the module's kernels
};

/// Lowers one call of an op (arguments normalized, struct info known) to its replacement,
/// typically a call_kernel; null keeps the call as it is (it is already legal). A call that
/// cannot be lowered (e.g. its output shape is not known) throws rxt::Error with code
/// kUnimplemented and the reason; LegalizeOps reports it.
using FLegalize = std::function<Expr(LegalizeContext& context, const CallNode& call)>;

/// Sets FLegalize on every op of |registry| that has a compute definition (every core op
/// but nn.dropout), and an identity legalization on the builtins (call_kernel, call_extern,
/// print, assert), which are already legal; a checkpoint marker (checkpoint_start,
/// checkpoint_end) legalizes to its argument. An op that already has one keeps it. The
/// compiler's initialisation (transform/compiler_init.cc) calls this for OpRegistry::Global().
void RegisterLegalizations(OpRegistry& registry);

}  // namespace rxt
