/// FoldBatchNorm: a batch normalization at inference (nn.batch_norm, training=false) of a
/// convolution's output, where the convolution's weights and the normalization's parameters are
/// constants (a trained model's weights bound with BindParams), goes into the convolution:
///
///   y = nn.batch_norm(nn.conv2d(x, W), gamma, beta, mean, var)[0]
///     ->  y = add(nn.conv2d(x, W * s), beta - mean * s)   s = gamma / sqrt(var + epsilon),
///                                                          per output channel
///
/// The new weights and bias are computed here, in double precision, and stored in the weights'
/// dtype. The normalization's pass over the activations goes; a kernel library takes the add as
/// the convolution's bias (lib_dnnl: with the ReLU after it as a post-op). Only where the
/// convolution's result is read by the normalization alone and only the normalized tensor
/// (field 0, read once) is read; anything else stays as it is. A module without constant
/// weights (a training step) is returned unchanged.
#include <cmath>
#include <unordered_set>

#include "../../op/nn_window.h"
#include "transform/analysis/var_uses.h"
#include "rxt/ir/mutator.h"
#include "rxt/ir/op.h"
#include "rxt/transform/passes.h"

namespace rxt {
namespace {

const CallNode* AsOpCall(const Expr& e, const char* name) {
  const auto* call = e ? e->As<CallNode>() : nullptr;
  const OpDef* op = call ? AsOp(call->callee) : nullptr;
  return op != nullptr && op->name() == name ? call : nullptr;
}

/// A float32 or float64 constant's tensor, or null.
const Tensor* FloatConstant(const Expr& e) {
  const auto* c = e ? e->As<ConstantNode>() : nullptr;
  if (c == nullptr || (c->data.dtype() != DType::kFloat32 && c->data.dtype() != DType::kFloat64)) return nullptr;
  return &c->data;
}

/// One fold: the convolution binding gets |weight|, the normalization goes, and the binding of
/// its field 0 becomes the convolution plus |bias| (shaped to broadcast over the channel axis).
struct Fold {
  Var conv;
  const VarNode* norm;
  Tensor weight, bias;
};

/// The fold of the normalization |norm_var| = |norm|, whose field 0 is read once, or nullopt.
std::optional<Fold> PlanFold(const Var& norm_var, const CallNode& norm, const VarUses& uses,
                             const std::unordered_map<const VarNode*, Expr>& values) {
  const AttrValue* training = norm.attrs.Find("training");
  if (training == nullptr || !training->is<bool>() || training->get<bool>()) return std::nullopt;
  const Expr& conv_var = norm.args[0];
  if (UsesOf(uses, conv_var) != 1 || UsesOf(uses, norm_var) != 1) return std::nullopt;
  auto value = values.find(static_cast<const VarNode*>(conv_var.get()));
  const CallNode* conv = value == values.end() ? nullptr : AsOpCall(value->second, "nn.conv2d");
  if (conv == nullptr) return std::nullopt;
  const Tensor* weight = FloatConstant(conv->args[1]);
  if (weight == nullptr || weight->ndim() != 4) return std::nullopt;
  const AttrValue* out_dtype = conv->attrs.Find("out_dtype");
  if (out_dtype != nullptr && out_dtype->is<DType>() && out_dtype->get<DType>() != DType::kUnknown &&
      out_dtype->get<DType>() != weight->dtype()) {
    return std::nullopt;
  }
  infer::Layout2D data = infer::LayoutAttr(*conv, "data_layout", {"NCHW", "NHWC"});
  infer::Layout2D kernel = infer::LayoutAttr(*conv, "kernel_layout", {"OIHW", "HWIO"});
  const AttrValue* axis = norm.attrs.Find("axis");
  const AttrValue* epsilon = norm.attrs.Find("epsilon");
  if (axis == nullptr || !axis->is<int64_t>() || epsilon == nullptr || !epsilon->is<double>()) return std::nullopt;
  int64_t channel_axis = axis->get<int64_t>() < 0 ? axis->get<int64_t>() + 4 : axis->get<int64_t>();
  if (channel_axis != data.c) return std::nullopt;
  int64_t channels = weight->shape()[kernel.n];
  std::vector<const Tensor*> stats;  // gamma, beta, mean, var
  for (int i = 1; i <= 4; ++i) {
    const Tensor* t = FloatConstant(norm.args[i]);
    if (t == nullptr || t->dtype() != weight->dtype() || t->ndim() != 1 || t->shape()[0] != channels) {
      return std::nullopt;
    }
    stats.push_back(t);
  }
  std::vector<double> scale(channels);
  std::vector<int64_t> bias_shape(4, 1);
  bias_shape[data.c] = channels;
  Fold fold{std::static_pointer_cast<const VarNode>(conv_var), norm_var.get(), Tensor::Empty(weight->shape(), weight->dtype()),
            Tensor::Empty(bias_shape, weight->dtype())};
  for (int64_t o = 0; o < channels; ++o) {
    scale[o] = stats[0]->GetAsDouble(o) / std::sqrt(stats[3]->GetAsDouble(o) + epsilon->get<double>());
    fold.bias.SetFromDouble(o, stats[1]->GetAsDouble(o) - stats[2]->GetAsDouble(o) * scale[o]);
  }
  // Element i of the weights belongs to output channel (i / inner) % channels.
  int64_t inner = 1;
  for (int d = kernel.n + 1; d < 4; ++d) inner *= weight->shape()[d];
  for (int64_t i = 0, n = weight->numel(); i < n; ++i) {
    fold.weight.SetFromDouble(i, weight->GetAsDouble(i) * scale[(i / inner) % channels]);
  }
  return fold;
}

class BatchNormFolder : public ExprMutator {
 public:
  BatchNormFolder(const IRModule& module, const FunctionNode& function) : ExprMutator(&module) {
    VarUses uses = CountVarUses(function);
    std::unordered_map<const VarNode*, Expr> values;
    for (const BindingBlock& block : function.body->blocks) {
      for (const Binding& b : block.bindings) {
        if (b.is_match_cast()) continue;
        values[b.var.get()] = b.value;
        const auto* item = b.value->As<TupleGetItemNode>();
        if (item == nullptr || item->index != 0 || item->tuple->kind != ExprKind::kVar) continue;
        auto norm = values.find(static_cast<const VarNode*>(item->tuple.get()));
        const CallNode* call = norm == values.end() ? nullptr : AsOpCall(norm->second, "nn.batch_norm");
        if (call == nullptr) continue;
        if (std::optional<Fold> fold = PlanFold(std::static_pointer_cast<const VarNode>(item->tuple), *call, uses, values)) {
          normalized_[b.var.get()] = folds_.size();
          folds_.push_back(std::move(*fold));
        }
      }
    }
    for (size_t i = 0; i < folds_.size(); ++i) {
      convs_[folds_[i].conv.get()] = i;
      norms_.insert(folds_[i].norm);
    }
  }

  void VisitBinding(const Binding& binding) override {
    const VarNode* var = binding.var.get();
    if (norms_.count(var)) return;  // its one reader, the field 0 binding, no longer needs it
    if (auto it = convs_.find(var); it != convs_.end()) {
      const auto& conv = *binding.value->As<CallNode>();
      Expr data = VisitExpr(conv.args[0]);
      ReEmitBinding(binding, builder_.Normalize(MakeCall(conv.callee, {data, MakeConstant(folds_[it->second].weight)},
                                                         conv.attrs)));
      return;
    }
    if (auto it = normalized_.find(var); it != normalized_.end()) {
      const Fold& fold = folds_[it->second];
      Expr sum = MakeOpCall("add", {VisitVar(fold.conv), MakeConstant(fold.bias)});
      ReEmitBinding(binding, builder_.Normalize(sum));
      return;
    }
    ExprMutator::VisitBinding(binding);
  }

  bool changed() const { return !folds_.empty(); }

 private:
  std::vector<Fold> folds_;
  std::unordered_map<const VarNode*, size_t> convs_, normalized_;
  std::unordered_set<const VarNode*> norms_;
};

}  // namespace

Pass FoldBatchNorm() {
  return CreateModulePass(
      [](IRModule module) {
        for (size_t i = 0; i < module.entries().size(); ++i) {
          const IRModule::Entry entry = module.entries()[i];
          if (!entry.function) continue;
          BatchNormFolder folder(module, *entry.function);
          if (!folder.changed()) continue;
          module.Add(entry.name, folder.VisitFunction(entry.function));
        }
        return module;
      },
      "FoldBatchNorm");
}

}  // namespace rxt
