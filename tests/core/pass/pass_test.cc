// The pass manager: module and function passes, Sequential, PassContext gating and options.
#include "rxt/pass/pass.h"

#include <gtest/gtest.h>

#include "rxt/ir/equality.h"
#include "rxt/ir/parser.h"
#include "rxt/pass/instrument.h"
#include "rxt/transform/passes.h"

namespace rxt {
namespace {

constexpr const char* kModule = R"(
kernel @noop(X: Buffer((2,), float32)) {
  X[0] = 0f32
}

def @f(%x: Tensor((2,), float32)) -> Tensor((2,), float32) {
  return %x
}

def @g(%x: Tensor((2,), float32)) -> Tensor((2,), float32) {
  return %x
}
)";

/// A pass that appends its name to |log| and changes nothing.
Pass Logging(const std::string& name, std::vector<std::string>* log, int opt_level = 0,
             std::vector<std::string> required = {}) {
  return CreateModulePass(
      [name, log](IRModule m) {
        log->push_back(name);
        return m;
      },
      name, opt_level, std::move(required));
}

/// Records every hook call as "before:X" / "after:X" / "failed:X".
class Recorder : public PassInstrument {
 public:
  std::string name() const override { return "Recorder"; }
  void RunBeforePass(const IRModule&, const PassInfo& info) override { log.push_back("before:" + info.name); }
  void RunAfterPass(const IRModule&, const PassInfo& info) override { log.push_back("after:" + info.name); }
  void RunAfterFailedPass(const PassInfo& info) override { log.push_back("failed:" + info.name); }
  std::vector<std::string> log;
};

TEST(Pass, ModulePassRunsItsFunctionAndKeepsItsInfo) {
  std::vector<std::string> log;
  Pass p = Logging("A", &log, 3, {"Normalize"});
  EXPECT_EQ(p.name(), "A");
  EXPECT_EQ(p.info().opt_level, 3);
  EXPECT_EQ(p.info().required, std::vector<std::string>{"Normalize"});
  IRModule m = ParseModule(kModule);
  IRModule out = p(m);  // run directly: not gated by opt_level
  EXPECT_EQ(log, std::vector<std::string>{"A"});
  EXPECT_TRUE(StructuralEqual(m, out));
}

TEST(Pass, FunctionPassVisitsEveryRelaxFunctionOnly) {
  std::vector<std::string> seen;
  Pass p = CreateFunctionPass(
      [&seen](const Function& f, const IRModule& m, const PassContext&) {
        for (const auto& entry : m.entries()) {
          if (entry.function == f) seen.push_back(entry.name);
        }
        // Rewrite: return a function with an extra attribute.
        Attrs attrs = f->attrs;
        attrs.Set("visited", true);
        return MakeFunction(f->params, f->body, f->ret_sinfo, attrs, f->is_pure, f->span);
      },
      "MarkFunctions");
  IRModule out = p(ParseModule(kModule));
  EXPECT_EQ(seen, (std::vector<std::string>{"f", "g"}));
  EXPECT_NE(out.GetFunction("f")->attrs.Find("visited"), nullptr);
  EXPECT_NE(out.GetFunction("g")->attrs.Find("visited"), nullptr);
  EXPECT_NE(out.FindKernel("noop"), nullptr);
  EXPECT_EQ(out.entries()[0].name, "noop");  // order kept
}

TEST(Sequential, RunsPassesInOrder) {
  std::vector<std::string> log;
  Pass seq = Sequential({Logging("A", &log), Logging("B", &log), Logging("C", &log)});
  seq(ParseModule(kModule));
  EXPECT_EQ(log, (std::vector<std::string>{"A", "B", "C"}));
}

TEST(Sequential, SkipsDisabledPasses) {
  std::vector<std::string> log;
  PassContext ctx;
  ctx.disabled_passes = {"B"};
  Sequential({Logging("A", &log), Logging("B", &log), Logging("C", &log)})(ParseModule(kModule), ctx);
  EXPECT_EQ(log, (std::vector<std::string>{"A", "C"}));
}

TEST(Sequential, GatesPassesByOptLevel) {
  std::vector<std::string> log;
  Pass seq = Sequential({Logging("O0", &log, 0), Logging("O2", &log, 2), Logging("O3", &log, 3)});
  PassContext ctx;
  ctx.opt_level = 2;
  seq(ParseModule(kModule), ctx);
  EXPECT_EQ(log, (std::vector<std::string>{"O0", "O2"}));
  log.clear();
  ctx.opt_level = 0;
  seq(ParseModule(kModule), ctx);
  EXPECT_EQ(log, (std::vector<std::string>{"O0"}));
  log.clear();
  ctx.opt_level = 3;
  seq(ParseModule(kModule), ctx);
  EXPECT_EQ(log, (std::vector<std::string>{"O0", "O2", "O3"}));
}

TEST(Sequential, RunsRequiredPassesFirstOnce) {
  std::vector<std::string> log;
  auto recorder = std::make_shared<Recorder>();
  PassContext ctx;
  ctx.instruments.push_back(recorder);
  Sequential({Logging("A", &log, 0, {"Normalize"}), Logging("B", &log, 0, {"Normalize"})}, "Pipeline")(
      ParseModule(kModule), ctx);
  EXPECT_EQ(log, (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(recorder->log, (std::vector<std::string>{"before:Pipeline", "before:Normalize", "after:Normalize",
                                                     "before:A", "after:A", "before:B", "after:B", "after:Pipeline"}));
}

TEST(Sequential, NestsAndPropagatesErrors) {
  std::vector<std::string> log;
  Pass failing =
      CreateModulePass([](IRModule) -> IRModule { Throw(ErrorCode::kInvalidArgument, "no luck"); }, "Failing");
  auto recorder = std::make_shared<Recorder>();
  PassContext ctx;
  ctx.instruments.push_back(recorder);
  Pass seq = Sequential({Logging("A", &log), Sequential({failing, Logging("B", &log)}, "Inner")}, "Outer");
  try {
    seq(ParseModule(kModule), ctx);
    FAIL() << "the failing pass did not throw";
  } catch (const Error& e) { EXPECT_EQ(std::string(e.what()), "no luck"); }
  EXPECT_EQ(log, std::vector<std::string>{"A"});
  EXPECT_EQ(recorder->log,
            (std::vector<std::string>{"before:Outer", "before:A", "after:A", "before:Inner", "before:Failing",
                                      "failed:Failing", "failed:Inner", "failed:Outer"}));
}

TEST(PassContext, OptionsAreTyped) {
  PassContext ctx;
  ctx.options["X.count"] = 3;
  ctx.options["X.name"] = "abc";
  EXPECT_EQ(ctx.GetOption<int64_t>("X.count", 0), 3);
  EXPECT_EQ(ctx.GetOption<std::string>("X.name", ""), "abc");
  EXPECT_EQ(ctx.GetOption<bool>("X.missing", true), true);
  EXPECT_EQ(ctx.FindOption("X.missing"), nullptr);
  try {
    ctx.GetOption<bool>("X.count", false);
    FAIL() << "a wrongly typed option was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("X.count holds a value of kind int; expected bool"), std::string::npos)
        << e.what();
  }
}

TEST(PassContext, IsEnabledChecksNameAndLevel) {
  PassContext ctx;
  ctx.opt_level = 1;
  ctx.disabled_passes = {"Off"};
  EXPECT_TRUE(ctx.IsEnabled(PassInfo{"On", 1, {}, ""}));
  EXPECT_FALSE(ctx.IsEnabled(PassInfo{"On", 2, {}, ""}));
  EXPECT_FALSE(ctx.IsEnabled(PassInfo{"Off", 0, {}, ""}));
}

}  // namespace
}  // namespace rxt
