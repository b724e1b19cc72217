#include "rxt/ir/equality.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "rxt/ir/parser.h"
#include "rxt/ir/printer.h"
#include "rxt/ir/op.h"

namespace rxt {
namespace {

// A module touching every kind of thing equality compares: module attributes, a kernel
// (symbolic buffer dims, loops, a block with a reduction), a Relax function with symbolic
// dims, a dataflow block, a constant, op attributes, call_kernel.
constexpr const char* kBase = R"(attributes {param_num = 1, name = "demo"}

kernel @scale(X: Buffer((n, 4), float32), Y: Buffer((n,), float32)) {
  for i in range(n) {
    for k in range(4) {
      block Y(vi = i, reduce vk = k) {
        init {
          Y[vi] = 0f32
        }
        Y[vi] = Y[vi] + X[vi, vk] * 2f32
      }
    }
  }
}

def @main(%x: Tensor((n, 4), float32), %w: Tensor((4, 4), float32)) -> Tensor((n,), float32) {
  dataflow {
    %lv0: Tensor((n, 4), float32) = matmul(%x, %w)
    %lv1: Tensor((n, 4), float32) = add(%lv0, const([1.5, 2, 3, 4], float32))
    %lv2: Tensor(float32) = sum(%lv1, axis=[0], keepdims=true)
    %lv3: Tensor(float16) = astype(%lv2, dtype=float16)
    %out: Tensor((n,), float32) = call_kernel(@scale, (%lv1,), out_sinfo=Tensor((n,), float32))
    output %out
  }
  return %out
}
)";

std::string ReplaceAll(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

TEST(StructuralEqual, ParsingTheSameTextTwiceGivesEqualModules) {
  IRModule a = ParseModule(kBase);
  IRModule b = ParseModule(kBase);
  EXPECT_TRUE(StructuralEqual(a, b));
  EXPECT_EQ(StructuralHash(a), StructuralHash(b));
}

TEST(StructuralEqual, RenamingEveryVariableKeepsModulesEqual) {
  std::string renamed = kBase;
  // Relax variables, symbolic dims (in both functions), loop vars, iterators, buffers.
  for (auto [from, to] : std::vector<std::pair<std::string, std::string>>{{"%lv0", "%a"},
                                                                          {"%lv1", "%b"},
                                                                          {"%lv2", "%c"},
                                                                          {"%out", "%result"},
                                                                          {"%x", "%input"},
                                                                          {"%w", "%weight"},
                                                                          {"(n,", "(rows,"},
                                                                          {"range(n)", "range(rows)"},
                                                                          {"for i ", "for ii "},
                                                                          {"= i,", "= ii,"},
                                                                          {"vk", "kk"},
                                                                          {"X:", "Src:"},
                                                                          {"X[", "Src["}}) {
    renamed = ReplaceAll(renamed, from, to);
  }
  ASSERT_NE(renamed, kBase);
  IRModule a = ParseModule(kBase);
  IRModule b = ParseModule(renamed);
  EXPECT_TRUE(StructuralEqual(a, b)) << renamed;
  EXPECT_EQ(StructuralHash(a), StructuralHash(b));
}

TEST(StructuralEqual, EverySingleChangeMakesModulesUnequal) {
  IRModule base = ParseModule(kBase);
  const std::vector<std::pair<std::string, std::string>> changes = {
      {"X: Buffer((n, 4), float32)", "X: Buffer((n, 5), float32)"},  // a dim
      {"-> Tensor((n,), float32)", "-> Tensor(ndim=1, float32)"},    // a return type
      {"float16", "bfloat16"},                                       // a dtype
      {"keepdims=true", "keepdims=false"},                           // an op attribute
      {"add(%lv0", "subtract(%lv0"},                                 // an op
      {"[1.5, 2, 3, 4]", "[1.5, 2, 3, 5]"},                          // a constant byte
      {"for k in range(4) {", "for k in range(4) parallel {"},       // a loop kind
      {"param_num = 1", "param_num = 2"},                            // a module attribute
      {"name = \"demo\"", "name = \"demo2\""},                       // a string attribute
      {"* 2f32", "* 3f32"},                                          // a kernel immediate
      {"reduce vk = k", "vk = k"},                                   // an iterator kind
      {"block Y(", "block Z("},                                      // a block name
      {"Y[vi] = 0f32", "Y[vi] = 1f32"},                              // the init step
      {"X[vi, vk] * 2f32", "X[vi, 0] * 2f32"},                       // an index
  };
  for (const auto& [from, to] : changes) {
    ASSERT_NE(std::string(kBase).find(from), std::string::npos) << "test bug: '" << from << "' is not in the base";
    IRModule changed = ParseModule(ReplaceAll(kBase, from, to));
    EXPECT_FALSE(StructuralEqual(base, changed)) << "change: " << from << " -> " << to;
    EXPECT_NE(StructuralHash(base), StructuralHash(changed)) << "change: " << from << " -> " << to;
  }
}

TEST(StructuralEqual, VariablesArePairedOneToOne) {
  // f(a, b) = a + b and f(a, b) = a + a differ although each use is "a parameter".
  IRModule sum = ParseModule(R"(
def @f(%a: Tensor((2,), float32), %b: Tensor((2,), float32)) -> Tensor((2,), float32) {
  %c: Tensor((2,), float32) = add(%a, %b)
  return %c
})");
  IRModule twice = ParseModule(R"(
def @f(%a: Tensor((2,), float32), %b: Tensor((2,), float32)) -> Tensor((2,), float32) {
  %c: Tensor((2,), float32) = add(%a, %a)
  return %c
})");
  IRModule swapped = ParseModule(R"(
def @f(%b: Tensor((2,), float32), %a: Tensor((2,), float32)) -> Tensor((2,), float32) {
  %c: Tensor((2,), float32) = add(%a, %b)
  return %c
})");
  EXPECT_FALSE(StructuralEqual(sum, twice));
  EXPECT_FALSE(StructuralEqual(sum, swapped));
  EXPECT_FALSE(StructuralEqual(twice, sum));
}

TEST(StructuralEqual, SymbolicDimsArePairedOneToOne) {
  auto parse = [](const std::string& params) {
    return ParseModule("def @f(" + params + ") -> Tensor(ndim=1, float32) {\n  return %a\n}\n");
  };
  IRModule two_dims = parse("%a: Tensor((n,), float32), %b: Tensor((m,), float32)");
  IRModule same_dim = parse("%a: Tensor((n,), float32), %b: Tensor((n,), float32)");
  IRModule renamed = parse("%a: Tensor((p,), float32), %b: Tensor((q,), float32)");
  EXPECT_FALSE(StructuralEqual(two_dims, same_dim));
  EXPECT_TRUE(StructuralEqual(two_dims, renamed));
  EXPECT_EQ(StructuralHash(two_dims), StructuralHash(renamed));
  EXPECT_NE(StructuralHash(two_dims), StructuralHash(same_dim));
}

TEST(StructuralEqual, FunctionNamesAndEntryOrderCount) {
  const std::string f = "def @f(%a: Tensor((2,), float32)) -> Tensor((2,), float32) {\n  return %a\n}\n";
  const std::string g = "def @g(%a: Tensor((2,), float32)) -> Tensor((2,), float32) {\n  return %a\n}\n";
  IRModule fg = ParseModule(f + "\n" + g);
  IRModule gf = ParseModule(g + "\n" + f);
  IRModule ff = ParseModule(f + "\n" + ReplaceAll(g, "@g", "@h"));
  EXPECT_FALSE(StructuralEqual(fg, gf));
  EXPECT_FALSE(StructuralEqual(fg, ff));
  EXPECT_TRUE(StructuralEqual(fg, ParseModule(f + "\n" + g)));
}

TEST(StructuralEqual, DataflownessOfVariablesCounts) {
  IRModule dataflow = ParseModule(R"(
def @f(%a: Tensor((2,), float32)) -> Tensor((2,), float32) {
  dataflow {
    %b: Tensor((2,), float32) = nn.relu(%a)
    %c: Tensor((2,), float32) = nn.relu(%b)
    output %c
  }
  return %c
})");
  IRModule both_outputs = ParseModule(R"(
def @f(%a: Tensor((2,), float32)) -> Tensor((2,), float32) {
  dataflow {
    %b: Tensor((2,), float32) = nn.relu(%a)
    %c: Tensor((2,), float32) = nn.relu(%b)
    output %b, %c
  }
  return %c
})");
  EXPECT_FALSE(StructuralEqual(dataflow, both_outputs));
}

TEST(StructuralEqual, SpansAreIgnored) {
  IRModule a = ParseModule(kBase, "one.rxt");
  IRModule b = ParseModule("\n\n# shifted down, other file name\n" + std::string(kBase), "two.rxt");
  EXPECT_TRUE(StructuralEqual(a, b));
  EXPECT_EQ(StructuralHash(a), StructuralHash(b));
}

TEST(StructuralEqual, ExprAndStructInfoOverloads) {
  Var x = MakeVar("x", TensorSI({2, 3}, DType::kFloat32));
  Var y = MakeVar("y", TensorSI({2, 3}, DType::kFloat32));
  Var z = MakeVar("z", TensorSI({2, 4}, DType::kFloat32));
  Expr call_x = MakeOpCall("nn.relu", {x});
  Expr call_y = MakeOpCall("nn.relu", {y});
  Expr call_z = MakeOpCall("nn.relu", {z});
  EXPECT_TRUE(StructuralEqual(call_x, call_y));  // free variables pair at first encounter
  EXPECT_EQ(StructuralHash(call_x), StructuralHash(call_y));
  EXPECT_FALSE(StructuralEqual(call_x, call_z));  // ... with equal struct info
  EXPECT_FALSE(StructuralEqual(MakeTuple({x, x}), MakeTuple({x, y})));
  EXPECT_TRUE(StructuralEqual(MakeTuple({x, y}), MakeTuple({y, x})));

  PrimVar n = MakePrimVar("n");
  PrimVar m = MakePrimVar("m");
  EXPECT_TRUE(StructuralEqual(TensorSI({n, IntImm(4)}, DType::kFloat32), TensorSI({m, IntImm(4)}, DType::kFloat32)));
  EXPECT_FALSE(StructuralEqual(TensorSI({n, n}, DType::kFloat32), TensorSI({n, m}, DType::kFloat32)));
  EXPECT_FALSE(StructuralEqual(TensorSI(DType::kFloat32, 2), TensorSI(DType::kFloat32, 3)));
  EXPECT_FALSE(StructuralEqual(ObjectSI(), TensorSI(DType::kFloat32)));
  EXPECT_EQ(StructuralHash(TupleSI({ObjectSI(), PrimSI(DType::kInt64, n)})),
            StructuralHash(TupleSI({ObjectSI(), PrimSI(DType::kInt64, m)})));
  EXPECT_TRUE(StructuralEqual(n * IntImm(2), m * IntImm(2)));
  EXPECT_FALSE(StructuralEqual(n * IntImm(2), n + IntImm(2)));
  EXPECT_FALSE(StructuralEqual(FloatImm(0.0), FloatImm(-0.0)));  // bitwise
}

TEST(StructuralEqual, KernelOverloadPairsBuffers) {
  IRModule m = ParseModule(kBase);
  IRModule renamed = ParseModule(ReplaceAll(ReplaceAll(kBase, "Y:", "Out:"), "Y[", "Out["));
  EXPECT_TRUE(StructuralEqual(m.GetKernel("scale"), renamed.GetKernel("scale")));
  EXPECT_EQ(StructuralHash(m.GetKernel("scale")), StructuralHash(renamed.GetKernel("scale")));
  EXPECT_TRUE(StructuralEqual(m.GetFunction("main"), renamed.GetFunction("main")));
  EXPECT_FALSE(StructuralEqual(m.GetKernel("scale"), KernelFunction()));
}

TEST(StructuralEqual, ExampleModulesRoundTripThroughText) {
  for (const char* name : {"mlp.rxt", "my_module.rxt"}) {
    std::string path = std::string(RXT_SOURCE_DIR) + "/examples/" + name;
    FILE* file = std::fopen(path.c_str(), "rb");
    ASSERT_NE(file, nullptr) << path;
    std::string text;
    char buffer[4096];
    for (size_t n; (n = std::fread(buffer, 1, sizeof(buffer), file)) > 0;) text.append(buffer, n);
    std::fclose(file);
    IRModule parsed = ParseModule(text, path);
    IRModule reparsed = ParseModule(PrintModule(parsed));
    EXPECT_TRUE(StructuralEqual(parsed, reparsed)) << name;
    EXPECT_EQ(StructuralHash(parsed), StructuralHash(reparsed)) << name;
  }
}

// A tuple holding the previous one twice, |depth| times: 2^depth paths, depth + 1 nodes.
StructInfo DoubledTuple(int depth, StructInfo leaf) {
  for (int i = 0; i < depth; ++i) leaf = TupleSI({leaf, leaf});
  return leaf;
}

// Shared struct info is compared and hashed once per node (2^64 paths would never end), and
// hashes like the same struct info without sharing.
TEST(StructuralEqual, SharedStructInfoIsComparedAndHashedPerNode) {
  PrimVar n = MakePrimVar("n"), m = MakePrimVar("m");
  StructInfo a = DoubledTuple(64, TensorSI({n, IntImm(4)}, DType::kFloat32));
  StructInfo b = DoubledTuple(64, TensorSI({m, IntImm(4)}, DType::kFloat32));
  EXPECT_TRUE(StructuralEqual(a, b));
  EXPECT_EQ(StructuralHash(a), StructuralHash(b));
  EXPECT_FALSE(StructuralEqual(a, DoubledTuple(64, TensorSI({n, IntImm(5)}, DType::kFloat32))));
  EXPECT_FALSE(StructuralEqual(TupleSI({a, b}), DoubledTuple(65, TensorSI({n, IntImm(4)}, DType::kFloat32))));

  // The same value without sharing: equal, and the same hash.
  StructInfo leaf = TensorSI({n, IntImm(4)}, DType::kFloat32);
  std::function<StructInfo(int)> tree = [&](int depth) -> StructInfo {
    return depth == 0 ? TensorSI({n, IntImm(4)}, DType::kFloat32) : TupleSI({tree(depth - 1), tree(depth - 1)});
  };
  StructInfo shared = DoubledTuple(6, leaf);
  EXPECT_TRUE(StructuralEqual(shared, tree(6)));
  EXPECT_EQ(StructuralHash(shared), StructuralHash(tree(6)));
  EXPECT_NE(StructuralHash(shared), StructuralHash(DoubledTuple(5, leaf)));
}

}  // namespace
}  // namespace rxt
