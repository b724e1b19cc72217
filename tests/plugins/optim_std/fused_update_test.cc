// Every optimizer's update built with fusion (opt_level 2: FuseOps with multi-output groups,
// FuseKernels) gives, bit for bit, the results of the unfused build over the golden cases'
// steps (the state carried from step to step); Adam and momentum SGD become one kernel per
// parameter that writes the new parameter and its state.
#include <gtest/gtest.h>

#include "rxt/exec/build.h"
#include "rxt/ir/printer.h"
#include "rxt/ir/op.h"
#include "rxt/transform/training/training_components.h"
#include "golden_optimizer.h"
#include "test_util/golden_json.h"
#include "test_util/training_plugins.h"

namespace rxt {
namespace {

using nlohmann::json;

std::vector<json> GoldenCases() {
  std::vector<json> cases;
  json golden = test::ReadGolden("optimizers.json");
  for (const json& c : golden.at("cases")) cases.push_back(c);
  return cases;
}

/// The largest output count of the call_kernels of |function| in |module|.
size_t MostKernelOutputs(const IRModule& module, const std::string& function) {
  size_t most = 0;
  for (const BindingBlock& block : module.FindFunction(function)->body->blocks) {
    for (const Binding& binding : block.bindings) {
      const auto* call = binding.value->As<CallNode>();
      const OpDef* op = call ? AsOp(call->callee) : nullptr;
      if (op != nullptr && op->name() == "call_kernel") most = std::max(most, call->sinfo_args.size());
    }
  }
  return most;
}

bool SameBits(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape() || a.dtype() != b.dtype()) return false;
  for (int64_t i = 0; i < a.numel(); ++i) {
    double x = a.GetAsDouble(i), y = b.GetAsDouble(i);
    if (x != y && !(std::isnan(x) && std::isnan(y))) return false;
  }
  return true;
}

class FusedOptimizerUpdate : public ::testing::TestWithParam<json> {};

TEST_P(FusedOptimizerUpdate, EqualsTheUnfusedUpdate) {
  const json& c = GetParam();
  test::GoldenOptimizer golden = test::BuildGoldenOptimizer(c);
  std::vector<Value> params = golden.params;
  const OptimizerInstance& opt = golden.opt;
  const IRModule& module = golden.module;

  const std::string name = c.at("name");
  if (name == "adam" || name == "momentum") {
    IRModule lowered = LowerForBuild(module, {.backend = "reference", .opt_level = 2});
    // Adam writes p', m', v' (momentum: p', v') in one kernel.
    EXPECT_EQ(MostKernelOutputs(lowered, "optimizer"), name == "adam" ? 3u : 2u) << PrintModule(lowered);
  }

  test::ReferenceVM unfused(module, 0), fused(module, 2);
  std::vector<Value> state(opt.state.begin(), opt.state.end()), fused_state = state;
  std::vector<Value> fused_params = params;
  for (size_t step = 0; step < c.at("expected").size(); ++step) {
    std::vector<Value> grads = test::GoldenTensors(c.at("grads")[step]);
    Value a = unfused.Invoke("optimizer", {Value::Tuple(params), Value::Tuple(grads), Value::Tuple(state)});
    Value b = fused.Invoke("optimizer", {Value::Tuple(fused_params), Value::Tuple(grads), Value::Tuple(fused_state)});
    params = a.tuple()[0].tuple();
    state = a.tuple()[1].tuple();
    fused_params = b.tuple()[0].tuple();
    fused_state = b.tuple()[1].tuple();
    for (size_t i = 0; i < params.size(); ++i) {
      EXPECT_TRUE(SameBits(params[i].tensor(), fused_params[i].tensor())) << "param " << i << " after step " << step + 1;
    }
    for (size_t i = 0; i < state.size(); ++i) {
      EXPECT_TRUE(SameBits(state[i].tensor(), fused_state[i].tensor())) << "state " << i << " after step " << step + 1;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(OptimStd, FusedOptimizerUpdate, ::testing::ValuesIn(GoldenCases()),
                         [](const ::testing::TestParamInfo<json>& info) { return info.param.at("name").get<std::string>(); });

}  // namespace
}  // namespace rxt
