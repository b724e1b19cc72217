// Pass instruments: timing, printing the IR, checking well-formedness after each pass.
#include "rxt/pass/instrument.h"

#include <gtest/gtest.h>

#include <sstream>

#include "rxt/ir/parser.h"
#include "rxt/transform/passes.h"

namespace rxt {
namespace {

constexpr const char* kModule = R"(
def @main(%x: Tensor((2,), float32)) -> Tensor((2,), float32) {
  %unused: Tensor((2,), float32) = exp(%x)
  %y: Tensor((2,), float32) = nn.relu(%x)
  return %y
}
)";

Pass Identity(const std::string& name) {
  return CreateModulePass([](IRModule m) { return m; }, name);
}

/// Drops the last binding of @main although the result uses it: an ill-formed module.
Pass BreakModule() {
  return CreateModulePass(
      [](IRModule m) {
        Function f = m.GetFunction("main");
        std::vector<BindingBlock> blocks = f->body->blocks;
        blocks.back().bindings.pop_back();
        m.Add("main", MakeFunction(f->params, MakeSeqExpr(blocks, f->body->body), f->ret_sinfo));
        return m;
      },
      "BreakModule");
}

TEST(PassTimingInstrument, RecordsEveryRunWithItsNesting) {
  auto timing = std::make_shared<PassTimingInstrument>();
  PassContext ctx;
  ctx.instruments.push_back(timing);
  Sequential({Identity("First"), Identity("Second")}, "Pipeline")(ParseModule(kModule), ctx);
  const auto& records = timing->records();
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].pass, "Pipeline");
  EXPECT_EQ(records[0].depth, 0);
  EXPECT_EQ(records[1].pass, "First");
  EXPECT_EQ(records[1].depth, 1);
  EXPECT_EQ(records[2].pass, "Second");
  for (const auto& r : records) EXPECT_GE(r.seconds, 0.0);
  EXPECT_GE(records[0].seconds, records[1].seconds + records[2].seconds);
  EXPECT_GE(timing->TotalSeconds("First"), 0.0);

  std::string table = timing->Table();
  EXPECT_NE(table.find("Pipeline"), std::string::npos) << table;
  EXPECT_NE(table.find("\n  First"), std::string::npos) << table;  // nested: indented
  EXPECT_NE(table.find("100.0%"), std::string::npos) << table;     // the outermost run is the total
  EXPECT_NE(table.find("total"), std::string::npos) << table;
  timing->Clear();
  EXPECT_TRUE(timing->records().empty());
}

TEST(PassTimingInstrument, MarksFailedRuns) {
  auto timing = std::make_shared<PassTimingInstrument>();
  PassContext ctx;
  ctx.instruments.push_back(timing);
  Pass failing = CreateModulePass([](IRModule) -> IRModule { Throw(ErrorCode::kInternal, "boom"); }, "Failing");
  EXPECT_THROW(failing(ParseModule(kModule), ctx), Error);
  ASSERT_EQ(timing->records().size(), 1u);
  EXPECT_TRUE(timing->records()[0].failed);
  EXPECT_NE(timing->Table().find("(failed)"), std::string::npos);
}

TEST(PrintIRInstrument, PrintsBeforeAndAfterTheNamedPasses) {
  std::ostringstream out;
  PassContext ctx;
  ctx.instruments.push_back(std::make_shared<PrintIRInstrument>(std::set<std::string>{"DeadCodeElimination"},
                                                                std::set<std::string>{"DeadCodeElimination"}, out));
  RunPasses(ParseModule(kModule), {"Normalize", "DeadCodeElimination"}, ctx);
  std::string text = out.str();
  size_t before = text.find("# IR before DeadCodeElimination\n");
  size_t after = text.find("# IR after DeadCodeElimination\n");
  ASSERT_NE(before, std::string::npos) << text;
  ASSERT_NE(after, std::string::npos) << text;
  EXPECT_LT(before, after);
  EXPECT_EQ(text.find("Normalize"), std::string::npos) << text;  // not a named pass
  // The dead binding is there before and gone after.
  EXPECT_NE(text.substr(before, after - before).find("%unused"), std::string::npos) << text;
  EXPECT_EQ(text.substr(after).find("%unused"), std::string::npos) << text;
}

TEST(PrintIRInstrument, StarNamesEveryPass) {
  std::ostringstream out;
  PassContext ctx;
  ctx.instruments.push_back(
      std::make_shared<PrintIRInstrument>(std::set<std::string>{}, std::set<std::string>{"*"}, out));
  Sequential({Identity("A"), Identity("B")}, "Both")(ParseModule(kModule), ctx);
  std::string text = out.str();
  EXPECT_NE(text.find("# IR after A\n"), std::string::npos);
  EXPECT_NE(text.find("# IR after B\n"), std::string::npos);
  EXPECT_NE(text.find("# IR after Both\n"), std::string::npos);
  EXPECT_EQ(text.find("# IR before"), std::string::npos);
}

void ExpectBlames(const PassContext& ctx, const std::string& culprit) {
  Pass pipeline = Sequential({Identity("Harmless"), BreakModule(), Identity("Later")});
  try {
    pipeline(ParseModule(kModule), ctx);
    FAIL() << "the broken module went unnoticed";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInternal);
    std::string what = e.what();
    EXPECT_EQ(what.rfind("pass " + culprit + " produced a module that is not well formed:", 0), 0u) << what;
    EXPECT_NE(what.find("%y is used before it is defined"), std::string::npos) << what;
  }
}

TEST(WellFormedCheck, TheContextFlagNamesThePassThatBrokeTheModule) {
  PassContext ctx;
  ctx.verify_well_formed_after_each = true;
  ExpectBlames(ctx, "BreakModule");
  // Without the check the pipeline goes through.
  EXPECT_NO_THROW(Sequential({Identity("Harmless"), BreakModule()})(ParseModule(kModule)));
}

TEST(WellFormedCheck, TheInstrumentNamesThePassThatBrokeTheModule) {
  PassContext ctx;
  ctx.instruments.push_back(std::make_shared<WellFormedInstrument>());
  ExpectBlames(ctx, "BreakModule");
}

TEST(WellFormedCheck, AnIllFormedInputIsReportedAsSuch) {
  IRModule broken = BreakModule()(ParseModule(kModule));
  PassContext ctx;
  ctx.verify_well_formed_after_each = true;
  try {
    Identity("Harmless")(broken, ctx);
    FAIL() << "the ill-formed input went unnoticed";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_EQ(std::string(e.what()).rfind("the input of pass Harmless is not well formed:", 0), 0u) << e.what();
  }
}

class SkipNamed : public PassInstrument {
 public:
  explicit SkipNamed(std::string name) : name_(std::move(name)) {}
  std::string name() const override { return "Skip"; }
  bool ShouldRun(const IRModule&, const PassInfo& info) override { return info.name != name_; }

 private:
  std::string name_;
};

TEST(PassInstrument, ShouldRunCanSkipAPass) {
  PassContext ctx;
  ctx.instruments.push_back(std::make_shared<SkipNamed>("DeadCodeElimination"));
  IRModule out = RunPasses(ParseModule(kModule), {"DeadCodeElimination"}, ctx);
  EXPECT_EQ(out.GetFunction("main")->body->blocks[0].bindings.size(), 2u);  // nothing removed
}

}  // namespace
}  // namespace rxt
