// The registry and op_list.h agree, and every op is complete: inference, a doc string, a
// consistent attribute schema.
#include "rxt/op/op_list.h"

#include <fstream>
#include <set>

#include "op_test_util.h"

namespace rxt::op_test {
namespace {

std::set<std::string> CoreOpNames() { return {kCoreOpNames.begin(), kCoreOpNames.end()}; }

TEST(OpListTest, NamesAreUnique) { EXPECT_EQ(CoreOpNames().size(), kCoreOpNames.size()); }

TEST(OpListTest, RegisterCoreOpsDeclaresExactlyTheListedOps) {
  OpRegistry registry;
  RegisterCoreOps(registry);
  std::set<std::string> registered;
  for (const OpDef* op : registry.List()) registered.insert(op->name());
  EXPECT_EQ(registered, CoreOpNames());
}

TEST(OpListTest, GlobalRegistryHasEveryListedOp) {
  for (std::string_view name : kCoreOpNames) {
    EXPECT_NE(OpRegistry::Global().Find(std::string(name)), nullptr) << name;
  }
}

TEST(OpListTest, EveryOpIsComplete) {
  for (const OpDef* op : OpRegistry::Global().List()) {
    if (!CoreOpNames().count(op->name())) continue;  // ops added by plugins or other tests
    SCOPED_TRACE(op->name());
    EXPECT_TRUE(op->Has<FInferStructInfo>());
    EXPECT_FALSE(op->doc().empty());
    EXPECT_FALSE(op->inputs().empty() && !op->variadic());
    for (const InputSpec& input : op->inputs()) EXPECT_FALSE(input.name.empty());
    // Every default passes the op's own schema.
    Attrs defaults;
    bool has_required = false;
    for (const AttrSpec& spec : op->attrs()) {
      has_required = has_required || spec.required;
      if (spec.required) continue;
      defaults.Set(spec.name, spec.default_value);
      bool optional_kind = spec.kind == AttrKind::kOptionalInt || spec.kind == AttrKind::kOptionalIntList;
      EXPECT_EQ(spec.default_value.is_none(), optional_kind) << spec.name;
      EXPECT_FALSE(spec.doc.empty()) << spec.name;
    }
    if (!has_required) {
      EXPECT_NO_THROW(op->CompleteAttrs(defaults));
    }
  }
}

TEST(OpListTest, OnlyPrintAndAssertAreImpure) {
  for (std::string_view name : kCoreOpNames) {
    bool impure = name == "print" || name == "assert";
    EXPECT_EQ(OpRegistry::Global().Get(std::string(name)).pure(), !impure) << name;
  }
}

// op_list.h is the index a newcomer reads: its table has a line for every op, and only
// for listed ops.
TEST(OpListTest, HeaderTableHasOneLinePerOp) {
  std::ifstream file(std::string(RXT_SOURCE_DIR) + "/core/include/rxt/op/op_list.h");
  ASSERT_TRUE(file.good());
  std::set<std::string> in_table;
  std::string line;
  const std::string entry_prefix = "//   ";
  while (std::getline(file, line) && line != "#pragma once") {
    if (line.rfind(entry_prefix, 0) != 0 || line.size() <= entry_prefix.size() || line[entry_prefix.size()] == ' ') {
      continue;  // not an entry: a heading, a note or a continuation line
    }
    size_t paren = line.find('(', entry_prefix.size());
    ASSERT_NE(paren, std::string::npos) << line;
    std::string name = line.substr(entry_prefix.size(), paren - entry_prefix.size());
    EXPECT_TRUE(in_table.insert(name).second) << name << " has two lines";
  }
  EXPECT_EQ(in_table, CoreOpNames());
}

TEST(OpListTest, BlockBuilderInfersThroughTheRegistry) {
  PrimVar n = MakePrimVar("n");
  Var x = MakeVar("x", TensorSI(std::vector<PrimExpr>{n, I(784)}, f32));
  Var w = MakeVar("w", TensorSI(std::vector<int64_t>{784, 128}, f32));
  Var b = MakeVar("b", TensorSI(std::vector<int64_t>{128}, f32));
  BlockBuilder builder;
  builder.BeginDataflowBlock();
  Var lv0 = builder.Emit(MakeOpCall("matmul", {x, w}));
  Var lv1 = builder.Emit(MakeOpCall("add", {lv0, b}));
  Var out = builder.EmitOutput(MakeOpCall("nn.relu", {lv1}));
  builder.EndBlock();
  EXPECT_EQ(ToString(out->struct_info), "Tensor((n, 128), float32)");
  EXPECT_THROW(builder.Emit(MakeOpCall("matmul", {w, w})), Error);
}

}  // namespace
}  // namespace rxt::op_test
