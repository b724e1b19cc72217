// Losses and optimizers by name (transform/training/training_components.h).
#include "rxt/transform/training/training_components.h"

#include "rxt/support/message_text.h"

namespace rxt {

Function MakeLossFunction(const LossSpec& loss, const StructInfo& prediction, const TrainingProvider* provider) {
  return (provider != nullptr ? *provider : DefaultTrainingProvider()).BuildLoss(loss.name, loss.options, prediction);
}

OptimizerInstance MakeOptimizer(const OptimizerSpec& optimizer, const std::vector<StructInfo>& params,
                                const TrainingProvider* provider) {
  OptimizerFunction built = (provider != nullptr ? *provider : DefaultTrainingProvider())
                                .BuildOptimizer(optimizer.name, optimizer.options, params);
  OptimizerInstance out;
  out.function = built.function;
  for (const OptimizerStateSpec& s : built.states) out.state_names.push_back(s.name);
  try {
    out.state = InitialOptimizerState(built.states);
  } catch (const Error& e) {
    Throw(e.code(), built.origin, ": ", e.what());
  }
  return out;
}

std::vector<Tensor> InitialOptimizerState(const std::vector<OptimizerStateSpec>& states) {
  std::vector<Tensor> out;
  for (const OptimizerStateSpec& s : states) {
    const auto* t = s.sinfo->As<TensorSINode>();
    if (t == nullptr || !t->IsStatic() || t->dtype == DType::kUnknown) {
      Throw(ErrorCode::kInvalidArgument, "optimizer state '", s.name, "' must be a tensor of static shape and known dtype, got ",
            ToString(s.sinfo));
    }
    Tensor value = Tensor::Empty(t->StaticShape(), t->dtype);
    for (int64_t i = 0; i < value.numel(); ++i) value.SetFromDouble(i, s.init);
    out.push_back(std::move(value));
  }
  return out;
}

}  // namespace rxt
