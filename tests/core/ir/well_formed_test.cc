// One test per kind of diagnostic of the well-formed checker. Ill-formed IR cannot come from
// the parser (it refuses it), so these modules are built with the constructors.
#include "rxt/ir/well_formed.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "rxt/ir/builder.h"
#include "rxt/ir/parser.h"
#include "rxt/ir/op.h"
#include "test_util/test_files.h"

namespace rxt {
namespace {

using test::FilesWithExtension;
using test::ReadFile;

const DType f32 = DType::kFloat32;

StructInfo T23() { return TensorSI({2, 3}, f32); }

/// |e| with its struct info inferred (its arguments must be leaves).
Expr Norm(const Expr& e, const IRModule* module = nullptr) { return BlockBuilder(module).Normalize(e); }

BindingBlock Block(std::vector<Binding> bindings, bool dataflow = false) {
  return BindingBlock{std::move(bindings), dataflow};
}

Function Fn(std::vector<Var> params, std::vector<BindingBlock> blocks, Expr body, StructInfo ret = nullptr) {
  StructInfo r = ret ? ret : body->struct_info;
  return MakeFunction(std::move(params), MakeSeqExpr(std::move(blocks), std::move(body)), r);
}

IRModule ModuleOf(const std::string& name, Function f) {
  IRModule m;
  m.Add(name, std::move(f));
  return m;
}

std::string All(const std::vector<Diagnostic>& diagnostics) {
  std::string out;
  for (const auto& d : diagnostics) out += d.ToString() + "\n";
  return out;
}

/// Exactly one diagnostic, containing |needle|, about function |function|.
void ExpectOnly(const IRModule& m, const std::string& needle, const std::string& function = "main") {
  std::vector<Diagnostic> diagnostics = CheckWellFormed(m);
  ASSERT_EQ(diagnostics.size(), 1u) << All(diagnostics);
  EXPECT_NE(diagnostics[0].message.find(needle), std::string::npos) << All(diagnostics);
  EXPECT_EQ(diagnostics[0].function, function);
  EXPECT_EQ(diagnostics[0].message.rfind("@" + function + ": ", 0), 0u) << diagnostics[0].message;
}

TEST(WellFormed, TheExamplesAreWellFormed) {
  for (const char* name : {"mlp.rxt", "my_module.rxt"}) {
    std::string path = std::string(RXT_SOURCE_DIR) + "/examples/" + name;
    IRModule m = ParseModule(ReadFile(path), path);
    EXPECT_TRUE(CheckWellFormed(m).empty()) << name << ":\n" << All(CheckWellFormed(m));
    EXPECT_NO_THROW(VerifyWellFormed(m));
  }
}

TEST(WellFormed, ParsedBranchesAndMatchCastsAreWellFormed) {
  IRModule m = ParseModule(R"(
def @main(%x: Tensor(ndim=2, float32), %c: Tensor((), bool)) -> Tensor(ndim=2, float32) {
  %y: Tensor((n, m), float32) = match_cast(%x, Tensor((n, m), float32))
  %s: Shape((n, m)) = shape(n, m)
  %r: Tensor((n, m), float32) = if %c {
    dataflow {
      %t: Tensor((n, m), float32) = exp(%y)
      %u: Tensor((n, m), float32) = nn.relu(%t)
      output %u
    }
    yield %u
  } else {
    yield %y
  }
  return %r
})");
  EXPECT_TRUE(CheckWellFormed(m).empty()) << All(CheckWellFormed(m));
}

TEST(WellFormed, UndefinedVariable) {
  Var x = MakeVar("x", T23());
  Var ghost = MakeVar("ghost", T23());
  Var y = MakeVar("y", T23());
  ExpectOnly(ModuleOf("main", Fn({x}, {Block({{y, Norm(MakeOpCall("add", {x, ghost})), nullptr}})}, y)),
             "%ghost is used before it is defined");
}

TEST(WellFormed, VariableDefinedTwice) {
  Var x = MakeVar("x", T23());
  Var y = MakeVar("y", T23());
  Expr relu = Norm(MakeOpCall("nn.relu", {x}));
  ExpectOnly(ModuleOf("main", Fn({x}, {Block({{y, relu, nullptr}, {y, relu, nullptr}})}, y)), "%y is defined twice");
  ExpectOnly(ModuleOf("main", Fn({x, x}, {}, x)), "%x is defined twice");
}

TEST(WellFormed, DataflowVariableUsedOutsideItsBlock) {
  Var x = MakeVar("x", T23());
  Var lv = MakeDataflowVar("lv", T23());
  ExpectOnly(ModuleOf("main", Fn({x}, {Block({{lv, Norm(MakeOpCall("nn.relu", {x})), nullptr}}, true)}, lv)),
             "dataflow variable %lv is used outside its dataflow block");
}

TEST(WellFormed, DataflowVariableBoundOutsideADataflowBlock) {
  Var x = MakeVar("x", T23());
  Var lv = MakeDataflowVar("lv", T23());
  Var y = MakeVar("y", T23());
  ExpectOnly(ModuleOf("main", Fn({x},
                                 {Block({{lv, Norm(MakeOpCall("nn.relu", {x})), nullptr},
                                         {y, Norm(MakeOpCall("exp", {lv})), nullptr}})},
                                 y)),
             "dataflow variable %lv is defined outside a dataflow block");
}

TEST(WellFormed, ImpureOpInsideADataflowBlock) {
  Var x = MakeVar("x", T23());
  Var printed = MakeDataflowVar("printed", TupleSI({}));
  ExpectOnly(ModuleOf("main", Fn({x}, {Block({{printed, Norm(MakeOpCall("print", {x})), nullptr}}, true)}, x)),
             "impure call to print inside a dataflow block");
  // Outside a dataflow block it is fine in a function marked impure, and an error otherwise.
  Var y = MakeVar("y", TupleSI({}));
  std::vector<BindingBlock> blocks = {Block({{y, Norm(MakeOpCall("print", {x})), nullptr}})};
  Function impure = MakeFunction({x}, MakeSeqExpr(blocks, x), x->struct_info, {}, /*is_pure=*/false);
  EXPECT_TRUE(CheckWellFormed(ModuleOf("main", impure)).empty());
  ExpectOnly(ModuleOf("main", Fn({x}, blocks, x)), "impure call to print in a function not marked impure");
}

TEST(WellFormed, ImpureFunctionCalledFromAPureOne) {
  IRModule m;
  Var a = MakeVar("a", T23());
  m.Add("log_it", MakeFunction({a}, MakeSeqExpr({}, a), T23(), {}, /*is_pure=*/false));
  Var x = MakeVar("x", T23());
  Var lv = MakeVar("lv", T23());
  m.Add("main", Fn({x}, {Block({{lv, Norm(MakeCall(MakeGlobalVar("log_it"), {x}), &m), nullptr}})}, lv));
  ExpectOnly(m, "impure call to @log_it in a function not marked impure");
}

TEST(WellFormed, ImpureFunctionCallInsideADataflowBlock) {
  IRModule m;
  Var a = MakeVar("a", T23());
  m.Add("log_it", MakeFunction({a}, MakeSeqExpr({}, a), T23(), {}, /*is_pure=*/false));
  Var x = MakeVar("x", T23());
  Var lv = MakeVar("lv", T23());
  m.Add("main", Fn({x}, {Block({{lv, Norm(MakeCall(MakeGlobalVar("log_it"), {x}), &m), nullptr}}, true)}, lv));
  ExpectOnly(m, "impure call to @log_it inside a dataflow block");
}

TEST(WellFormed, BindingStructInfoMismatch) {
  Var x = MakeVar("x", T23());
  Var y = MakeVar("y", TensorSI({2, 4}, f32));
  ExpectOnly(ModuleOf("main", Fn({x}, {Block({{y, Norm(MakeOpCall("nn.relu", {x})), nullptr}})}, y)),
             "struct info mismatch: %y is Tensor((2, 4), float32) but its value is Tensor((2, 3), float32)");
}

TEST(WellFormed, BodyDoesNotFitTheReturnStructInfo) {
  Var x = MakeVar("x", T23());
  ExpectOnly(ModuleOf("main", Fn({x}, {}, x, TensorSI({3, 3}, f32))),
             "the body returns Tensor((2, 3), float32) but the function declares Tensor((3, 3), float32)");
}

TEST(WellFormed, CallToAMissingFunction) {
  Var x = MakeVar("x", T23());
  Var y = MakeVar("y", T23());
  Expr call = MakeCall(MakeGlobalVar("nowhere"), {x});
  call->struct_info = T23();  // inference would refuse it
  ExpectOnly(ModuleOf("main", Fn({x}, {Block({{y, call, nullptr}})}, y)), "@nowhere does not exist in the module");
}

IRModule WithKernel(int num_params) {
  IRModule m;
  std::vector<KernelParam> params;
  for (int i = 0; i < num_params; ++i)
    params.push_back({MakeBuffer("B" + std::to_string(i), f32, {IntImm(2), IntImm(3)}), nullptr});
  m.AddKernel("k", MakeKernelFunction(params, MakeSeq({})));
  return m;
}

Function CallsKernel(const std::string& kernel) {
  Var x = MakeVar("x", T23());
  Var y = MakeVar("y", T23());
  Expr call = Norm(MakeOpCall("call_kernel", {MakeGlobalVar(kernel), MakeTuple({x})}, {}, {T23()}));
  return Fn({x}, {Block({{y, call, nullptr}})}, y);
}

TEST(WellFormed, CallKernelToAMissingKernel) {
  IRModule m = WithKernel(2);
  m.Add("main", CallsKernel("missing"));
  ExpectOnly(m, "call_kernel: kernel @missing does not exist in the module");
}

TEST(WellFormed, CallKernelWithTheWrongNumberOfBuffers) {
  IRModule m = WithKernel(3);
  m.Add("main", CallsKernel("k"));
  ExpectOnly(m, "call_kernel: @k takes 3 parameter(s) but is given 1 input(s) and 1 output(s)");
  IRModule right = WithKernel(2);
  right.Add("main", CallsKernel("k"));
  EXPECT_TRUE(CheckWellFormed(right).empty()) << All(CheckWellFormed(right));
}

TEST(WellFormed, KernelCalledLikeAFunction) {
  IRModule m = WithKernel(2);
  Var x = MakeVar("x", T23());
  Var y = MakeVar("y", T23());
  Expr call = MakeCall(MakeGlobalVar("k"), {x});
  call->struct_info = T23();
  m.Add("main", Fn({x}, {Block({{y, call, nullptr}})}, y));
  ExpectOnly(m, "@k is a kernel function: call it with call_kernel");
}

TEST(WellFormed, SymbolicDimUsedBeforeItIsDefined) {
  PrimVar n = MakePrimVar("n");
  PrimVar m = MakePrimVar("m");
  Var x = MakeVar("x", TensorSI({n, IntImm(3)}, f32));
  Var s = MakeVar("s", ShapeSI({n, m}));
  ExpectOnly(ModuleOf("main", Fn({x}, {Block({{s, MakeShapeExpr({n, m}), nullptr}})}, x)),
             "symbolic variable m is used before a parameter or match_cast defines it");
  // A match_cast defines m for what follows.
  Var any = MakeVar("any", TensorSI(f32, 1));
  Var cast = MakeVar("cast", TensorSI({m}, f32));
  Var s2 = MakeVar("s2", ShapeSI({n, m}));
  IRModule defined = ModuleOf(
      "main", Fn({x, any}, {Block({{cast, any, TensorSI({m}, f32)}, {s2, MakeShapeExpr({n, m}), nullptr}})}, x));
  EXPECT_TRUE(CheckWellFormed(defined).empty()) << All(CheckWellFormed(defined));
}

TEST(WellFormed, ValueWithoutStructInfo) {
  Var x = MakeVar("x", T23());
  Var y = MakeVar("y", T23());
  ExpectOnly(ModuleOf("main", Fn({x}, {Block({{y, MakeOpCall("nn.relu", {x}), nullptr}})}, y)),
             "the value of %y is not normalized");
}

TEST(WellFormed, NestedCallArgument) {
  Var x = MakeVar("x", T23());
  Var y = MakeVar("y", T23());
  Expr inner = Norm(MakeOpCall("nn.relu", {x}));
  Expr outer = MakeOpCall("exp", {inner});
  outer->struct_info = T23();
  ExpectOnly(ModuleOf("main", Fn({x}, {Block({{y, outer, nullptr}})}, y)),
             "argument 0 of a call is not in normal form");
}

TEST(WellFormed, DiagnosticsCarryTheSpanAndAllAreReported) {
  auto file = std::make_shared<const std::string>("model.rxt");
  Var x = MakeVar("x", T23());
  Var y = MakeVar("y", TensorSI({2, 4}, f32), Span{file, 7, 5});
  Var z = MakeVar("z", T23());
  Var ghost = MakeVar("ghost", T23());
  Expr relu = MakeOpCall("nn.relu", {x}, {}, {}, Span{file, 7, 28});
  IRModule m = ModuleOf(
      "main", Fn({x}, {Block({{y, Norm(relu), nullptr}, {z, Norm(MakeOpCall("add", {x, ghost})), nullptr}})}, z));
  std::vector<Diagnostic> diagnostics = CheckWellFormed(m);
  ASSERT_EQ(diagnostics.size(), 2u) << All(diagnostics);
  EXPECT_EQ(diagnostics[0].ToString().rfind("model.rxt:7:28: @main: struct info mismatch", 0), 0u)
      << diagnostics[0].ToString();
  try {
    VerifyWellFormed(m);
    FAIL() << "VerifyWellFormed accepted an ill-formed module";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    std::string what = e.what();
    EXPECT_NE(what.find("2 problems"), std::string::npos) << what;
    EXPECT_NE(what.find("struct info mismatch"), std::string::npos) << what;
    EXPECT_NE(what.find("%ghost is used before it is defined"), std::string::npos) << what;
  }
}

// ---- Kernels

PrimExpr F(double v) { return FloatImm(v, f32); }

TEST(WellFormedKernel, UndeclaredBuffer) {
  Buffer a = MakeBuffer("A", f32, {IntImm(4)});
  Buffer stray = MakeBuffer("Stray", f32, {IntImm(4)});
  PrimVar i = MakePrimVar("i");
  IRModule m;
  m.AddKernel("k", MakeKernelFunction({{a, nullptr}}, MakeFor(i, IntImm(4), MakeStore(stray, {i}, MakeLoad(a, {i})))));
  ExpectOnly(m, "buffer Stray is used but not declared", "k");
}

TEST(WellFormedKernel, UndefinedAndOutOfScopeLoopVariables) {
  Buffer a = MakeBuffer("A", f32, {IntImm(4)});
  PrimVar i = MakePrimVar("i");
  PrimVar j = MakePrimVar("j");
  IRModule never;
  never.AddKernel("k", MakeKernelFunction({{a, nullptr}}, MakeFor(i, IntImm(4), MakeStore(a, {j}, F(0)))));
  ExpectOnly(never, "variable j is used but never defined", "k");
  IRModule outside;
  outside.AddKernel("k", MakeKernelFunction({{a, nullptr}}, MakeSeq({MakeFor(i, IntImm(4), MakeStore(a, {i}, F(0))),
                                                                     MakeStore(a, {i}, F(1))})));
  ExpectOnly(outside, "variable i is used outside the loop or block that defines it", "k");
}

TEST(WellFormedKernel, WrongNumberOfIndices) {
  Buffer a = MakeBuffer("A", f32, {IntImm(4), IntImm(4)});
  PrimVar i = MakePrimVar("i");
  IRModule m;
  // MakeStore refuses this; a pass building nodes directly might not.
  Stmt store = std::make_shared<StoreNode>(a, std::vector<PrimExpr>{i}, F(0));
  m.AddKernel("k", MakeKernelFunction({{a, nullptr}}, MakeFor(i, IntImm(4), store)));
  ExpectOnly(m, "store to A uses 1 index(es) but the buffer has 2 dim(s)", "k");
  Buffer out = MakeBuffer("Out", f32, {IntImm(4)});
  PrimExpr load = std::make_shared<LoadNode>(f32, a, std::vector<PrimExpr>{i});
  IRModule loads;
  loads.AddKernel("k",
                  MakeKernelFunction({{a, nullptr}, {out, nullptr}}, MakeFor(i, IntImm(4), MakeStore(out, {i}, load))));
  ExpectOnly(loads, "load from A uses 1 index(es) but the buffer has 2 dim(s)", "k");
}

TEST(WellFormedKernel, LoopVariableBoundTwice) {
  Buffer a = MakeBuffer("A", f32, {IntImm(4), IntImm(4)});
  PrimVar i = MakePrimVar("i");
  IRModule m;
  m.AddKernel("k", MakeKernelFunction({{a, nullptr}},
                                      MakeFor(i, IntImm(4), MakeFor(i, IntImm(4), MakeStore(a, {i, i}, F(0))))));
  ExpectOnly(m, "variable i is defined twice", "k");
}

TEST(WellFormedKernel, StoredValueOfTheWrongDtype) {
  Buffer a = MakeBuffer("A", f32, {IntImm(4)});
  PrimVar i = MakePrimVar("i");
  IRModule m;
  Stmt store = std::make_shared<StoreNode>(a, std::vector<PrimExpr>{i}, IntImm(1));
  m.AddKernel("k", MakeKernelFunction({{a, nullptr}}, MakeFor(i, IntImm(4), store)));
  ExpectOnly(m, "store to A: the value is int64 but the buffer holds float32", "k");
}

TEST(WellFormedKernel, InitStepNeedsAReduceIteratorAndCannotUseIt) {
  Buffer a = MakeBuffer("A", f32, {IntImm(4)});
  Buffer y = MakeBuffer("Y", f32, {IntImm(1)});
  PrimVar k = MakePrimVar("k");
  PrimVar vk = MakePrimVar("vk");
  auto kernel_with = [&](IterKind kind, Stmt init) {
    Stmt body = MakeStore(y, {IntImm(0)}, MakeLoad(y, {IntImm(0)}) + MakeLoad(a, {vk}));
    IRModule m;
    m.AddKernel("k", MakeKernelFunction({{a, nullptr}, {y, nullptr}},
                                        MakeFor(k, IntImm(4), MakeBlock("Y", {IterVar{vk, k, kind}}, init, body))));
    return m;
  };
  ExpectOnly(kernel_with(IterKind::kSpatial, MakeStore(y, {IntImm(0)}, F(0))),
             "block Y has an init step but no reduce iterator", "k");
  ExpectOnly(kernel_with(IterKind::kReduce, MakeStore(y, {IntImm(0)}, MakeLoad(a, {vk}))),
             "reduce iterator vk is used in the init step of its block", "k");
  IRModule fine = kernel_with(IterKind::kReduce, MakeStore(y, {IntImm(0)}, F(0)));
  EXPECT_TRUE(CheckWellFormed(fine).empty()) << All(CheckWellFormed(fine));
}

}  // namespace
}  // namespace rxt
