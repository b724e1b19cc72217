// IRModule: entries in order, lookups by name, unique names.
#include "rxt/ir/module.h"

#include <gtest/gtest.h>

#include "rxt/ir/builder.h"

namespace rxt {
namespace {

Function Identity() {
  Var x = MakeVar("x", TensorSI(std::vector<int64_t>{2}, DType::kFloat32));
  return MakeFunction({x}, MakeSeqExpr({}, x), x->struct_info);
}

std::vector<std::string> Names(const IRModule& module) {
  std::vector<std::string> names;
  for (const IRModule::Entry& entry : module.entries()) names.push_back(entry.name);
  return names;
}

TEST(IRModule, EntriesKeepTheirOrderThroughReplacementAndRemoval) {
  IRModule module;
  for (const char* name : {"a", "b", "c", "d"}) module.Add(name, Identity());
  Function replacement = Identity();
  module.Add("b", replacement);  // replaced in place
  EXPECT_EQ(Names(module), (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_EQ(module.FindFunction("b"), replacement);
  EXPECT_TRUE(module.Remove("a"));
  EXPECT_FALSE(module.Remove("a"));
  EXPECT_EQ(module.RemoveIf([](const IRModule::Entry& e) { return e.name == "c"; }), 1u);
  EXPECT_EQ(Names(module), (std::vector<std::string>{"b", "d"}));
  EXPECT_EQ(module.FindFunction("b"), replacement);  // lookups follow the moved entries
  EXPECT_NE(module.FindFunction("d"), nullptr);
  EXPECT_EQ(module.FindFunction("c"), nullptr);
  EXPECT_FALSE(module.Contains("a"));
  EXPECT_EQ(module.GetFunction("d"), module.entries()[1].function);
}

TEST(IRModule, UniqueNameIsTheFirstFreeOneAgainAfterARemoval) {
  IRModule module;
  EXPECT_EQ(module.UniqueName("f"), "f");
  module.Add("f", Identity());
  EXPECT_EQ(module.UniqueName("f"), "f_1");
  module.Add("f_1", Identity());
  module.Add("f_2", Identity());
  EXPECT_EQ(module.UniqueName("f"), "f_3");
  EXPECT_EQ(module.UniqueName("f"), "f_3");  // not taken yet
  module.Remove("f_1");
  EXPECT_EQ(module.UniqueName("f"), "f_1");
}

// Each name came from a scan of the whole module, and each call of UniqueName tried f_1,
// f_2... again: cubic, 20,000 functions never finished. Now linear.
TEST(IRModule, TwentyThousandFunctionsOfOneNameInLinearTime) {
  IRModule module;
  const int n = 20000;
  for (int i = 0; i < n; ++i) module.Add(module.UniqueName("f"), Identity());
  ASSERT_EQ(module.entries().size(), static_cast<size_t>(n));
  EXPECT_EQ(module.entries().back().name, "f_" + std::to_string(n - 1));
  for (int i = 1; i < n; ++i) ASSERT_TRUE(module.Contains("f_" + std::to_string(i)));
  // f_10..f_99 and f_1000..f_9999 go.
  EXPECT_EQ(module.RemoveIf([](const IRModule::Entry& e) { return e.name.size() % 2 == 0; }), 9090u);
  EXPECT_EQ(module.UniqueName("f"), "f_10");
}

}  // namespace
}  // namespace rxt
