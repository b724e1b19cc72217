// Passes by name: ListPasses, CreatePass, RunPasses, and the index in transform/passes.h.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "rxt/ir/parser.h"
#include "rxt/pass/instrument.h"
#include "rxt/transform/passes.h"

namespace rxt {
namespace {

std::set<std::string> ListedNames() {
  std::set<std::string> names;
  for (const PassInfo& info : ListPasses()) names.insert(info.name);
  return names;
}

TEST(PassRegistry, ListsEveryPassWithAOneLineSummary) {
  std::vector<PassInfo> passes = ListPasses();
  EXPECT_EQ(ListedNames(), (std::set<std::string>{"WellFormed", "Normalize", "DeadCodeElimination",
                                                  "CanonicalizeBindings", "BindParams", "ConvertToDataflow", "LowerGradientOf",
                                                  "LegalizeOps", "FuseOps", "FuseKernels", "ParallelizeLoops",
                                                  "ReorderForMemory", "ScheduleCollectives",
                                                  "LegalizeLibraryCalls", "BindSymbolicVars",
                                                  "Gradient", "SimplifyTransposes", "AppendLoss", "SetupTrainer",
                                                  "FoldBatchNorm", "TrimConvTaps"}));
  for (const PassInfo& info : passes) {
    EXPECT_FALSE(info.summary.empty()) << info.name;
    EXPECT_EQ(info.summary.find('\n'), std::string::npos) << info.name;
    EXPECT_EQ(CreatePass(info.name).name(), info.name);
  }
}

TEST(PassRegistry, TheHeaderIndexMatchesTheRegistry) {
  std::ifstream in(std::string(RXT_SOURCE_DIR) + "/core/include/rxt/transform/passes.h");
  ASSERT_TRUE(in) << "cannot read passes.h";
  std::stringstream text;
  text << in.rdbuf();
  // The pass factories come before the by-name functions (CreatePass returns a Pass too).
  std::string header = text.str();
  header = header.substr(0, header.find("// ---- By name."));
  std::set<std::string> declared;
  // A factory declared here, or one of another header listed here: "//   Pass AppendLoss(...)".
  std::regex factory(R"(\n(?://   )?Pass (\w+)\()");
  for (auto it = std::sregex_iterator(header.begin(), header.end(), factory); it != std::sregex_iterator(); ++it) {
    declared.insert((*it)[1]);
  }
  EXPECT_EQ(declared, ListedNames()) << "transform/passes.h and ListPasses() must list the same passes";
}

TEST(PassRegistry, AnUnknownNameSuggestsTheClosest) {
  try {
    CreatePass("DeadCodeElimnation");
    FAIL() << "an unknown pass was created";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotFound);
    std::string what = e.what();
    EXPECT_NE(what.find("no pass named 'DeadCodeElimnation' (did you mean DeadCodeElimination?)"), std::string::npos)
        << what;
    EXPECT_NE(what.find("ConvertToDataflow"), std::string::npos) << what;  // the list of passes
  }
  EXPECT_THROW(RunPasses(IRModule(), {"Normalize", "NoSuchPass"}), Error);
}

TEST(PassRegistry, RunPassesRunsTheNamesInOrderUnderTheContext) {
  IRModule m = ParseModule(R"(
def @main(%x: Tensor((2,), float32)) -> Tensor((2,), float32) {
  %a: Tensor((2,), float32) = %x
  %b: Tensor((2,), float32) = exp(%a)
  %dead: Tensor((2,), float32) = nn.relu(%b)
  return %b
}
)");
  auto timing = std::make_shared<PassTimingInstrument>();
  PassContext ctx;
  ctx.instruments.push_back(timing);
  ctx.disabled_passes = {"ConvertToDataflow"};
  IRModule out = RunPasses(m, {"CanonicalizeBindings", "DeadCodeElimination", "ConvertToDataflow"}, ctx);
  std::vector<std::string> ran;
  for (const auto& record : timing->records()) ran.push_back(record.pass);
  EXPECT_EQ(ran, (std::vector<std::string>{"RunPasses", "CanonicalizeBindings", "DeadCodeElimination"}));
  const Function& f = out.GetFunction("main");
  ASSERT_EQ(f->body->blocks.size(), 1u);
  EXPECT_FALSE(f->body->blocks[0].is_dataflow);  // ConvertToDataflow was disabled
  EXPECT_EQ(f->body->blocks[0].bindings.size(), 1u);
}

}  // namespace
}  // namespace rxt
