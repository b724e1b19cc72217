/// LegalizeLibraryCalls' matcher for matrix products: dnnl.matmul / dnnl.matmul_bias.
#include "legalize_library_match.h"

namespace rxt::legalize_library {

namespace {

/// If |operand| is a 2-D permute_dims(x, axes=[1, 0]) bound in this block and read only by
/// |user|, returns its binding: the library reads x transposed instead (a gradient's
/// transposed weights and activations), so the permute need not run.
std::optional<size_t> FoldableTranspose(const BlockView& view, const Expr& operand, size_t user) {
  std::optional<size_t> at = view.BindingOf(operand);
  if (!at || view.bindings[*at].is_match_cast()) return std::nullopt;
  const CallNode* permute = OpCall(view.bindings[*at].value, "permute_dims");
  if (permute == nullptr || IntsAttr(*permute, "axes") != std::vector<int64_t>{1, 0}) return std::nullopt;
  if (!IsStaticFloat32(permute->args[0], 2) || view.SoleUser(view.bindings[*at].var, *at) != user) return std::nullopt;
  return at;
}

}  // namespace

/// dnnl.matmul(a, b, flags) / dnnl.matmul_bias(a, b, bias, flags): float32, a (..., M, K)
/// static, b (K, N); bias N elements. flags: bit 0 = a is given transposed, bit 1 = b is (a
/// 2-D permute_dims read only by the matmul is folded in), bit 2 = ReLU.
std::optional<Replacement> MatchDnnlMatmul(const BlockView& view, size_t root, BlockBuilder& /*builder*/) {
  const CallNode* call = OpCall(view.bindings[root].value, "matmul");
  if (call == nullptr) return std::nullopt;
  Expr a = call->args[0];
  Expr b = call->args[1];
  const TensorSINode* ta = TensorInfo(a);
  if (ta == nullptr || ta->ndim < 2 || !IsStaticFloat32(a, ta->ndim) || !IsStaticFloat32(b, 2)) return std::nullopt;
  const TensorSINode* out = TensorInfo(view.bindings[root].var);
  if (out == nullptr || out->dtype != DType::kFloat32) return std::nullopt;
  int64_t n = TensorInfo(b)->StaticShape()[1];
  auto bias_ok = [n](const Expr& bias) {
    const TensorSINode* t = TensorInfo(bias);
    if (t == nullptr || t->dtype != DType::kFloat32 || !t->shape || !t->IsStatic() || NumElements(*t) != n) return false;
    std::vector<int64_t> shape = t->StaticShape();
    return !shape.empty() && shape.back() == n;  // (N,), (1, N), ...: one value per column
  };
  Epilogue epilogue = FollowEpilogue(view, root, bias_ok);
  int64_t flags = epilogue.relu ? 4 : 0;
  std::vector<size_t> chain;
  std::optional<size_t> ta_at = ta->ndim == 2 ? FoldableTranspose(view, a, root) : std::nullopt;
  std::optional<size_t> tb_at = FoldableTranspose(view, b, root);
  const bool fold_b = tb_at.has_value() && tb_at != ta_at;  // matmul(t, t): fold one
  if (ta_at) {
    a = OpCall(view.bindings[*ta_at].value, "permute_dims")->args[0];
    flags |= 1;
    chain.push_back(*ta_at);
  }
  if (fold_b) {
    size_t at = tb_at.value_or(0);  // value_or: GCC 12 at -O2 thinks *tb_at may be uninitialized
    b = OpCall(view.bindings[at].value, "permute_dims")->args[0];
    flags |= 2;
    chain.push_back(at);
  }
  chain.push_back(root);
  chain.insert(chain.end(), epilogue.chain.begin(), epilogue.chain.end());
  StructInfo out_sinfo = view.bindings[chain.back()].var->struct_info;
  Expr value = epilogue.bias ? CallExtern("dnnl.matmul_bias", {a, b, epilogue.bias, Int(flags)}, {out_sinfo})
                             : CallExtern("dnnl.matmul", {a, b, Int(flags)}, {out_sinfo});
  return Replacement::Chain(chain, value);
}

}  // namespace rxt::legalize_library
