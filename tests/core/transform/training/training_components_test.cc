// Losses and optimizers by name (core/src/transform/training_components.cc), with the test
// fixtures' loss and optimizer (tests/plugins/fixtures/ir_generators.c) in a host of the tests'
// own. The standard plugins' numbers are checked in tests/plugins/{loss_std,optim_std}.
#include "rxt/plugin/ir_generators.h"
#include "rxt/plugin/plugin_host.h"
#include "rxt/transform/training/training_components.h"

#include <gtest/gtest.h>

namespace rxt {
namespace {

const PluginHost& Fixtures() {
  static PluginHost* host = [] {
    auto* h = new PluginHost();
    h->Load(std::string(RXT_TEST_IR_PLUGIN_DIR) + "/test_ir_generators.so");
    return h;
  }();
  return *host;
}

TEST(TrainingComponents, LossAndOptimizerByName) {
  StructInfo prediction = TensorSI(std::vector<int64_t>{4, 2}, DType::kFloat32);
  Function loss = MakeLossFunction({"test_sse", "scale=0.5"}, prediction, &Fixtures());
  ASSERT_EQ(loss->params.size(), 2u);
  EXPECT_EQ(loss->params[0]->name, "predictions");
  EXPECT_EQ(ToString(loss->params[1]->struct_info), "Tensor((4, 2), float32)");

  OptimizerInstance sgd = MakeOptimizer({"test_sgd", "lr=0.25"}, {prediction}, &Fixtures());
  EXPECT_EQ(sgd.state_names, (std::vector<std::string>{"lr", "step"}));
  ASSERT_EQ(sgd.state.size(), 2u);
  EXPECT_EQ(sgd.state[0].GetAsDouble(0), 0.25);
  EXPECT_EQ(sgd.state[1].dtype(), DType::kInt64);
  EXPECT_EQ(sgd.function->params.size(), 3u);
}

TEST(TrainingComponents, UnknownNames) {
  auto error = [](PluginItemKind kind, const std::string& name, const PluginHost* host) {
    try {
      FindTrainingItem(kind, name, host);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kNotFound);
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error(PluginItemKind::kLoss, "mse", &Fixtures()), "no loss named 'mse' is loaded (known: test_sse)");
  EXPECT_EQ(error(PluginItemKind::kOptimizer, "adam", &Fixtures()),
            "no optimizer named 'adam' is loaded (known: test_sgd)");
  PluginHost empty;
  EXPECT_EQ(error(PluginItemKind::kOptimizer, "adam", &empty),
            "no optimizer named 'adam': no loaded plugin provides any optimizer (load one, e.g. rxt_optim_std, with "
            "--plugin or from RXT_PLUGIN_PATH)");
  // A name from the command line or the C ABI is escaped and shortened like any value in a message.
  EXPECT_EQ(error(PluginItemKind::kLoss, "sse\xff\n", &Fixtures()),
            "no loss named 'sse\\xff\\n' is loaded (known: test_sse)");
  EXPECT_LT(error(PluginItemKind::kLoss, std::string(100000, 'x'), &Fixtures()).size(), 400u);
  EXPECT_EQ(FindTrainingItem(PluginItemKind::kLoss, "test_sse", &Fixtures()).plugin, "test_ir_generators");
}

TEST(TrainingComponents, InitialStateNeedsStaticShapes) {
  std::vector<OptimizerStateSpec> states = {{"lr", TensorSI(std::vector<int64_t>{}, DType::kFloat32), 0.5},
                                            {"m.0", TensorSI(std::vector<int64_t>{2, 3}, DType::kFloat64), -1}};
  std::vector<Tensor> values = InitialOptimizerState(states);
  ASSERT_EQ(values.size(), 2u);
  EXPECT_EQ(values[0].GetAsDouble(0), 0.5);
  EXPECT_EQ(values[1].shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values[1].GetAsDouble(5), -1);
  states.push_back({"v.1", TensorSI(DType::kFloat32, 2), 0});
  try {
    InitialOptimizerState(states);
    FAIL() << "a state of unknown shape has no initial value";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "optimizer state 'v.1' must be a tensor of static shape and known dtype, got Tensor(ndim=2, float32)");
  }
}

}  // namespace
}  // namespace rxt
