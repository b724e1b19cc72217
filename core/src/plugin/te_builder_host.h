// The host side of rxt_te_api_t (abi/include/rxt/tensor_expr.h): how an op plugin's
// legalization describes its kernel. One TEBuilderHost serves one legalize call: it wraps the
// legalization's KernelCall (transform/legalize/legalize_util.h), hands out handles for scalar
// expressions and tensors (arenas: valid while the host lives), and records the first error.
//
//   TEBuilderHost te(call);
//   rxt_te_tensor_t x = TEBuilderHost::Api()->input(te.handle(), 0);
//   ... the plugin's stages ...
//   Expr replacement = te.Finish(context);   // call_kernel of the kernel; throws on an error
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

#include "rxt/tensor_expr.h"
#include "transform/legalize/legalize_util.h"

namespace rxt {
class TEBuilderHost;
}

/// What a plugin sees as its opaque rxt_te_builder_t*.
struct rxt_te_builder_s {
  rxt::TEBuilderHost* host;
};

namespace rxt {

class TEBuilderHost {
 public:
  explicit TEBuilderHost(const CallNode& call) : call_(call), kernel_(call) {}
  TEBuilderHost(const TEBuilderHost&) = delete;
  TEBuilderHost& operator=(const TEBuilderHost&) = delete;

  /// The table handed to plugins (one for the process, static storage).
  static const rxt_te_api_t* Api();
  rxt_te_builder_t* handle() { return &handle_; }

  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  /// Records |message| unless an error is already recorded.
  void Fail(const std::string& message);

  /// The kernel call with the outputs marked by output(); throws kInvalidArgument when they
  /// do not fit the call's result (count, dtype, ndim, known dims).
  Expr Finish(LegalizeContext& context);

  // ---- For the C functions of the table.
  const CallNode& call() const { return call_; }
  rxt_te_expr_t Wrap(PrimExpr e);
  PrimExpr Unwrap(rxt_te_expr_t handle) const;
  rxt_te_tensor_t WrapTensor(TensorRef t);
  /// Null TensorRef for NULL or a handle this host did not give out.
  TensorRef UnwrapTensor(rxt_te_tensor_t handle) const;
  /// Argument |index| as an input (the same tensor when asked twice).
  TensorRef Input(int index);
  KernelBuilder& builder() { return kernel_.builder(); }
  /// A fresh index variable for axes(); IsAxis tells such variables from the caller's dims.
  rxt_te_expr_t NewAxis();
  bool IsAxis(const PrimVarNode* var) const { return axes_.count(var) > 0; }
  void AddOutput(TensorRef stage) { outputs_.push_back(std::move(stage)); }

 private:
  const CallNode& call_;
  legalize::KernelCall kernel_;
  rxt_te_builder_s handle_{this};
  std::vector<PrimExpr> exprs_;      // handle h is exprs_[h - 1]
  std::vector<TensorRef> tensors_;   // handle h is tensors_[h - 1]
  std::vector<std::pair<int, TensorRef>> inputs_;  // argument index -> its input
  std::vector<TensorRef> outputs_;
  std::unordered_set<const PrimVarNode*> axes_;
  std::string error_;
};

}  // namespace rxt
