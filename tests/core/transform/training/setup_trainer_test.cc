// SetupTrainer (core/src/transform/setup_trainer.cc, trainer_backbone.cc, trainer_functions.cc):
// the trainer module's functions, signatures and attributes, and every invalid backbone or
// setup. The loss, optimizer and gradient rules are the test fixtures' (test_sse, test_sgd,
// tests/plugins/fixtures/{ir_generators,grad_rules}.c) in a host of the tests' own; numeric
// checks with the standard plugins are in tests/core/transform/training (seed_step, convergence, standard_plugins).
#include "rxt/plugin/plugin_host.h"
#include "rxt/transform/training/setup_trainer.h"

#include <gtest/gtest.h>

#include "rxt/ir/equality.h"
#include "rxt/ir/parser.h"
#include "rxt/ir/printer.h"
#include "rxt/ir/well_formed.h"

namespace rxt {
namespace {

const PluginHost& Fixtures() {
  static PluginHost* host = [] {
    auto* h = new PluginHost();
    h->Load(std::string(RXT_TEST_IR_PLUGIN_DIR) + "/test_grad_rules.so");
    h->Load(std::string(RXT_TEST_IR_PLUGIN_DIR) + "/test_ir_generators.so");
    return h;
  }();
  return *host;
}

TrainerSetup FixtureSetup(std::string loss_options = "", std::string optimizer_options = "lr=0.5") {
  return {.loss = {"test_sse", std::move(loss_options)},
          .optimizer = {"test_sgd", std::move(optimizer_options)},
          .legalize = false,
          .plugins = &Fixtures()};
}

const char* kMlp = R"(
attributes {param_num = 2, state_num = 0}
def @backbone(%x: Tensor((n, 4), float32), %w: Tensor((4, 3), float32), %b: Tensor((3,), float32))
    -> Tensor((n, 3), float32) {
  dataflow {
    %lv0 = matmul(%x, %w)
    %lv1 = add(%lv0, %b)
    %out = nn.relu(%lv1)
    output %out
  }
  return %out
})";

std::vector<std::string> FunctionNames(const IRModule& m) {
  std::vector<std::string> names;
  for (const IRModule::Entry& e : m.entries()) {
    if (e.function != nullptr) names.push_back(e.name);
  }
  return names;
}

std::string Signature(const Function& f) { return PrintStructInfo(f->Signature()); }

TEST(SetupTrainer, TheTrainerModuleContract) {
  IRModule backbone = ParseModule(kMlp);
  IRModule m = SetupTrainer(backbone, FixtureSetup());
  ASSERT_NO_THROW(VerifyWellFormed(m));
  EXPECT_EQ(FunctionNames(m), (std::vector<std::string>{"backbone", "backbone_loss", "backbone_loss_adjoint",
                                                        "optimizer", "predict", "train_step"}));
  EXPECT_TRUE(StructuralEqual(m.GetFunction("backbone"), backbone.GetFunction("backbone")));
  const char* w = "Tensor((4, 3), float32)";
  const char* b = "Tensor((3,), float32)";
  const char* x = "Tensor((n, 4), float32)";
  const char* y = "Tensor((n, 3), float32)";
  const char* scalar = "Tensor((), float32)";
  const char* step = "Tensor((), int64)";
  EXPECT_EQ(Signature(m.GetFunction("backbone_loss")), StrCat("Func((", x, ", ", w, ", ", b, ", ", y, ") -> ", scalar, ")"));
  EXPECT_EQ(Signature(m.GetFunction("backbone_loss_adjoint")),
            StrCat("Func((", x, ", ", w, ", ", b, ", ", y, ") -> Tuple(", scalar, ", Tuple(", w, ", ", b, ")))"));
  EXPECT_EQ(Signature(m.GetFunction("optimizer")),
            StrCat("Func((Tuple(", w, ", ", b, "), Tuple(", w, ", ", b, "), Tuple(", scalar, ", ", step, ")) -> Tuple(Tuple(",
                   w, ", ", b, "), Tuple(", scalar, ", ", step, ")))"));
  EXPECT_EQ(Signature(m.GetFunction("predict")), StrCat("Func((", x, ", ", w, ", ", b, ") -> ", y, ")"));
  // train_step(inputs, targets, params, states, optim_states) -> (loss, params', states', optim_states')
  EXPECT_EQ(Signature(m.GetFunction("train_step")),
            StrCat("Func((", x, ", ", y, ", ", w, ", ", b, ", ", scalar, ", ", step, ") -> Tuple(", scalar, ", ", w, ", ", b,
                   ", ", scalar, ", ", step, "))"));
  std::vector<std::string> names;
  for (const Var& p : m.GetFunction("train_step")->params) names.push_back(p->name);
  EXPECT_EQ(names, (std::vector<std::string>{"x", "targets", "w", "b", "optim_lr", "optim_step"}));

  EXPECT_EQ(m.attrs.Get("input_num").get<int64_t>(), 1);
  EXPECT_EQ(m.attrs.Get("param_num").get<int64_t>(), 2);
  EXPECT_EQ(m.attrs.Get("state_num").get<int64_t>(), 0);
  EXPECT_EQ(m.attrs.Get("target_num").get<int64_t>(), 1);
  EXPECT_EQ(m.attrs.Get("output_num").get<int64_t>(), 1);
  const AttrArray& state = m.attrs.Get("optim_state").get<AttrArray>();
  ASSERT_EQ(state.size(), 2u);
  EXPECT_EQ(state[0].get<Tensor>().GetAsDouble(0), 0.5);  // lr from the options
  EXPECT_EQ(state[1].get<Tensor>().dtype(), DType::kInt64);
  const AttrArray& names_attr = m.attrs.Get("optim_state_names").get<AttrArray>();
  ASSERT_EQ(names_attr.size(), 2u);
  EXPECT_EQ(names_attr[0].get<std::string>(), "lr");
  EXPECT_EQ(names_attr[1].get<std::string>(), "step");

  // train_step holds the whole step: no call to another function of the module.
  std::string step_text = PrintFunction(m.GetFunction("train_step"), "train_step");
  EXPECT_EQ(step_text.find("@backbone"), std::string::npos) << step_text;
  EXPECT_EQ(step_text.find("@optimizer"), std::string::npos) << step_text;
  EXPECT_NE(step_text.find("matmul"), std::string::npos);
  // The trainer module prints and parses back (attributes with tensors included).
  EXPECT_TRUE(StructuralEqual(ParseModule(PrintModule(m)), m));
}

TEST(SetupTrainer, LegalizesByDefaultAndRunsAsAPass) {
  TrainerSetup setup = FixtureSetup();
  setup.legalize = true;
  IRModule m = SetupTrainer(setup)(ParseModule(kMlp));
  ASSERT_NO_THROW(VerifyWellFormed(m));
  std::string text = PrintFunction(m.GetFunction("train_step"), "train_step");
  EXPECT_NE(text.find("call_kernel"), std::string::npos);
  EXPECT_EQ(text.find("matmul("), std::string::npos) << "an op call is left";
}

const char* kWithStates = R"(
attributes {param_num = 1, state_num = 1}
def @backbone(%x: Tensor((2, 3), float32), %w: Tensor((3,), float32), %running: Tensor((3,), float32))
    -> Tuple(Tensor((2, 3), float32), Tensor((3,), float32)) {
  dataflow {
    %out = multiply(%x, %w)
    %col = sum(%out, axis=[0])
    %scaled = multiply(%col, const(0.1, float32))
    %decayed = multiply(%running, const(0.9, float32))
    %new_running = add(%decayed, %scaled)
    %result = (%out, %new_running)
    output %result
  }
  return %result
})";

TEST(SetupTrainer, StatesFlowThroughTrainStep) {
  IRModule m = SetupTrainer(ParseModule(kWithStates), FixtureSetup());
  ASSERT_NO_THROW(VerifyWellFormed(m));
  const char* v = "Tensor((3,), float32)";
  const char* xs = "Tensor((2, 3), float32)";
  EXPECT_EQ(Signature(m.GetFunction("backbone_loss")),
            StrCat("Func((", xs, ", ", v, ", ", v, ", ", xs, ") -> Tuple(Tensor((), float32), ", v, "))"));
  EXPECT_EQ(Signature(m.GetFunction("predict")), StrCat("Func((", xs, ", ", v, ", ", v, ") -> ", xs, ")"));
  EXPECT_EQ(Signature(m.GetFunction("train_step")),
            StrCat("Func((", xs, ", ", xs, ", ", v, ", ", v, ", Tensor((), float32), Tensor((), int64)) -> Tuple(Tensor((), "
                   "float32), ", v, ", ", v, ", Tensor((), float32), Tensor((), int64)))"));
  EXPECT_EQ(m.attrs.Get("state_num").get<int64_t>(), 1);
  // predict drops the work only the updated state needs.
  EXPECT_EQ(PrintFunction(m.GetFunction("predict"), "predict").find("decayed"), std::string::npos);
}

/// The error SetupTrainer throws for |text| (or "" if it succeeds), its code in |code|.
std::string SetupError(const std::string& text, const TrainerSetup& setup = FixtureSetup(), ErrorCode* code = nullptr) {
  IRModule m = ParseModule(text);
  try {
    SetupTrainer(m, setup);
  } catch (const Error& e) {
    if (code != nullptr) *code = e.code();
    return e.what();
  }
  return "";
}

std::string WithAttributes(const std::string& attributes) {
  std::string text = kMlp;
  return text.replace(text.find("attributes {param_num = 2, state_num = 0}"),
                      std::string("attributes {param_num = 2, state_num = 0}").size(), attributes);
}

TEST(SetupTrainer, InvalidBackbones) {
  ErrorCode code = ErrorCode::kOk;
  std::string no_backbone = kMlp;
  no_backbone.replace(no_backbone.find("@backbone"), 9, "@main");
  EXPECT_EQ(SetupError(no_backbone, FixtureSetup(), &code),
            "SetupTrainer: the module has no function @backbone (the model to train; it has @main)");
  EXPECT_EQ(code, ErrorCode::kNotFound);

  EXPECT_EQ(SetupError(WithAttributes("attributes {state_num = 0}"), FixtureSetup(), &code),
            "SetupTrainer: the backbone module needs the integer attribute param_num (how many parameters after the "
            "inputs are trained), e.g. `attributes {param_num = 6, state_num = 0}`");
  EXPECT_EQ(code, ErrorCode::kInvalidArgument);
  EXPECT_NE(SetupError(WithAttributes("attributes {param_num = 2}")).find("the integer attribute state_num"),
            std::string::npos);
  EXPECT_EQ(SetupError(WithAttributes("attributes {param_num = 2.0, state_num = 0}")),
            "SetupTrainer: attribute param_num must be an integer, got a float");
  EXPECT_EQ(SetupError(WithAttributes("attributes {param_num = 2, state_num = \"none\"}")),
            "SetupTrainer: attribute state_num must be an integer, got a string");
  EXPECT_EQ(SetupError(WithAttributes("attributes {param_num = -1, state_num = 0}")),
            "SetupTrainer: attribute param_num must be a count, got -1");
  EXPECT_EQ(SetupError(WithAttributes("attributes {param_num = 0, state_num = 0}")),
            "SetupTrainer: param_num must be at least 1: there is nothing to train");
  EXPECT_EQ(SetupError(WithAttributes("attributes {param_num = 3, state_num = 1}")),
            "SetupTrainer: @backbone has 3 parameters, fewer than param_num + state_num = 3 + 1");
  // A trained parameter that is not a float tensor, or not of static shape.
  EXPECT_EQ(SetupError(WithAttributes("attributes {param_num = 3, state_num = 0}")),
            "SetupTrainer: parameter 0 of @backbone (%x: Tensor((n, 4), float32)) is trained but its shape is not "
            "static (the optimizer's state needs it)");
  const char* int_param = R"(
attributes {param_num = 1, state_num = 0}
def @backbone(%x: Tensor((2,), float32), %k: Tensor((2,), int64)) -> Tensor((2,), float32) {
  return %x
})";
  EXPECT_EQ(SetupError(int_param),
            "SetupTrainer: parameter 1 of @backbone (%k: Tensor((2,), int64)) is trained (param_num = 1) but is not a "
            "float tensor");
}

TEST(SetupTrainer, StatesMustBeReturned) {
  std::string not_returned = kMlp;
  not_returned.replace(not_returned.find("param_num = 2, state_num = 0"), 28, "param_num = 1, state_num = 1");
  EXPECT_EQ(SetupError(not_returned),
            "SetupTrainer: @backbone must return its outputs followed by its 1 updated states (state_num = 1), but "
            "returns Tensor((n, 3), float32)");
  // A state returned with another struct info.
  std::string misfit = kWithStates;
  misfit.replace(misfit.find("%result = (%out, %new_running)"), 30, "%result = (%out, %out)        ");
  misfit.replace(misfit.find("-> Tuple(Tensor((2, 3), float32), Tensor((3,), float32))"),
                 std::string("-> Tuple(Tensor((2, 3), float32), Tensor((3,), float32))").size(),
                 "-> Tuple(Tensor((2, 3), float32), Tensor((2, 3), float32))");
  EXPECT_EQ(SetupError(misfit),
            "SetupTrainer: @backbone returns state 0 as Tensor((2, 3), float32), which does not match parameter 2 of "
            "@backbone (%running: Tensor((3,), float32)) (the updated states come last in the result, in parameter "
            "order)");
  // Two outputs and no state: a loss takes one prediction.
  std::string two_outputs = kWithStates;
  two_outputs.replace(two_outputs.find("state_num = 1"), 13, "state_num = 0");
  two_outputs.replace(two_outputs.find("param_num = 1"), 13, "param_num = 2");
  EXPECT_EQ(SetupError(two_outputs),
            "SetupTrainer: @backbone returns 2 outputs before its 0 updated states, but a loss takes one prediction "
            "(state_num = 0: are the updated states counted?)");
}

TEST(SetupTrainer, UnknownOrMisconfiguredLossAndOptimizer) {
  ErrorCode code = ErrorCode::kOk;
  TrainerSetup setup = FixtureSetup();
  setup.loss.name = "cross_entropy";
  EXPECT_EQ(SetupError(kMlp, setup, &code), "SetupTrainer: no loss named 'cross_entropy' is loaded (known: test_sse)");
  EXPECT_EQ(code, ErrorCode::kNotFound);
  setup = FixtureSetup();
  setup.optimizer.name = "adam";
  EXPECT_EQ(SetupError(kMlp, setup, &code), "SetupTrainer: no optimizer named 'adam' is loaded (known: test_sgd)");
  EXPECT_EQ(code, ErrorCode::kNotFound);
  PluginHost empty;
  setup = FixtureSetup();
  setup.plugins = &empty;
  EXPECT_NE(SetupError(kMlp, setup).find("no loaded plugin provides any loss (load one, e.g. rxt_loss_std"),
            std::string::npos);

  EXPECT_EQ(SetupError(kMlp, FixtureSetup("scal=2.0")),
            "SetupTrainer: loss 'test_sse' (plugin test_ir_generators): unknown option 'scal' (known: scale)");
  EXPECT_NE(SetupError(kMlp, FixtureSetup("scale=\"big\"")).find("option 'scale' must be"), std::string::npos);
  EXPECT_NE(SetupError(kMlp, FixtureSetup("", "lr=0.1, momentum=0.9")).find("optimizer 'test_sgd' (plugin "
                                                                      "test_ir_generators): unknown option 'momentum'"),
            std::string::npos);
}

TEST(SetupTrainer, LossArgsMustMatch) {
  TrainerSetup setup = FixtureSetup();
  StructInfo out = TensorSI(std::vector<int64_t>{8, 3}, DType::kFloat32);
  setup.loss_args = {out, out};
  EXPECT_EQ(SetupError(kMlp, setup), "");  // n is 8 here: compatible
  setup.loss_args = {TensorSI(std::vector<int64_t>{8, 5}, DType::kFloat32), out};
  EXPECT_EQ(SetupError(kMlp, setup),
            "SetupTrainer: loss_args[0] (Tensor((8, 5), float32)) does not match the output of @backbone (Tensor((n, "
            "3), float32))");
  setup.loss_args = {out, TensorSI(std::vector<int64_t>{8}, DType::kInt64)};
  EXPECT_EQ(SetupError(kMlp, setup),
            "SetupTrainer: loss_args[1] is Tensor((8,), int64) but loss 'test_sse' takes its target %targets as "
            "Tensor((n, 3), float32)");
  setup.loss_args = {out};
  EXPECT_EQ(SetupError(kMlp, setup),
            "SetupTrainer: loss_args has 1 struct infos but loss 'test_sse' takes 2 inputs (the prediction, then 1 "
            "target)");
}

TEST(SetupTrainer, OpsWithoutGradientRules) {
  std::string text = kMlp;
  text.replace(text.find("nn.relu(%lv1)"), 13, "tanh(%lv1)   ");
  ErrorCode code = ErrorCode::kOk;
  std::string error = SetupError(text, FixtureSetup(), &code);
  EXPECT_EQ(error.rfind("SetupTrainer: Gradient: ", 0), 0u) << error;
  EXPECT_NE(error.find("tanh"), std::string::npos) << error;
  EXPECT_EQ(code, ErrorCode::kUnimplemented);
}

}  // namespace
}  // namespace rxt
