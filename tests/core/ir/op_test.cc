// The op registry's life cycle: built and frozen by the compiler's initialisation, changed
// afterwards only inside Extend (under its write lock) while other threads keep reading.
#include "rxt/ir/op.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "rxt/transform/legalize/legalize.h"

namespace rxt {
namespace {

ErrorCode CodeOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.code();
  }
  return ErrorCode::kOk;
}

TEST(OpRegistry, TheGlobalRegistryIsFrozenWithEveryLegalizationAttached) {
  OpRegistry& registry = OpRegistry::Global();
  EXPECT_TRUE(registry.frozen());
  // Legalizations are there without any pass having been created.
  EXPECT_TRUE(registry.Get("nn.relu").Has<FLegalize>());
}

TEST(OpRegistry, AFrozenRegistryRefusesChangesOutsideExtend) {
  OpRegistry& registry = OpRegistry::Global();
  EXPECT_EQ(CodeOf([&] { registry.Def("test.outside_extend"); }), ErrorCode::kFailedPrecondition);
  EXPECT_EQ(CodeOf([&] { registry.FindMutable("add"); }), ErrorCode::kFailedPrecondition);
  EXPECT_EQ(registry.Find("test.outside_extend"), nullptr);
}

TEST(OpRegistry, ExtendAddsOpsAndAttributesButNeverReplacesOne) {
  OpRegistry& registry = OpRegistry::Global();
  registry.Extend([](OpRegistry& r) {
    if (r.Find("test.extended") == nullptr) r.Def("test.extended").Input("x");
  });
  ASSERT_NE(registry.Find("test.extended"), nullptr);
  // An attribute the op has already stays: a frozen registry only grows.
  ErrorCode code = CodeOf([&] {
    registry.Extend([](OpRegistry& r) { r.FindMutable("nn.relu")->Set<FLegalize>(nullptr); });
  });
  EXPECT_EQ(code, ErrorCode::kAlreadyExists);
  EXPECT_TRUE(static_cast<bool>(*registry.Get("nn.relu").Get<FLegalize>()));
}

TEST(OpRegistry, OwnedAttributesAreOnePerOwnerAndCanBeDropped) {
  struct FTestOwned {
    int value;
  };
  OpRegistry& registry = OpRegistry::Global();
  int owner_a = 0, owner_b = 0;
  registry.Extend([&](OpRegistry& r) {
    r.FindMutable("exp")->SetOwned<FTestOwned>(&owner_a, {1});
    r.FindMutable("exp")->SetOwned<FTestOwned>(&owner_b, {2});
  });
  const OpDef& exp = registry.Get("exp");
  EXPECT_EQ(exp.GetOwned<FTestOwned>(&owner_a)->value, 1);
  EXPECT_EQ(exp.GetOwned<FTestOwned>(&owner_b)->value, 2);
  registry.Extend([&](OpRegistry& r) { r.FindMutable("exp")->DropOwned<FTestOwned>(&owner_a); });
  EXPECT_FALSE(exp.GetOwned<FTestOwned>(&owner_a).has_value());
  EXPECT_EQ(exp.GetOwned<FTestOwned>(&owner_b)->value, 2);
  registry.Extend([&](OpRegistry& r) { r.FindMutable("exp")->DropOwned<FTestOwned>(&owner_b); });
}

// Readers on other threads while one thread extends: run under TSan (RXT_SANITIZE=thread)
// this is what proves the lock; without it, the results must still be consistent.
TEST(OpRegistry, ReadersOnOtherThreadsSeeAConsistentRegistryWhileOneExtends) {
  struct FTestCounter {
    int value;
  };
  OpRegistry& registry = OpRegistry::Global();
  std::atomic<bool> stop{false};
  std::atomic<int> bad{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 2; ++t) {
    readers.emplace_back([&] {
      while (!stop) {
        const OpDef* add = registry.Find("add");
        if (add == nullptr || !add->Has<FInferStructInfo>() || registry.List().empty()) ++bad;
        (void)add->GetOwned<FTestCounter>(&stop);
      }
    });
  }
  for (int i = 0; i < 200; ++i) {
    registry.Extend([&](OpRegistry& r) {
      r.FindMutable("add")->SetOwned<FTestCounter>(&stop, {i});
      std::string name = "test.concurrent." + std::to_string(i);
      if (r.Find(name) == nullptr) r.Def(name);
    });
  }
  stop = true;
  for (std::thread& reader : readers) reader.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(registry.Get("add").GetOwned<FTestCounter>(&stop)->value, 199);
  registry.Extend([&](OpRegistry& r) { r.FindMutable("add")->DropOwned<FTestCounter>(&stop); });
}

TEST(OpRegistry, UnknownOpsGetTheClosestNameAsAHint) {
  try {
    OpRegistry::Global().Get("nn.rleu");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotFound);
    EXPECT_NE(std::string(e.what()).find("did you mean 'nn.relu'?"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace rxt
