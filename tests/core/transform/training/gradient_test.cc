// The Gradient pass (core/src/transform/gradient/): the adjoint function's contract and every
// error path. IR-in/IR-out cases are in tests/data/passes/Gradient, numeric checks against
// finite differences in tests/core/transform/training/gradient/gradient_run_test.cc. The rules are the test fixture's
// (tests/plugins/fixtures/grad_rules.c), loaded into a host of the tests' own.
#include "rxt/plugin/plugin_host.h"
#include "rxt/transform/training/gradient.h"

#include <gtest/gtest.h>

#include "rxt/ir/equality.h"
#include "rxt/ir/parser.h"
#include "rxt/ir/printer.h"
#include "rxt/ir/well_formed.h"
#include "rxt/transform/passes.h"

namespace rxt {
namespace {

const PluginHost& Rules() {
  static PluginHost* host = [] {
    auto* h = new PluginHost();
    h->Load(std::string(RXT_TEST_IR_PLUGIN_DIR) + "/test_grad_rules.so");
    h->Load(std::string(RXT_TEST_IR_PLUGIN_DIR) + "/test_grad_rules_v1.so");
    return h;
  }();
  return *host;
}

const char* kMlp = R"(
def @main(%x: Tensor((n, 4), float32), %w: Tensor((4, 3), float32), %b: Tensor((3,), float32),
          %labels: Tensor((n,), int64)) -> Tensor((), float32) {
  dataflow {
    %lv0: Tensor((n, 3), float32) = matmul(%x, %w)
    %lv1: Tensor((n, 3), float32) = add(%lv0, %b)
    %lv2: Tensor((n, 3), float32) = nn.relu(%lv1)
    %loss: Tensor((), float32) = sum(%lv2)
    output %loss
  }
  return %loss
})";

/// The error Gradient throws for |text|, or "" if it succeeds.
std::string GradientError(const std::string& text, std::optional<std::vector<int>> require = std::nullopt,
                          int target_index = 0, const std::string& func = "main",
                          const PluginHost* plugins = &Rules(), ErrorCode* code = nullptr) {
  IRModule m = ParseModule(text);
  try {
    Gradient(m, func, std::move(require), target_index, plugins);
  } catch (const Error& e) {
    if (code != nullptr) *code = e.code();
    return e.what();
  }
  return "";
}

TEST(Gradient, AddsTheAdjointFunctionWithTheSeedsContract) {
  IRModule m = ParseModule(kMlp);
  IRModule out = Gradient(m, "main", std::vector<int>{1, 2}, 0, &Rules());
  EXPECT_NO_THROW(VerifyWellFormed(out));
  ASSERT_TRUE(out.FindFunction("main_adjoint"));
  EXPECT_TRUE(StructuralEqual(out.GetFunction("main"), m.GetFunction("main")));  // left as it was
  Function adjoint = out.GetFunction("main_adjoint");
  EXPECT_EQ(ToString(adjoint->ret_sinfo), "Tuple(Tensor((), float32), Tuple(Tensor((4, 3), float32), Tensor((3,), float32)))");
  ASSERT_EQ(adjoint->params.size(), 4u);
  for (size_t i = 0; i < adjoint->params.size(); ++i) {
    EXPECT_NE(adjoint->params[i], m.GetFunction("main")->params[i]);  // fresh variables
    EXPECT_EQ(adjoint->params[i]->name, m.GetFunction("main")->params[i]->name);
  }
  // One dataflow block, forward then backward, adjoints named after their variables.
  ASSERT_EQ(adjoint->body->blocks.size(), 1u);
  EXPECT_TRUE(adjoint->body->blocks[0].is_dataflow);
  std::string text = PrintFunction(adjoint, "main_adjoint");
  EXPECT_NE(text.find("%loss_adjoint: Tensor((), float32) = ones(shape(), dtype=float32)"), std::string::npos) << text;
  EXPECT_NE(text.find("%lv1_adjoint"), std::string::npos) << text;
  EXPECT_NE(text.find("%w_adjoint"), std::string::npos) << text;
  // The input's adjoint is not computed: nothing asked for it.
  EXPECT_EQ(text.find("%x_adjoint"), std::string::npos) << text;
}

TEST(Gradient, DefaultRequiresEveryParameter) {
  const char* text = R"(
def @f(%a: Tensor((2,), float32), %b: Tensor((2,), float32)) -> Tensor((), float32) {
  %p: Tensor((2,), float32) = multiply(%a, %b)
  %s: Tensor((), float32) = sum(%p)
  return %s
})";
  IRModule out = Gradient(ParseModule(text), "f", std::nullopt, 0, &Rules());
  EXPECT_EQ(ToString(out.GetFunction("f_adjoint")->ret_sinfo),
            "Tuple(Tensor((), float32), Tuple(Tensor((2,), float32), Tensor((2,), float32)))");
  EXPECT_NO_THROW(VerifyWellFormed(out));
}

TEST(Gradient, ReplacesAnEarlierAdjoint) {
  IRModule once = Gradient(ParseModule(kMlp), "main", std::vector<int>{1}, 0, &Rules());
  IRModule twice = Gradient(once, "main", std::vector<int>{1, 2}, 0, &Rules());
  EXPECT_EQ(twice.entries().size(), 2u);
  EXPECT_EQ(twice.GetFunction("main_adjoint")->ret_sinfo->As<TupleSINode>()->fields[1]->As<TupleSINode>()->fields.size(),
            2u);
}

TEST(Gradient, MissingFunction) {
  ErrorCode code = ErrorCode::kOk;
  std::string error = GradientError(kMlp, std::nullopt, 0, "loss", &Rules(), &code);
  EXPECT_EQ(code, ErrorCode::kNotFound);
  EXPECT_EQ(error, "Gradient: the module has no function @loss (functions: @main)");
}

TEST(Gradient, TargetMustBeAFloatScalar) {
  const char* vector_result = R"(
def @main(%w: Tensor((3,), float32)) -> Tensor((3,), float32) {
  %r: Tensor((3,), float32) = multiply(%w, %w)
  return %r
})";
  EXPECT_EQ(GradientError(vector_result),
            "Gradient: the target of @main must be a 0-d float tensor (a scalar loss); it is Tensor((3,), float32)");
  const char* int_result = R"(
def @main(%w: Tensor((3,), float32), %i: Tensor((), int64)) -> Tensor((), int64) {
  return %i
})";
  EXPECT_NE(GradientError(int_result, std::vector<int>{0}).find("it is Tensor((), int64)"), std::string::npos);
  const char* tuple_result = R"(
def @main(%w: Tensor((3,), float32)) -> Tuple(Tensor((), float32), Tensor((3,), float32)) {
  %s: Tensor((), float32) = sum(%w)
  %t = (%s, %w)
  return %t
})";
  EXPECT_EQ(GradientError(tuple_result, std::nullopt, 1),
            "Gradient: the target of @main must be a 0-d float tensor (a scalar loss); it is Tensor((3,), float32) "
            "(field 1 of its result)");
  EXPECT_EQ(GradientError(tuple_result, std::nullopt, 0), "");
  EXPECT_NE(GradientError(tuple_result, std::nullopt, 2).find("target_index 2 is out of range"), std::string::npos);
  EXPECT_NE(GradientError(kMlp, std::vector<int>{1}, 1).find("which is not a tuple: target_index must be 0, got 1"),
            std::string::npos);
  const char* constant_result = R"(
def @main(%w: Tensor((3,), float32)) -> Tensor((), float32) {
  return const(1.5, float32)
})";
  EXPECT_NE(GradientError(constant_result).find("not a variable: nothing to differentiate"), std::string::npos);
}

TEST(Gradient, RequireGradsMustNameFloatParameters) {
  EXPECT_EQ(GradientError(kMlp, std::vector<int>{1, 4}),
            "Gradient: require_grads index 4 is out of range: @main has 4 parameter(s)");
  EXPECT_EQ(GradientError(kMlp, std::vector<int>{-1}),
            "Gradient: require_grads index -1 is out of range: @main has 4 parameter(s)");
  EXPECT_EQ(GradientError(kMlp, std::vector<int>{1, 2, 1}), "Gradient: require_grads lists parameter 1 (%w) twice");
  EXPECT_EQ(GradientError(kMlp, std::vector<int>{1, 3}),
            "Gradient: parameter 3 of @main, %labels (Tensor((n,), int64)), takes no gradient (only float tensors have "
            "adjoints); leave it out of require_grads");
}

// By default the float tensor parameters are differentiated and the others named on the adjoint.
TEST(Gradient, ByDefaultTheFloatParametersAreDifferentiatedAndTheOthersNamed) {
  IRModule out = Gradient(ParseModule(kMlp), "main", std::nullopt, 0, &Rules());
  Function adjoint = out.GetFunction("main_adjoint");
  EXPECT_EQ(adjoint->ret_sinfo->As<TupleSINode>()->fields[1]->As<TupleSINode>()->fields.size(), 3u);  // x, w, b
  const AttrValue* skipped = adjoint->attrs.Find("gradient_skipped");
  ASSERT_NE(skipped, nullptr);
  EXPECT_EQ(PrintAttrValue(*skipped), "[\"labels\"]");
  EXPECT_EQ(GradientError(R"(
def @main(%i: Tensor((2,), int64)) -> Tensor((), float32) {
  %s: Tensor((), float32) = ones(shape(), dtype=float32)
  return %s
})"), "Gradient: @main has no float tensor parameter to differentiate");
}

TEST(Gradient, EveryMissingRuleIsReportedAtOnce) {
  const char* text = R"(
def @main(%x: Tensor((4,), float32), %w: Tensor((4,), float32)) -> Tensor((), float32) {
  dataflow {
    %a: Tensor((4,), float32) = multiply(%x, %w)
    %b: Tensor((4,), float32) = tanh(%a)
    %c: Tensor((4,), float32) = log(%b)
    %d: Tensor((4,), float32) = tanh(%c)
    %e: Tensor((4,), float32) = exp(%d)
    %unrelated: Tensor((4,), float32) = sqrt(%x)
    %loss: Tensor((), float32) = sum(%e)
    output %loss
  }
  return %loss
})";
  ErrorCode code = ErrorCode::kOk;
  std::string error = GradientError(text, std::vector<int>{1}, 0, "main", &Rules(), &code);
  EXPECT_EQ(code, ErrorCode::kUnimplemented);
  EXPECT_EQ(error,
            "Gradient: cannot differentiate @main: 3 ops have no gradient rule (no loaded plugin provides a usable rule "
            "for them; plugins/grad_std (rxt_grad_std.so) has the standard ones): "
            "tanh: at %b, %d in @main; "
            "log: at %c in @main; "
            "exp (the rule of plugin test_grad_rules_v1 has no typed callback: a plugin of ABI version 1): at %e in "
            "@main");
}

TEST(Gradient, WithoutRulesSaysWhichPluginToLoad) {
  PluginHost empty;
  std::string error = GradientError(kMlp, std::vector<int>{1}, 0, "main", &empty);
  EXPECT_NE(error.find("4 ops have no gradient rule (no gradient rules are loaded: load plugins/grad_std "
                       "(rxt_grad_std.so), e.g. with --plugin or RXT_PLUGIN_PATH):"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("): matmul: at %lv0 in @main; "), std::string::npos) << error;
}

TEST(Gradient, CallsOfFunctionsAreReported) {
  const char* text = R"(
def @g(%a: Tensor((2,), float32)) -> Tensor((2,), float32) {
  return %a
}
def @main(%w: Tensor((2,), float32)) -> Tensor((), float32) {
  %a: Tensor((2,), float32) = @g(%w)
  %s: Tensor((), float32) = sum(%a)
  return %s
})";
  EXPECT_NE(GradientError(text).find("@g (calls of module functions are not differentiated): at %a in @main"),
            std::string::npos);
}

TEST(Gradient, AFailingRuleIsNamedWithItsPlace) {
  const char* text = R"(
def @main(%w: Tensor((2,), float32)) -> Tensor((), float32) {
  %a: Tensor((2,), float32) = sigmoid(%w)
  %s: Tensor((), float32) = sum(%a)
  return %s
})";
  EXPECT_EQ(GradientError(text),
            "Gradient: @main: at %a = sigmoid(...): gradient rule 'sigmoid' (plugin test_grad_rules): the fixture's "
            "sigmoid rule always fails");
}

TEST(Gradient, UnbalancedCheckpointMarkers) {
  const char* no_start = R"(
def @main(%w: Tensor((2,), float32)) -> Tensor((), float32) {
  %a: Tensor((2,), float32) = checkpoint_end(%w)
  %s: Tensor((), float32) = sum(%a)
  return %s
})";
  EXPECT_EQ(GradientError(no_start), "Gradient: @main: checkpoint_end at %a has no checkpoint_start before it");
  const char* no_end = R"(
def @main(%w: Tensor((2,), float32)) -> Tensor((), float32) {
  %a: Tensor((2,), float32) = checkpoint_start(%w)
  %s: Tensor((), float32) = sum(%a)
  return %s
})";
  EXPECT_EQ(GradientError(no_end), "Gradient: @main: the checkpoint segment starting at %a has no checkpoint_end");
}

TEST(Gradient, CheckpointMarkersAreIdentities) {
  IRModule m = ParseModule(R"(
def @main(%w: Tensor((2, 3), float32)) -> Tuple(Tensor((2, 3), float32), Tensor((3,), float32)) {
  %t = (%w, const([1, 2, 3], float32))
  %s = checkpoint_start(%t)
  %e = checkpoint_end(%s)
  return %e
})");
  EXPECT_EQ(ToString(m.GetFunction("main")->ret_sinfo), "Tuple(Tensor((2, 3), float32), Tensor((3,), float32))");
  EXPECT_THROW(ParseModule(R"(
def @main(%n: Shape) -> Shape {
  %s = checkpoint_start(%n)
  return %s
})"),
               Error);
}

TEST(Gradient, ByNameTakesItsOptions) {
  PassContext context;
  context.options["Gradient.func_name"] = AttrValue("main");
  context.options["Gradient.require_grads"] = AttrValue("oops");
  try {
    RunPasses(ParseModule(kMlp), {"Gradient"}, context);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "pass option Gradient.require_grads: expected a list of parameter names or indices, got string");
  }
  context.options["Gradient.require_grads"] = AttrValue::IntList({7});
  try {
    RunPasses(ParseModule(kMlp), {"Gradient"}, context);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "Gradient: require_grads index 7 is out of range: @main has 4 parameter(s)");
  }
}

// ---- Size

// Every value of the chain is used twice: its adjoint is the sum of two, one add per binding.
TEST(Gradient, SharedChainGivesALinearAdjoint) {
  const int n = 256;
  std::string text = "def @main(%x: Tensor((4, 4), float32)) -> Tensor((), float32) {\n  dataflow {\n";
  std::string previous = "%x";
  for (int i = 0; i < n; ++i) {
    text += "    %a" + std::to_string(i) + " = add(" + previous + ", " + previous + ")\n";
    previous = "%a" + std::to_string(i);
  }
  text += "    %loss = sum(" + previous + ")\n    output %loss\n  }\n  return %loss\n}\n";
  IRModule out = Gradient(ParseModule(text), "main", std::nullopt, 0, &Rules());
  EXPECT_NO_THROW(VerifyWellFormed(out));
  size_t bindings = 0;
  for (const BindingBlock& block : out.GetFunction("main_adjoint")->body->blocks) bindings += block.bindings.size();
  EXPECT_LE(bindings, static_cast<size_t>(4 * n));
}

// The target's type holds the previous tuple twice, 63 times: the message names it in a
// bounded number of characters (it was 2^63 types long).
TEST(Gradient, ErrorAboutADeeplySharedTypeIsShort) {
  std::string text = "def @main(%x: Tensor((), float32)) -> Object {\n  dataflow {\n";
  std::string previous = "%x";
  for (int i = 0; i < 64; ++i) {
    text += "    %t" + std::to_string(i) + " = (" + previous + ", " + previous + ")\n";
    previous = "%t" + std::to_string(i);
  }
  text += "    output " + previous + "\n  }\n  return " + previous + "\n}\n";
  std::string error = GradientError(text);
  EXPECT_NE(error.find("must be a 0-d float tensor (a scalar loss); it is Tuple(Tuple("), std::string::npos) << error;
  EXPECT_LT(error.size(), 400u) << error;
}

}  // namespace
}  // namespace rxt
