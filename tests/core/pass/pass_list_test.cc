// Pass lists with options (pass/pass_list.h): the grammar, bare words, the checks of pass and
// option names, and passes run with their options.
#include "rxt/pass/pass_list.h"

#include <gtest/gtest.h>

#include "rxt/ir/parser.h"
#include "rxt/ir/printer.h"
#include "rxt/pass/pass_registry.h"
#include "rxt/plugin/plugin_host.h"

namespace rxt {
namespace {

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ParsePassList, NamesWithAndWithoutOptions) {
  std::vector<PassInvocation> passes =
      ParsePassList(" Normalize , Gradient(func_name=main, require_grads=[w1, %b1, 2], target_index=0),DeadCodeElimination");
  ASSERT_EQ(passes.size(), 3u);
  EXPECT_EQ(passes[0].name, "Normalize");
  EXPECT_TRUE(passes[0].options.entries().empty());
  EXPECT_EQ(passes[1].name, "Gradient");
  EXPECT_EQ(PrintAttrValue(passes[1].options.Get("func_name")), "\"main\"");  // a bare word is a string
  EXPECT_EQ(PrintAttrValue(passes[1].options.Get("require_grads")), "[\"w1\", \"%b1\", 2]");
  EXPECT_EQ(PrintAttrValue(passes[1].options.Get("target_index")), "0");
  EXPECT_EQ(passes[2].name, "DeadCodeElimination");
}

TEST(ParsePassList, KeywordsDtypesAndStringsKeepTheirKinds) {
  std::vector<PassInvocation> passes =
      ParsePassList("P(a=true, b=none, c=float64, d=\"x, y)\", e=-1.5, f=[[1, 2], []])");
  ASSERT_EQ(passes.size(), 1u);
  const Attrs& o = passes[0].options;
  EXPECT_EQ(o.Get("a").KindName(), std::string("bool"));
  EXPECT_TRUE(o.Get("b").is_none());
  EXPECT_EQ(o.Get("c").KindName(), std::string("dtype"));
  EXPECT_EQ(o.Get("d").get<std::string>(), "x, y)");  // commas and parentheses inside a string
  EXPECT_EQ(o.Get("e").get<double>(), -1.5);
  EXPECT_EQ(PrintAttrValue(o.Get("f")), "[[1, 2], []]");
}

TEST(ParsePassList, MalformedListsSayWhatAndWhere) {
  EXPECT_NE(ErrorOf([] { ParsePassList("", "--passes"); }).find("--passes '': expected a pass name at the end"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] { ParsePassList("Normalize,", "--passes"); }).find("expected a pass name at the end"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] { ParsePassList("Gradient(func_name=main", "--passes"); })
                .find("the options of Gradient are not closed"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] { ParsePassList("Normalize DeadCodeElimination"); }).find("expected ',' between passes"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] { ParsePassList("Gradient(func_name)"); }).find("options of pass Gradient"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] { ParsePassList("Gradient(a=1, a=2)"); }).find("duplicate"), std::string::npos);
}

TEST(AddPassOptions, UnknownPassesAndOptionsAreRefusedWithTheNearest) {
  PassContext context;
  EXPECT_NE(ErrorOf([&] { AddPassOptions(ParsePassList("Gradient(require_grad=[w])"), context); })
                .find("pass Gradient has no option 'require_grad' (did you mean 'require_grads'?); its options: "
                      "func_name, require_grads, target_index"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { AddPassOptions(ParsePassList("Normalize(x=1)"), context); }).find("(it takes none)"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { AddPassOptions(ParsePassList("Gradiant"), context); }).find("did you mean Gradient?"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] {
              AddPassOptions(ParsePassList("Gradient(target_index=0), Gradient(target_index=1)"), context);
            }).find("twice"),
            std::string::npos);
  PassContext ok;
  AddPassOptions(ParsePassList("ConvertToDataflow(min_size=3)"), ok);
  EXPECT_EQ(ok.GetOption<int64_t>("ConvertToDataflow.min_size", 2), 3);
}

const char* kTwoPasses = R"(
def @main(%x: Tensor((2, 3), float32), %y: Tensor((2, 3), float32)) -> Tensor((2, 3), float32) {
  %a: Tensor((2, 3), float32) = add(%x, %y)
  %b: Tensor((2, 3), float32) = multiply(%a, %x)
  return %b
})";

TEST(RunPasses, OptionsReachThePass) {
  IRModule module = ParseModule(kTwoPasses);
  // min_size 3: the run of two pure bindings stays out of a dataflow block.
  std::string kept = PrintModule(RunPasses(module, {"ConvertToDataflow(min_size=3)"}));
  EXPECT_EQ(kept.find("dataflow"), std::string::npos) << kept;
  std::string grouped = PrintModule(RunPasses(module, {"ConvertToDataflow(min_size=2)"}));
  EXPECT_NE(grouped.find("dataflow"), std::string::npos) << grouped;
}

TEST(RunPasses, GradientTakesParametersByName) {
  IRModule module = ParseModule(kTwoPasses);
  EXPECT_NE(ErrorOf([&] { RunPasses(module, {"Gradient(require_grads=[z])"}); })
                .find("@main has no parameter 'z'; its parameters: x, y"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { RunPasses(module, {"Gradient(require_grads=3)"}); })
                .find("expected a list of parameter names or indices"),
            std::string::npos);
}

// Passes by name use the process's gradient rules (the standard plugin, loaded here).
TEST(RunPasses, GradientDifferentiatesTheParametersNamedInTheirOrder) {
  PluginHost::Global().Load(RXT_GRAD_STD_PLUGIN);
  IRModule module = ParseModule(R"(
def @main(%x: Tensor((2, 3), float32), %w: Tensor((3,), float32), %i: Tensor((2,), int64)) -> Tensor((), float32) {
  %a: Tensor((2, 3), float32) = multiply(%x, %w)
  %s: Tensor((), float32) = sum(%a)
  return %s
})");
  Function adjoint = RunPasses(module, {"Gradient(func_name=main, require_grads=[%w, x])"}).GetFunction("main_adjoint");
  EXPECT_EQ(PrintStructInfo(adjoint->ret_sinfo),
            "Tuple(Tensor((), float32), Tuple(Tensor((3,), float32), Tensor((2, 3), float32)))");
  EXPECT_EQ(adjoint->attrs.Find("gradient_skipped"), nullptr);  // the parameters were chosen
}

// The training transforms by name: the loss and optimizer come from the process's plugins.
TEST(RunPasses, AppendLossAndSetupTrainerTakeTheirLossAndOptimizerByName) {
  for (const char* plugin : {RXT_GRAD_STD_PLUGIN, RXT_LOSS_STD_PLUGIN, RXT_OPTIM_STD_PLUGIN}) {
    PluginHost::Global().Load(plugin);
  }
  IRModule backbone = ParseModule(R"(
attributes {param_num = 2, state_num = 0}
def @backbone(%x: Tensor((4, 3), float32), %w: Tensor((3, 2), float32), %b: Tensor((2,), float32))
    -> Tensor((4, 2), float32) {
  %h: Tensor((4, 2), float32) = matmul(%x, %w)
  %y: Tensor((4, 2), float32) = add(%h, %b)
  return %y
})");
  IRModule with_loss = RunPasses(backbone, {"AppendLoss(loss=mse, loss_options=\"reduction=\\\"sum\\\"\")"});
  Function loss = with_loss.GetFunction("backbone_loss");
  EXPECT_EQ(loss->params.size(), 4u);  // x, w, b, then the targets
  EXPECT_EQ(PrintStructInfo(loss->ret_sinfo), "Tensor((), float32)");

  IRModule trainer = RunPasses(backbone, {"SetupTrainer(loss=mse, optimizer=sgd, optimizer_options=\"lr=0.1\")"});
  EXPECT_TRUE(trainer.FindFunction("train_step"));
  EXPECT_TRUE(trainer.FindFunction("predict"));
  EXPECT_NE(ErrorOf([&] { RunPasses(backbone, {"SetupTrainer(optimizer=sgd)"}); })
                .find("SetupTrainer by name needs the option loss (e.g. SetupTrainer(loss=cross_entropy))"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { RunPasses(backbone, {"AppendLoss(loss=no_such_loss)"}); }).find("no_such_loss"),
            std::string::npos);
}

}  // namespace
}  // namespace rxt
