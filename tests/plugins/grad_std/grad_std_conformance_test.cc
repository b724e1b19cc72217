// The conformance test of the gradient rules: every rule the rxt_grad_std plugin registers is
// checked against float64 finite differences on the cases of gradient_cases.cc. A rule
// registered without a case fails here, so a new rule is tested the moment it exists.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "gradient_cases.h"
#include "rxt/ir/parser.h"
#include "rxt/plugin/plugin_host.h"
#include "rxt/transform/training/gradient.h"

namespace rxt::grad_test {
namespace {

constexpr const char* kPlugin = "rxt_grad_std";

/// The rules the plugin registers, by op name.
std::set<std::string> PluginRules() {
  PluginHost::Global().Load(RXT_GRAD_STD_PLUGIN);
  std::set<std::string> rules;
  for (const PluginItem& item : PluginHost::Global().Items(PluginItemKind::kGradient)) {
    if (item.plugin == kPlugin) rules.insert(item.name);
  }
  return rules;
}

std::map<std::string, std::vector<GradCase>> CasesByOp() {
  std::map<std::string, std::vector<GradCase>> by_op;
  for (GradCase& c : GradientCases()) by_op[c.op].push_back(std::move(c));
  return by_op;
}

TEST(GradStdConformance, EveryRuleHasCasesAndEveryCaseARule) {
  std::set<std::string> rules = PluginRules();
  std::map<std::string, std::vector<GradCase>> cases = CasesByOp();
  EXPECT_GE(rules.size(), 55u);
  for (const std::string& rule : rules)
    EXPECT_TRUE(cases.count(rule)) << "no conformance case for the rule of " << rule;
  for (const auto& [op, list] : cases) EXPECT_TRUE(rules.count(op)) << "cases for " << op << ", which has no rule";
}

TEST(GradStdConformance, EveryRuleMatchesFiniteDifferences) {
  std::set<std::string> rules = PluginRules();
  std::map<std::string, std::vector<GradCase>> cases = CasesByOp();
  uint32_t seed = 1;
  for (const std::string& rule : rules) {
    auto found = cases.find(rule);
    if (found == cases.end()) continue;  // reported by the test above
    for (const GradCase& c : found->second) {
      SCOPED_TRACE(rule + " with " + c.params + "\n" + c.body);
      try {
        EXPECT_EQ(CheckGradient(c, seed++), "");
      } catch (const std::exception& e) {
        ADD_FAILURE() << e.what();
      }
    }
  }
}

// docs/training.md has a line for every rule.
TEST(GradStdConformance, TheDocsListEveryRule) {
  std::ifstream file(std::string(RXT_SOURCE_DIR) + "/docs/training.md");
  std::stringstream text;
  text << file.rdbuf();
  for (const std::string& rule : PluginRules()) {
    EXPECT_NE(text.str().find("| `" + rule + "` |"), std::string::npos) << rule << " is missing from docs/training.md";
  }
}

// A rule that cannot differentiate a call says why, and the Gradient pass names the rule.
TEST(GradStdConformance, ARuleThatCannotDifferentiateACallSaysWhy) {
  PluginRules();
  IRModule module = ParseModule(R"(
def @f(%x: Tensor((n, 4, m), float64), %i: Tensor((2,), int64)) -> Tensor((), float64) {
  %t = take(%x, %i, axis=1)
  %r = sum(%t)
  return %r
}
)");
  try {
    Gradient(module, "f", std::vector<int>{0});
    FAIL() << "differentiated a take between two symbolic dims";
  } catch (const Error& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("gradient rule 'take' (plugin rxt_grad_std)"), std::string::npos) << what;
    EXPECT_NE(what.find("at most one dim may be symbolic"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace rxt::grad_test
