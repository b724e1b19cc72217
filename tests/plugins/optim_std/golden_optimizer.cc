#include "golden_optimizer.h"

#include "test_util/golden_json.h"
#include "test_util/training_plugins.h"

namespace rxt::test {

std::vector<Value> GoldenTensors(const nlohmann::json& list) {
  std::vector<Value> out;
  for (const nlohmann::json& t : list) out.emplace_back(GoldenTensor(t));
  return out;
}

GoldenOptimizer BuildGoldenOptimizer(const nlohmann::json& c) {
  std::vector<Value> params = GoldenTensors(c.at("params"));
  std::vector<StructInfo> sinfos;
  for (const Value& p : params) sinfos.push_back(TensorSI(p.tensor().shape(), p.tensor().dtype()));
  OptimizerInstance opt = MakeOptimizer({c.at("optimizer"), c.at("options")}, sinfos, &TrainingPlugins());
  IRModule module;
  module.Add("optimizer", opt.function);
  return {std::move(params), std::move(opt), std::move(module)};
}

}  // namespace rxt::test
