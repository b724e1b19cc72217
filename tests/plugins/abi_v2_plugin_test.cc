// A plugin of ABI version 2 (fixtures/abi_v2/abi_v2_plugin.c, compiled against the frozen
// version-2 header) loaded by this host: every kind of item it provides still runs, and its
// failures come back with the codes and messages hosts of version 2 gave.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rxt/ir/builder.h"
#include "rxt/ir/equality.h"
#include "rxt/ir/op.h"
#include "rxt/ir/parser.h"
#include "rxt/ir/printer.h"
#include "rxt/ir/struct_info.h"
#include "rxt/plugin/ir_generators.h"
#include "rxt/plugin/kernel_library_emitter.h"
#include "rxt/plugin/plugin_host.h"
#include "rxt/plugin/plugin_kernel_provider.h"
#include "rxt/runtime/dlpack.h"
#include "rxt/runtime/executable.h"
#include "rxt/runtime/extern.h"
#include "rxt/runtime/tensor.h"

namespace rxt {
namespace {

class AbiV2Plugin : public testing::Test {
 protected:
  // One host for the whole suite: the plugin's extern function is registered once per process.
  static void SetUpTestSuite() {
    host_ = new PluginHost();
    info_ = host_->Load(std::string(RXT_TEST_PLUGIN_DIR) + "/abi_v2/test_abi_v2.so");
  }
  static void TearDownTestSuite() {
    delete host_;
    host_ = nullptr;
  }
  static PluginItem Item(PluginItemKind kind, const std::string& name) {
    std::optional<PluginItem> item = host_->Find(kind, name);
    EXPECT_TRUE(item.has_value()) << name;
    return item.value_or(PluginItem{});
  }
  /// The code and message of what |body| throws.
  template <typename Body>
  static Error ErrorOf(Body body) {
    try {
      body();
    } catch (const Error& e) {
      return e;
    }
    ADD_FAILURE() << "expected an error";
    return Error(ErrorCode::kOk, "");
  }

  static PluginHost* host_;
  static PluginInfo info_;
};
PluginHost* AbiV2Plugin::host_ = nullptr;
PluginInfo AbiV2Plugin::info_;

TEST_F(AbiV2Plugin, LoadsWithEverythingItProvides) {
  EXPECT_EQ(info_.name, "test_abi_v2");
  EXPECT_EQ(info_.abi_version, 2u);
  EXPECT_EQ(info_.items[size_t(PluginItemKind::kOptimizer)], (std::vector<std::string>{"test_v2_sgd"}));
  EXPECT_EQ(info_.items[size_t(PluginItemKind::kLoss)], (std::vector<std::string>{"test_v2_sse"}));
  EXPECT_EQ(info_.items[size_t(PluginItemKind::kGradient)],
            (std::vector<std::string>{"tanh", "sigmoid", "negative"}));
  EXPECT_EQ(info_.items[size_t(PluginItemKind::kBackend)],
            (std::vector<std::string>{"test_v2_double", "test_v2_named"}));
  EXPECT_EQ(Item(PluginItemKind::kBackend, "test_v2_double").summary, "doubles its input");
}

TEST_F(AbiV2Plugin, ItsGradientRuleBuildsTheAdjoint) {
  Var x = MakeVar("x", TensorSI(std::vector<int64_t>{2, 3}, DType::kFloat32));
  BlockBuilder builder;
  builder.BeginDataflowBlock();
  Expr call = builder.Normalize(MakeOpCall("tanh", {x}));
  Var z = builder.Emit(call, "z");
  Var dz = builder.Emit(MakeOpCall("ones_like", {z}), "dz");
  std::vector<Expr> grads = CallGradientRule(Item(PluginItemKind::kGradient, "tanh"), builder, call, z, dz);
  ASSERT_EQ(grads.size(), 1u);
  EXPECT_EQ(ToString(GetStructInfo(grads[0])), "Tensor((2, 3), float32)");
  BindingBlock block = builder.EndBlock();
  ASSERT_GE(block.bindings.size(), 3u);
  std::vector<std::string> values;
  for (size_t i = block.bindings.size() - 3; i < block.bindings.size(); ++i) {
    values.push_back(PrintExpr(block.bindings[i].value));
  }
  EXPECT_EQ(values, (std::vector<std::string>{"multiply(%z, %z)", "subtract(const(1, float32), %lv)",
                                              "multiply(%dz, %lv)"}));  // dz * (1 - z*z)
}

TEST_F(AbiV2Plugin, ItsRuleFailuresAreReportedAsBefore) {
  Var x = MakeVar("x", TensorSI(std::vector<int64_t>{2}, DType::kFloat32));
  BlockBuilder builder;
  builder.BeginDataflowBlock();
  for (const char* op : {"sigmoid", "negative"}) {
    Expr call = builder.Normalize(MakeOpCall(op, {x}));
    Var z = builder.Emit(call, "z");
    Error e = ErrorOf([&] { CallGradientRule(Item(PluginItemKind::kGradient, op), builder, call, z, z); });
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument) << e.what();
    std::string expected = std::string(op) == "sigmoid"
                               ? "gradient rule 'sigmoid' (plugin test_abi_v2): the version-2 sigmoid rule always fails"
                               : "gradient rule 'negative' (plugin test_abi_v2): failed with unimplemented without a "
                                 "message";
    EXPECT_EQ(std::string(e.what()), expected);
  }
}

TEST_F(AbiV2Plugin, ItsLossAndOptimizerBuildTheirFunctions) {
  std::map<std::string, PrimVar> symbols;
  StructInfo prediction = ParseStructInfo("Tensor((n, 4), float32)", &symbols);
  IRModule m;
  m.Add("loss", BuildLossFunction(Item(PluginItemKind::kLoss, "test_v2_sse"), "", prediction));
  OptimizerFunction opt = BuildOptimizerFunction(Item(PluginItemKind::kOptimizer, "test_v2_sgd"), "lr=0.25",
                                                 {TensorSI(std::vector<int64_t>{3}, DType::kFloat32)});
  m.Add("optimizer", opt.function);
  IRModule expected = ParseModule(R"(
def @loss(%predictions: Tensor((n, 4), float32), %targets: Tensor((n, 4), float32)) -> Tensor((), float32) {
  dataflow {
    %lv: Tensor((n, 4), float32) = subtract(%predictions, %targets)
    %lv1: Tensor((n, 4), float32) = multiply(%lv, %lv)
    %loss: Tensor((), float32) = sum(%lv1)
    output %loss
  }
  return %loss
}
def @optimizer(%params: Tuple(Tensor((3,), float32)), %gradients: Tuple(Tensor((3,), float32)),
               %optim_states: Tuple(Tensor((), float32)))
    -> Tuple(Tuple(Tensor((3,), float32)), Tuple(Tensor((), float32))) {
  dataflow {
    %lr: Tensor((), float32) = %optim_states[0]
    %param: Tensor((3,), float32) = %params[0]
    %grad: Tensor((3,), float32) = %gradients[0]
    %lv: Tensor((3,), float32) = multiply(%lr, %grad)
    %lv1: Tensor((3,), float32) = subtract(%param, %lv)
    %result = ((%lv1,), (%lr,))
    output %result
  }
  return %result
})");
  EXPECT_TRUE(StructuralEqual(m, expected)) << PrintModule(m);
  ASSERT_EQ(opt.states.size(), 1u);
  EXPECT_DOUBLE_EQ(opt.states[0].init, 0.25);
  Error e = ErrorOf([&] {
    BuildOptimizerFunction(Item(PluginItemKind::kOptimizer, "test_v2_sgd"), "lr=\"fast\"",
                           {TensorSI(std::vector<int64_t>{3}, DType::kFloat32)});
  });
  EXPECT_EQ(std::string(e.what()), "optimizer 'test_v2_sgd' (plugin test_abi_v2): option 'lr' must be a float, got string");
}

TEST_F(AbiV2Plugin, ItsBackendRunsKernels) {
  PluginKernelProvider provider = PluginKernelProvider::Find("test_v2_double", *host_);
  std::unique_ptr<Kernel> kernel = provider.Load({.name = "k", .portable = {1, 2, 3}});
  Tensor x = Tensor::FromVector<float>({3}, DType::kFloat32, {1, -2, 4});
  Tensor y = Tensor::Empty({3}, DType::kFloat32);
  DLTensor views[2] = {ToDLTensorView(x), ToDLTensorView(y)};
  DLTensor* args[2] = {&views[0], &views[1]};
  kernel->Call(args, 2);
  EXPECT_EQ(std::vector<float>(y.data_as<float>(), y.data_as<float>() + 3), (std::vector<float>{2, -4, 8}));

  Error call = ErrorOf([&] { kernel->Call(args, 1); });
  EXPECT_EQ(call.code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(std::string(call.what()), "backend 'test_v2_double': kernel 'k': takes 2 arguments, got 1");
  Error load = ErrorOf([&] { provider.Load({.name = "e", .portable = {}}); });
  EXPECT_EQ(load.code(), ErrorCode::kDataLoss);
  EXPECT_EQ(std::string(load.what()), "backend 'test_v2_double': kernel 'e': empty kernel");

  Executable exec;
  exec.backend = "test_v2_double";
  exec.kernels.push_back({.name = "k", .portable = {1, 2, 3}});
  Error emit = ErrorOf([&] { EmitKernelLibrary(exec, "kernels.so", *host_); });
  EXPECT_EQ(emit.code(), ErrorCode::kUnimplemented);
  EXPECT_EQ(std::string(emit.what()),
            "backend 'test_v2_double': cannot build the kernel library 'kernels.so': test_v2_double compiles nothing "
            "ahead of time");
  // Version 2 had no way to name another machine.
  Error other = ErrorOf([&] { EmitKernelLibrary(exec, "kernels.so", *host_, {.triple = "aarch64-linux-gnu"}); });
  EXPECT_EQ(other.code(), ErrorCode::kFailedPrecondition);
  EXPECT_EQ(std::string(other.what()),
            "backend 'test_v2_double' cannot compile kernels for another machine (aarch64-linux-gnu): its plugin offers "
            "no emit_library_for");
}

TEST_F(AbiV2Plugin, ABackendKnownByNameOnlyCannotRunKernels) {
  Error e = ErrorOf([&] { PluginKernelProvider::Find("test_v2_named", *host_); });
  EXPECT_EQ(e.code(), ErrorCode::kFailedPrecondition);
  EXPECT_EQ(std::string(e.what()),
            "backend 'test_v2_named' (plugin 'test_abi_v2') cannot run kernels: the plugin gives no rxt_backend_t");
}

TEST_F(AbiV2Plugin, ItsExternFunctionRuns) {
  ExternFunction triple = host_->externs().Find("test_v2.triple");
  ASSERT_TRUE(triple);
  Tensor x = Tensor::FromVector<float>({2}, DType::kFloat32, {1, -3});
  Tensor y = Tensor::Empty({2}, DType::kFloat32);
  DLTensor views[2] = {ToDLTensorView(x), ToDLTensorView(y)};
  DLTensor* args[2] = {&views[0], &views[1]};
  triple(args, 2);
  EXPECT_EQ(y.data_as<float>()[1], -9.0f);
  Error e = ErrorOf([&] { triple(args, 1); });
  EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(std::string(e.what()).find("takes 2 arguments, got 1"), std::string::npos) << e.what();
}

}  // namespace
}  // namespace rxt
