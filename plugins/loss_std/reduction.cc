// The reduction shared by every loss, with PyTorch's meaning.
#include "losses.h"

namespace rxt::loss_std {

Reduction ReadReduction(Generator& g) {
  std::string name = g.String("reduction", "mean");
  if (name == "mean") return Reduction::kMean;
  if (name == "sum") return Reduction::kSum;
  if (name == "none") return Reduction::kNone;
  g.Fail("option 'reduction' must be \"mean\", \"sum\" or \"none\", got \"" + name + "\"");
}

const char* ReductionName(Reduction r) {
  switch (r) {
    case Reduction::kMean: return "mean";
    case Reduction::kSum: return "sum";
    case Reduction::kNone: return "none";
  }
  return "?";
}

Expr Reduce(Generator& g, Expr elements, Reduction r) {
  switch (r) {
    case Reduction::kMean: return g.Op("mean", {elements});
    case Reduction::kSum: return g.Op("sum", {elements});
    case Reduction::kNone: return elements;
  }
  return elements;
}

void RequireFloatPrediction(Generator& g, Expr prediction, int min_ndim) {
  int ndim = g.Ndim(prediction);
  if (!g.IsFloat(prediction) || ndim < 0) {
    g.Fail("the prediction must be a float tensor of known ndim, got " + g.StructInfoText(prediction));
  }
  if (ndim < min_ndim) {
    g.Fail("the prediction must have at least " + std::to_string(min_ndim) + " dim" + (min_ndim == 1 ? "" : "s") +
           " (a class dim), got " + g.StructInfoText(prediction));
  }
}

}  // namespace rxt::loss_std
