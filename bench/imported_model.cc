#include "imported_model.h"

#include <cmath>

#include "rxt/transform/passes.h"

namespace rxt::bench {

IRModule BindBatch(IRModule module, int64_t batch) {
  Function backbone = module.GetFunction("backbone");
  const auto* input = backbone->params.at(0)->struct_info->As<TensorSINode>();
  if (input != nullptr && input->shape && !input->shape->empty()) {
    if (const auto* symbol = (*input->shape)[0]->As<PrimVarNode>()) {
      return BindSymbolicVars("backbone", {{symbol->name, batch}})(module);
    }
  }
  return module;
}

Tensor RandomNormal(const std::vector<int64_t>& shape, Random& rng) {
  Tensor t = Tensor::Empty(shape, DType::kFloat32);
  for (int64_t i = 0; i < t.numel(); ++i) {
    double u = 1.0 - rng.NextDouble(), v = rng.NextDouble();
    t.data_as<float>()[i] = static_cast<float>(std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v));
  }
  return t;
}

}  // namespace rxt::bench
