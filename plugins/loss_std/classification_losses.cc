// Classification losses. Predictions are (N, C, d1, ..., dk) with the classes on axis 1, or
// (C,) for one sample, as in PyTorch:
//   cross_entropy              logits and class-index targets (N, d1, ..., dk) int64
//                              (torch.nn.CrossEntropyLoss): nll of log_softmax
//   nll                        log-probabilities and class-index targets (torch.nn.NLLLoss)
//   categorical_cross_entropy  logits and class-probability (e.g. one-hot) targets shaped like
//                              them (CrossEntropyLoss with probability targets)
//   bce_with_logits            logits and targets in [0, 1] of any shape, one binary decision
//                              per element (torch.nn.BCEWithLogitsLoss)
#include <string>
#include <vector>

#include "losses.h"

namespace rxt::loss_std {
namespace {

int ClassAxis(Generator& g, Expr prediction) { return g.Ndim(prediction) == 1 ? 0 : 1; }

/// The class-index targets of |prediction|: its shape without the class axis, int64.
Expr ClassIndexTargets(Generator& g, Expr prediction) {
  int ndim = g.Ndim(prediction);
  std::vector<int> axes;
  for (int axis = 0; axis < ndim; ++axis) {
    if (axis != ClassAxis(g, prediction)) axes.push_back(axis);
  }
  return g.Param("targets", g.TensorText(prediction, axes, "int64"));
}

/// Option |name| (a list of |length| numbers, one per class) as a constant of the prediction's
/// dtype shaped |shape|; null when absent.
Expr PerClassConstant(Generator& g, Expr prediction, const char* name, int64_t length, std::vector<int64_t> shape) {
  std::optional<std::vector<double>> values = g.Floats(name);
  if (!values) return nullptr;
  if (static_cast<int64_t>(values->size()) != length) {
    g.Fail("option '" + std::string(name) + "' must hold one number per class (" + std::to_string(length) + "), got " +
           std::to_string(values->size()));
  }
  return g.Constant(*values, shape, g.DType(prediction));
}

/// The number of classes (the class axis must be static when per-class options are given).
int64_t StaticClasses(Generator& g, Expr prediction, const char* option) {
  std::optional<int64_t> classes = g.Dim(prediction, ClassAxis(g, prediction));
  if (!classes) {
    g.Fail(std::string("option '") + option + "' needs a static number of classes, got " +
           g.StructInfoText(prediction));
  }
  return *classes;
}

/// nn.nll_loss of |log_probs| with the options of cross_entropy / nll.
Expr NllLoss(Generator& g, Expr log_probs, Expr prediction, Reduction reduction) {
  int64_t ignore_index = g.Int("ignore_index", -100);
  Expr targets = ClassIndexTargets(g, prediction);
  Expr weights = nullptr;
  if (g.Floats("weight")) {
    int64_t classes = StaticClasses(g, prediction, "weight");
    weights = PerClassConstant(g, prediction, "weight", classes, {classes});
  }
  std::string attrs = std::string("reduction=\"") + ReductionName(reduction) +
                      "\", ignore_index=" + std::to_string(ignore_index);
  return weights != nullptr ? g.Op("nn.nll_loss", {log_probs, targets, weights}, attrs)
                            : g.Op("nn.nll_loss", {log_probs, targets}, attrs);
}

void CrossEntropy(Generator& g, Expr prediction, Expr* loss) {
  g.CheckOptions({"reduction", "weight", "ignore_index"});
  Reduction reduction = ReadReduction(g);
  RequireFloatPrediction(g, prediction, 1);
  Expr log_probs = g.Op("log_softmax", {prediction}, "axis=" + std::to_string(ClassAxis(g, prediction)));
  *loss = NllLoss(g, log_probs, prediction, reduction);
}

void Nll(Generator& g, Expr prediction, Expr* loss) {
  g.CheckOptions({"reduction", "weight", "ignore_index"});
  Reduction reduction = ReadReduction(g);
  RequireFloatPrediction(g, prediction, 1);
  *loss = NllLoss(g, prediction, prediction, reduction);
}

// -sum_c w_c y_c log_softmax(x)_c per sample; "mean" averages over the samples (N d1 ... dk of
// them), as PyTorch does for probability targets.
void CategoricalCrossEntropy(Generator& g, Expr prediction, Expr* loss) {
  g.CheckOptions({"reduction", "weight"});
  Reduction reduction = ReadReduction(g);
  RequireFloatPrediction(g, prediction, 1);
  int ndim = g.Ndim(prediction), class_axis = ClassAxis(g, prediction);
  Expr targets = g.Param("targets", g.StructInfoText(prediction));
  Expr log_probs = g.Op("log_softmax", {prediction}, "axis=" + std::to_string(class_axis));
  Expr weighted = g.Mul(log_probs, targets);
  if (g.Floats("weight")) {
    int64_t classes = StaticClasses(g, prediction, "weight");
    std::vector<int64_t> shape = {classes};
    for (int axis = 2; axis < ndim; ++axis) shape.push_back(1);  // broadcast along d1..dk
    weighted = g.Mul(weighted, PerClassConstant(g, prediction, "weight", classes, shape));
  }
  Expr per_sample = g.Neg(g.Op("sum", {weighted}, "axis=[" + std::to_string(class_axis) + "]"));
  *loss = Reduce(g, per_sample, reduction);
}

/// Option |name| for bce_with_logits: one number (a 0-d constant) or one per element of the
/// last axis; null when absent.
Expr LastAxisConstant(Generator& g, Expr prediction, const char* name) {
  std::optional<std::vector<double>> values = g.Floats(name);
  if (!values) return nullptr;
  if (values->size() == 1) return g.ScalarLike((*values)[0], prediction);
  int ndim = g.Ndim(prediction);
  std::optional<int64_t> last = ndim > 0 ? g.Dim(prediction, ndim - 1) : std::nullopt;
  if (!last || static_cast<int64_t>(values->size()) != *last) {
    g.Fail("option '" + std::string(name) + "' must hold 1 number or one per element of the last axis of " +
           g.StructInfoText(prediction) + ", got " + std::to_string(values->size()));
  }
  return g.Constant(*values, {*last}, g.DType(prediction));
}

// PyTorch's stable form: with m = max(-x, 0), log(1 + e^-x) = m + log(e^-m + e^(-x-m)), and
//   loss = (1 - y) x + (1 + (pos_weight - 1) y) log(1 + e^-x), times weight.
void BceWithLogits(Generator& g, Expr prediction, Expr* loss) {
  g.CheckOptions({"reduction", "weight", "pos_weight"});
  Reduction reduction = ReadReduction(g);
  RequireFloatPrediction(g, prediction, 0);
  Expr x = prediction;
  Expr y = g.Param("targets", g.StructInfoText(prediction));
  Expr weight = LastAxisConstant(g, prediction, "weight");
  Expr pos_weight = LastAxisConstant(g, prediction, "pos_weight");
  Expr one = g.ScalarLike(1, x);
  Expr neg_x = g.Neg(x);
  Expr m = g.Op("maximum", {neg_x, g.ScalarLike(0, x)});
  Expr exp_neg_m = g.Op("exp", {g.Neg(m)});
  Expr softplus_neg_x = g.Add(m, g.Op("log", {g.Add(exp_neg_m, g.Op("exp", {g.Sub(neg_x, m)}))}));
  if (pos_weight != nullptr) {
    Expr log_weight = g.Add(g.Mul(g.Sub(pos_weight, one), y), one);
    softplus_neg_x = g.Mul(log_weight, softplus_neg_x);
  }
  Expr elements = g.Add(g.Mul(g.Sub(one, y), x), softplus_neg_x);
  if (weight != nullptr) elements = g.Mul(elements, weight);
  *loss = Reduce(g, elements, reduction);
}

const rxt_loss_t kLosses[] = {
    RXT_LOSS("cross_entropy",
             "log_softmax + nll of class-index targets (torch.nn.CrossEntropyLoss); options: reduction, "
             "weight=[per class], ignore_index=-100",
             CrossEntropy),
    RXT_LOSS("categorical_cross_entropy",
             "cross entropy of class-probability (one-hot) targets; options: reduction, weight=[per class]",
             CategoricalCrossEntropy),
    RXT_LOSS("nll",
             "negative log-likelihood of log-probabilities (torch.nn.NLLLoss); options: reduction, "
             "weight=[per class], ignore_index=-100",
             Nll),
    RXT_LOSS("bce_with_logits",
             "sigmoid + binary cross entropy per element (torch.nn.BCEWithLogitsLoss); options: reduction, "
             "weight, pos_weight (one number or one per element of the last axis)",
             BceWithLogits),
};

}  // namespace

std::span<const rxt_loss_t> ClassificationLosses() { return kLosses; }

}  // namespace rxt::loss_std
