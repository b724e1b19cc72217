// Printing of specific constructs, mostly for IR built in code: the forms the parser never
// produces itself (clashing or odd names, shadowing loop variables, nested statement lists)
// must print as text that parses back to an equal module.
#include "rxt/ir/printer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>

#include "rxt/ir/builder.h"
#include "rxt/ir/equality.h"
#include "rxt/ir/parser.h"
#include "rxt/ir/well_formed.h"
#include "rxt/ir/op.h"
#include "rxt/support/message_text.h"

namespace rxt {
namespace {

StructInfo F32(std::vector<int64_t> shape) { return TensorSI(shape, DType::kFloat32); }

// Prints |module|, parses the text back and checks both properties of the format.
std::string PrintAndCheckRoundTrip(const IRModule& module) {
  const std::string printed = PrintModule(module);
  IRModule reparsed;
  try {
    reparsed = ParseModule(printed, "printed.rxt");
  } catch (const Error& e) {
    ADD_FAILURE() << e.what() << "\n" << printed;
    return printed;
  }
  EXPECT_TRUE(StructuralEqual(module, reparsed)) << printed;
  EXPECT_EQ(PrintModule(reparsed), printed);
  return printed;
}

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(PrintStructInfo, EveryForm) {
  PrimVar n = MakePrimVar("n");
  EXPECT_EQ(ToString(ObjectSI()), "Object");
  EXPECT_EQ(ToString(PrimSI(DType::kInt64)), "Prim(int64)");
  EXPECT_EQ(ToString(PrimSI(DType::kInt64, n)), "Prim(int64, value=n)");
  EXPECT_EQ(ToString(PrimSI(DType::kUnknown)), "Prim");
  EXPECT_EQ(ToString(ShapeSI({IntImm(1), n})), "Shape((1, n))");
  EXPECT_EQ(ToString(ShapeSI(2)), "Shape(ndim=2)");
  EXPECT_EQ(ToString(ShapeSI(-1)), "Shape");
  EXPECT_EQ(ToString(F32({64, 784})), "Tensor((64, 784), float32)");
  EXPECT_EQ(ToString(F32({})), "Tensor((), float32)");
  EXPECT_EQ(ToString(TensorSI({n}, DType::kBFloat16)), "Tensor((n,), bfloat16)");
  EXPECT_EQ(ToString(TensorSI({n * IntImm(2), IntImm(4)}, DType::kUnknown)), "Tensor((n * 2, 4))");
  EXPECT_EQ(ToString(TensorSI(DType::kFloat32, 2)), "Tensor(ndim=2, float32)");
  EXPECT_EQ(ToString(TensorSI(DType::kFloat32)), "Tensor(float32)");
  EXPECT_EQ(ToString(TensorSI(DType::kUnknown, 3)), "Tensor(ndim=3)");
  EXPECT_EQ(ToString(TensorSI(DType::kUnknown)), "Tensor");
  EXPECT_EQ(ToString(TupleSI({})), "Tuple()");
  EXPECT_EQ(ToString(TupleSI({F32({2}), ObjectSI()})), "Tuple(Tensor((2,), float32), Object)");
  EXPECT_EQ(ToString(FuncSI({F32({2})}, ObjectSI())), "Func((Tensor((2,), float32)) -> Object)");
  EXPECT_EQ(ToString(FuncSI({}, TupleSI({}), false)), "Func(() -> Tuple(), impure)");
}

TEST(PrintPrimExpr, ParenthesesOnlyWhereNeeded) {
  PrimVar a = MakePrimVar("a"), b = MakePrimVar("b"), c = MakePrimVar("c");
  EXPECT_EQ(ToString(a - (b - c)), "a - (b - c)");
  EXPECT_EQ(ToString((a - b) - c), "a - b - c");
  EXPECT_EQ(ToString((a + b) * c), "(a + b) * c");
  EXPECT_EQ(ToString(a + b * c), "a + b * c");
  EXPECT_EQ(ToString(a * (b * c)), "a * (b * c)");
  EXPECT_EQ(ToString(MakeBinary(BinaryOp::kDiv, a, b * c)), "a / (b * c)");
  EXPECT_EQ(ToString(a * IntImm(-3)), "a * -3");
  EXPECT_EQ(ToString(IntImm(-3) * a), "-3 * a");
  PrimExpr lt = MakeBinary(BinaryOp::kLt, a, b);
  PrimExpr eq = MakeBinary(BinaryOp::kEq, a + b, c);
  EXPECT_EQ(ToString(eq), "a + b == c");
  EXPECT_EQ(ToString(MakeNot(lt)), "!(a < b)");
  EXPECT_EQ(ToString(MakeBinary(BinaryOp::kAnd, MakeBinary(BinaryOp::kOr, lt, eq), lt)), "(a < b || a + b == c) && a < b");
  EXPECT_EQ(ToString(MakeBinary(BinaryOp::kOr, lt, MakeBinary(BinaryOp::kAnd, eq, lt))), "a < b || a + b == c && a < b");
  EXPECT_EQ(ToString(MakeBinary(BinaryOp::kEq, lt, MakeBinary(BinaryOp::kNe, a, b))), "a < b == (a != b)");
  EXPECT_EQ(ToString(MakeBinary(BinaryOp::kFloorDiv, a + b, IntImm(2))), "floordiv(a + b, 2)");
  EXPECT_EQ(ToString(MakeBinary(BinaryOp::kMax, a, b)), "max(a, b)");
  PrimVar x = MakePrimVar("x", DType::kFloat32);
  EXPECT_EQ(ToString(MakeIntrinsic("neg", {x})), "neg(x)");
  EXPECT_EQ(ToString(MakeSelect(lt, x, MakeCast(DType::kFloat32, a))), "select(a < b, x, float32(a))");
  EXPECT_EQ(ToString(MakeIntrinsic("pow", {x, FloatImm(2)})), "pow(x, 2f32)");
}

TEST(PrintPrimExpr, LiteralsCarryTheirDType) {
  EXPECT_EQ(ToString(IntImm(3)), "3");
  EXPECT_EQ(ToString(IntImm(3, DType::kInt32)), "3i32");
  EXPECT_EQ(ToString(IntImm(-7, DType::kInt8)), "-7i8");
  EXPECT_EQ(ToString(IntImm(1, DType::kUInt8)), "1u8");
  EXPECT_EQ(ToString(BoolImm(true)), "true");
  EXPECT_EQ(ToString(FloatImm(1.5)), "1.5f32");
  EXPECT_EQ(ToString(FloatImm(0)), "0f32");
  EXPECT_EQ(ToString(FloatImm(-0.0)), "-0f32");
  EXPECT_EQ(ToString(FloatImm(1e-05)), "1e-05f32");
  EXPECT_EQ(ToString(FloatImm(0.1, DType::kFloat64)), "0.1f64");
  EXPECT_EQ(ToString(FloatImm(1, DType::kBFloat16)), "1bf16");
  EXPECT_EQ(ToString(FloatImm(std::numeric_limits<double>::infinity())), "inf_f32");
  EXPECT_EQ(ToString(FloatImm(-std::numeric_limits<double>::infinity(), DType::kFloat64)), "-inf_f64");
  EXPECT_EQ(ToString(FloatImm(std::numeric_limits<double>::quiet_NaN(), DType::kFloat16)), "nan_f16");
}

// A module whose one function is |body| over parameter %x.
IRModule ModuleWith(const std::function<Expr(BlockBuilder&, const Var&)>& body, StructInfo x_sinfo = F32({2, 3})) {
  IRModule module;
  BlockBuilder builder(&module);
  Var x = MakeVar("x", x_sinfo);
  builder.BeginBindingBlock();
  Expr result = body(builder, x);
  BindingBlock block = builder.EndBlock();
  module.Add("main", MakeFunction({x}, MakeSeqFromBlocks({block}, result), GetStructInfo(result)));
  return module;
}

TEST(PrintNames, ClashingVariableNamesAreDisambiguated) {
  IRModule module = ModuleWith([](BlockBuilder& b, const Var& x) {
    Var a = b.Emit(MakeOpCall("add", {x, x}), "x");
    Var c = b.Emit(MakeOpCall("add", {a, x}), "x");
    Var d = b.Emit(MakeOpCall("add", {c, a}), "x_1");
    return b.Emit(MakeOpCall("nn.relu", {d}), "");
  });
  const std::string printed = PrintAndCheckRoundTrip(module);
  EXPECT_TRUE(Contains(printed, "%x_1: Tensor((2, 3), float32) = add(%x, %x)")) << printed;
  EXPECT_TRUE(Contains(printed, "%x_2: Tensor((2, 3), float32) = add(%x_1, %x)")) << printed;
  EXPECT_TRUE(Contains(printed, "%x_1_1: Tensor((2, 3), float32) = add(%x_2, %x_1)")) << printed;
  EXPECT_TRUE(Contains(printed, "%v: Tensor((2, 3), float32) = nn.relu(%x_1_1)")) << printed;
}

// Relax variables keep any name (an importer's "conv1.weight"), quoted where it is not
// [A-Za-z0-9_]+; it reads back verbatim.
TEST(PrintNames, OddVariableNamesAreQuotedVerbatim) {
  Var out;
  IRModule module = ModuleWith([&](BlockBuilder& b, const Var& x) {
    Var a = b.Emit(MakeOpCall("nn.relu", {x}), "layer.0/out");
    Var c = b.Emit(MakeOpCall("nn.relu", {a}), "say \"hi\"\n");
    return out = b.Emit(MakeOpCall("add", {a, c}), "layer_0_out");  // the old stand-in: no clash
  });
  module.attrs.Set("odd key", AttrValue(1));
  const std::string printed = PrintAndCheckRoundTrip(module);
  EXPECT_TRUE(Contains(printed, "%\"layer.0/out\": Tensor((2, 3), float32) = nn.relu(%x)")) << printed;
  EXPECT_TRUE(Contains(printed, "%\"say \\\"hi\\\"\\n\": Tensor((2, 3), float32) = nn.relu(%\"layer.0/out\")")) << printed;
  EXPECT_TRUE(Contains(printed, "%layer_0_out: Tensor((2, 3), float32) = add(%\"layer.0/out\", ")) << printed;
  EXPECT_TRUE(Contains(printed, "attributes {\"odd key\" = 1}")) << printed;
  EXPECT_EQ(PrintModule(ParseModule(printed)), printed);
}

TEST(PrintNames, SymbolicVariablesWithClashingOrReservedNames) {
  PrimVar n1 = MakePrimVar("n"), n2 = MakePrimVar("n"), reserved = MakePrimVar("float32");
  IRModule module;
  Var x = MakeVar("x", TensorSI({n1, n2, reserved}, DType::kFloat32));
  module.Add("main", MakeFunction({x}, MakeSeqFromBlocks({}, x), x->struct_info));
  const std::string printed = PrintAndCheckRoundTrip(module);
  EXPECT_TRUE(Contains(printed, "%x: Tensor((n, n_1, float32_1), float32)")) << printed;
}

TEST(PrintConstants, SmallInlineLargeInMetadataSharedOnce) {
  Tensor small = Tensor::FromVector<float>({2, 2}, DType::kFloat32, {1.5f, -2.f, 0.1f, 3.f});
  std::vector<int32_t> values(20);
  for (int i = 0; i < 20; ++i) values[i] = i * 3 - 7;
  Tensor large = Tensor::FromVector<int32_t>({4, 5}, DType::kInt32, values);
  IRModule module = ModuleWith([&](BlockBuilder& b, const Var& x) {
    Var a = b.Emit(MakeOpCall("add", {x, MakeConstant(small)}), "a");
    Var l1 = b.Emit(MakeConstant(large), "l1");
    Var l2 = b.Emit(MakeOpCall("add", {l1, MakeConstant(large)}), "l2");
    return b.Emit(MakeTuple({a, l2}), "t");
  }, F32({2, 2}));
  module.attrs.Set("table", AttrValue(large));
  const std::string printed = PrintAndCheckRoundTrip(module);
  EXPECT_TRUE(Contains(printed, "const([[1.5, -2], [0.1, 3]], float32)")) << printed;
  EXPECT_TRUE(Contains(printed, "attributes {table = meta[0]}")) << printed;
  EXPECT_TRUE(Contains(printed, "%l2: Tensor((4, 5), int32) = add(%l1, meta[0])")) << printed;
  EXPECT_TRUE(Contains(printed, "metadata {\n  0: Tensor((4, 5), int32) = base64\"")) << printed;
  EXPECT_FALSE(Contains(printed, "  1: ")) << "one entry for the shared tensor\n" << printed;

  PrintOptions options;
  options.max_inline_elements = 0;
  EXPECT_TRUE(Contains(PrintModule(module, options), "add(%x, meta[1])"));
  options.print_metadata = false;
  EXPECT_FALSE(Contains(PrintModule(module, options), "metadata {"));
  EXPECT_EQ(PrintExpr(MakeConstant(large)), "const(<Tensor((4, 5), int32)>)");
  EXPECT_EQ(PrintExpr(MakeConstant(small)), "const([[1.5, -2], [0.1, 3]], float32)");
}

TEST(PrintConstants, FloatDataIsBitExactIncludingNaNPayloads) {
  const float special[] = {0.1f, -0.0f, 1e-45f, std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
                           3.4028235e38f, 1.1754944e-38f};
  Tensor plain = Tensor::FromBytes({8}, DType::kFloat32, special, sizeof(special));
  uint32_t payload_bits = 0x7fc01234;  // a NaN with a payload has no inline spelling
  float payload;
  std::memcpy(&payload, &payload_bits, 4);
  Tensor odd_nan = Tensor::FromVector<float>({1}, DType::kFloat32, {payload});
  IRModule module = ModuleWith([&](BlockBuilder& b, const Var& x) {
    Var a = b.Emit(MakeOpCall("add", {x, MakeConstant(plain)}), "a");
    return b.Emit(MakeOpCall("add", {a, MakeConstant(odd_nan)}), "b");
  }, F32({8}));
  const std::string printed = PrintAndCheckRoundTrip(module);
  EXPECT_TRUE(Contains(printed, "const([0.1, -0, 1e-45, inf, -inf, nan, 3.4028235e+38, 1.1754944e-38], float32)"))
      << printed;
  EXPECT_TRUE(Contains(printed, "add(%a, meta[0])")) << printed;
  IRModule reparsed = ParseModule(printed);
  const auto& binding = reparsed.GetFunction("main")->body->blocks[0].bindings[1];
  const auto* call = binding.value->As<CallNode>();
  ASSERT_NE(call, nullptr);
  const Tensor& data = call->args[1]->As<ConstantNode>()->data;
  uint32_t bits;
  std::memcpy(&bits, data.data(), 4);
  EXPECT_EQ(bits, payload_bits);
}

TEST(PrintCalls, AttributesArePrintedWithTheirDefaultsUnlessUnsetAndOutputsListed) {
  IRModule module = ModuleWith([](BlockBuilder& b, const Var& x) {
    Var s = b.Emit(MakeOpCall("sum", {x}), "s");
    Var k = b.Emit(MakeOpCall("sum", {x}, [] {
      Attrs a;
      a.Set("axis", AttrValue::IntList({1}));
      a.Set("keepdims", AttrValue(true));
      return a;
    }()), "k");
    Var e = b.Emit(MakeCall(MakeExternFunc("env.f"), {x, s, k}, {}, {F32({2, 3}), F32({1})}), "e");
    return b.Emit(MakeCall(MakeExternFunc("env.g"), {MakeStringImm("a\"b\n"), MakePrimValue(IntImm(2)),
                                                     MakeShapeExpr({IntImm(2), IntImm(3)}), e}),
                  "g");
  });
  const std::string printed = PrintAndCheckRoundTrip(module);
  // keepdims at its default is printed; axis at its default (none: unset) is not.
  EXPECT_TRUE(Contains(printed, "= sum(%x, keepdims=false)\n")) << printed;
  EXPECT_TRUE(Contains(printed, "= sum(%x, axis=[1], keepdims=true)\n")) << printed;
  EXPECT_TRUE(Contains(printed, "= extern(\"env.f\")(%x, %s, %k, out_sinfo=[Tensor((2, 3), float32), "
                                "Tensor((1,), float32)])"))
      << printed;
  EXPECT_TRUE(Contains(printed, "= extern(\"env.g\")(\"a\\\"b\\n\", prim(2), shape(2, 3), %e)")) << printed;
}

// A creation op prints its dtype even at the default, so that editing the text from float32 to
// float64 reads back as float64 everywhere (issue 13, item 6).
TEST(PrintCalls, ACreationOpsDtypeIsPrintedSoTheTextCanBeEditedToAnotherDtype) {
  IRModule module = ParseModule(R"(
def @main(%x: Tensor((3,), float32)) -> Tensor((3,), float32) {
  %one: Tensor((), float32) = ones(shape())
  %y: Tensor((3,), float32) = multiply(%x, %one)
  return %y
})");
  std::string printed = PrintModule(module);
  EXPECT_TRUE(Contains(printed, "ones(shape(), dtype=float32)")) << printed;
  std::string edited = printed;
  for (size_t at = edited.find("float32"); at != std::string::npos; at = edited.find("float32", at)) {
    edited.replace(at, 7, "float64");
  }
  IRModule reread = ParseModule(edited);
  EXPECT_EQ(PrintModule(reread), edited);
}

TEST(PrintFunctions, LongHeadersWrapAndAttributesAndPurityFollowTheReturnType) {
  IRModule module;
  std::vector<Var> params;
  for (int i = 0; i < 8; ++i) params.push_back(MakeVar(StrCat("parameter_", i), F32({128, 256})));
  Attrs attrs;
  attrs.Set("global_symbol", AttrValue("step"));
  module.Add("step", MakeFunction(params, MakeSeqFromBlocks({}, params[0]), F32({128, 256}), attrs, false));
  const std::string printed = PrintAndCheckRoundTrip(module);
  EXPECT_TRUE(Contains(printed, "def @step(%parameter_0: Tensor((128, 256), float32), "
                                "%parameter_1: Tensor((128, 256), float32),\n"
                                "          %parameter_2:"))
      << printed;
  EXPECT_TRUE(Contains(printed, "float32))\n    -> Tensor((128, 256), float32) attributes {global_symbol = \"step\"} impure {"))
      << printed;
  for (size_t start = 0, end; start < printed.size(); start = end + 1) {
    end = printed.find('\n', start);
    if (end == std::string::npos) end = printed.size();
    EXPECT_LE(end - start, 100u) << printed.substr(start, end - start);
  }
}

TEST(PrintModule, AttributesFirstThenEntriesInOrderThenMetadata) {
  IRModule module;
  module.attrs.Set("param_num", AttrValue(1));
  module.attrs.Set("lr", AttrValue(2.0));
  module.attrs.Set("tiny", AttrValue(1e-8));
  module.attrs.Set("kinds", AttrValue(AttrArray{AttrValue(), AttrValue(DType::kBFloat16), AttrValue("s"),
                                                AttrValue(false), AttrValue(AttrArray{})}));
  Var x = MakeVar("x", F32({2}));
  module.Add("b", MakeFunction({x}, MakeSeqFromBlocks({}, x), F32({2})));
  module.AddKernel("a", MakeKernelFunction({}, MakeSeq({})));
  const std::string printed = PrintAndCheckRoundTrip(module);
  EXPECT_EQ(printed,
            "attributes {param_num = 1, lr = 2.0, tiny = 1e-08, kinds = [none, bfloat16, \"s\", false, []]}\n"
            "\n"
            "def @b(%x: Tensor((2,), float32)) -> Tensor((2,), float32) {\n"
            "  return %x\n"
            "}\n"
            "\n"
            "kernel @a() {\n"
            "}\n");
}

// ---- Kernels built in code

Buffer F32Buffer(const std::string& name, std::vector<PrimExpr> shape) {
  return MakeBuffer(name, DType::kFloat32, std::move(shape));
}

TEST(PrintKernels, ShadowingLoopVariablesAreRenamedAndSiblingsReuseNames) {
  PrimVar n = MakePrimVar("n");
  Buffer a = F32Buffer("A", {n, n});
  PrimVar i_outer = MakePrimVar("i"), i_inner = MakePrimVar("i"), i_sibling = MakePrimVar("i");
  PrimVar loop_n = MakePrimVar("n");  // a loop variable named like the symbolic dim
  Stmt inner = MakeFor(i_inner, n, MakeStore(a, {i_outer, i_inner}, FloatImm(1)));
  Stmt body = MakeSeq({MakeFor(i_outer, n, inner), MakeFor(i_sibling, n, MakeStore(a, {i_sibling, i_sibling}, FloatImm(2))),
                       MakeFor(loop_n, IntImm(4), MakeStore(a, {loop_n, n}, FloatImm(3)))});
  IRModule module;
  module.AddKernel("k", MakeKernelFunction({{a, nullptr}}, body));
  const std::string printed = PrintAndCheckRoundTrip(module);
  EXPECT_EQ(printed,
            "kernel @k(A: Buffer((n, n), float32)) {\n"
            "  for i in range(n) {\n"
            "    for i_1 in range(n) {\n"
            "      A[i, i_1] = 1f32\n"
            "    }\n"
            "  }\n"
            "  for i in range(n) {\n"
            "    A[i, i] = 2f32\n"
            "  }\n"
            "  for n_1 in range(4) {\n"
            "    A[n_1, n] = 3f32\n"
            "  }\n"
            "}\n");
}

TEST(PrintKernels, AllocationsNestedListsBlocksAndStrides) {
  PrimVar n = MakePrimVar("n");
  Buffer out = MakeBuffer("Out", DType::kFloat32, {n}, {IntImm(1)});
  Buffer tmp = F32Buffer("Tmp", {n});
  Buffer tail = F32Buffer("Tmp", {IntImm(1)});  // same name, different buffer
  PrimVar i = MakePrimVar("i"), i2 = MakePrimVar("i"), v = MakePrimVar("v");
  PrimVar alpha = MakePrimVar("alpha", DType::kFloat32);
  Stmt fill = MakeFor(i, n, MakeStore(tmp, {i}, alpha), LoopKind::kParallel);
  Stmt block = MakeBlock("copy out", {{v, i2, IterKind::kSpatial}},
                         MakeStore(out, {v}, FloatImm(0)), MakeStore(out, {v}, MakeLoad(tmp, {v})));
  Stmt body = MakeSeq({
      MakeAllocate(tmp, MakeSeq({fill, MakeFor(i2, n, block, LoopKind::kUnrolled)})),  // not last: braced
      MakeSeq({MakeStore(out, {IntImm(0)}, alpha), MakeStore(out, {IntImm(0)}, alpha)}),
      MakeAllocate(tail, MakeStore(tail, {IntImm(0)}, FloatImm(1))),  // last: flat
  });
  IRModule module;
  module.AddKernel("k", MakeKernelFunction({{out, nullptr}, {nullptr, alpha}}, body));
  const std::string printed = PrintAndCheckRoundTrip(module);
  EXPECT_EQ(printed,
            "kernel @k(Out: Buffer((n,), float32, strides=(1,)), alpha: float32) {\n"
            "  alloc Tmp: Buffer((n,), float32) {\n"
            "    for i in range(n) parallel {\n"
            "      Tmp[i] = alpha\n"
            "    }\n"
            "    for i in range(n) unrolled {\n"
            "      block \"copy out\"(v = i) {\n"
            "        init {\n"
            "          Out[v] = 0f32\n"
            "        }\n"
            "        Out[v] = Tmp[v]\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "  {\n"
            "    Out[0] = alpha\n"
            "    Out[0] = alpha\n"
            "  }\n"
            "  alloc Tmp: Buffer((1,), float32)\n"
            "  Tmp[0] = 1f32\n"
            "}\n");
  EXPECT_EQ(ToString(MakeStore(out, {i}, alpha * FloatImm(2))), "Out[i] = alpha * 2f32\n");
}

// ---- Size: printed text proportional to the text it came from, messages bounded

// %t0 = (%x, %x), %t1 = (%t0, %t0)...: each tuple's struct info holds the previous one twice.
std::string DoubledTupleChain(int n) {
  std::string text = "def @main(%x: Tensor((4, 4), float32)) -> Object {\n  dataflow {\n";
  std::string previous = "%x";
  for (int i = 0; i < n; ++i) {
    text += "    %t" + std::to_string(i) + " = (" + previous + ", " + previous + ")\n";
    previous = "%t" + std::to_string(i);
  }
  return text + "    output " + previous + "\n  }\n  return " + previous + "\n}\n";
}

TEST(PrintSize, TupleBindingsLeaveOutTheStructInfoTheParserInfers) {
  IRModule module = ParseModule(R"(
def @main(%x: Tensor((4, 6), float32), %y: Tensor((6,), float32)) -> Tuple(Tensor((4, 6), float32), Object) {
  %t: Tuple(Tensor((4, 6), float32), Tensor((6,), float32)) = (%x, %y)
  %u: Tuple(Tensor((4, 6), float32), Tensor((6,), float32)) = %t
  %nested = (%u, (%y,))
  %inner = %nested[1]
  %a: Tensor((4, 6), float32) = %u[0]
  %wide: Tuple(Tensor(ndim=2, float32), Tensor((6,), float32)) = %t
  %object: Object = (%x,)
  %r = (%a, %object)
  return %r
})");
  const std::string printed = PrintAndCheckRoundTrip(module);
  EXPECT_TRUE(Contains(printed, "  %t = (%x, %y)\n")) << printed;
  EXPECT_TRUE(Contains(printed, "  %u = %t\n")) << printed;
  EXPECT_TRUE(Contains(printed, "  %nested = (%u, (%y,))\n")) << printed;
  EXPECT_TRUE(Contains(printed, "  %inner = %nested[1]\n")) << printed;
  // Tensors keep their annotation, and so does a tuple typed otherwise than inferred.
  EXPECT_TRUE(Contains(printed, "  %a: Tensor((4, 6), float32) = %u[0]\n")) << printed;
  EXPECT_TRUE(Contains(printed, "  %wide: Tuple(Tensor(ndim=2, float32), Tensor((6,), float32)) = %t\n")) << printed;
  EXPECT_TRUE(Contains(printed, "  %object: Object = (%x,)\n")) << printed;
}

// The struct info of %t63 has 2^64 paths: printing it out at each binding never ended.
TEST(PrintSize, SharedTupleChainPrintsParsesChecksAndHashesInLinearSize) {
  const std::string text = DoubledTupleChain(64);
  IRModule module = ParseModule(text);
  const std::string printed = PrintAndCheckRoundTrip(module);
  EXPECT_EQ(printed, text);
  EXPECT_TRUE(CheckWellFormed(module).empty());
  EXPECT_EQ(StructuralHash(module), StructuralHash(ParseModule(printed)));
}

// Quadratic before: %t_i's nested struct info (i levels) was printed at each binding (4,000
// bindings: 240 MB). Deeper chains reach the limit of struct info nesting (docs/ir.md).
TEST(PrintSize, LongTupleChainPrintsInLinearSize) {
  std::string text = "def @main(%x: Tensor((4, 4), float32)) -> Object {\n";
  std::string previous = "%x";
  const int n = kMaxStructInfoDepth - 1;  // as deep as types may nest
  for (int i = 0; i < n; ++i) {
    text += "  %t" + std::to_string(i) + " = (" + previous + ",)\n";
    previous = "%t" + std::to_string(i);
  }
  text += "  return " + previous + "\n}\n";
  IRModule module = ParseModule(text);
  EXPECT_TRUE(CheckWellFormed(module).empty());
  const std::string printed = PrintAndCheckRoundTrip(module);
  EXPECT_EQ(printed, text);
}

// Messages: ToString and PrintExpr stop after the budget, whatever the size of the value.
TEST(PrintSize, MessageTextsAreBounded) {
  StructInfo shared = F32({4, 4});
  for (int i = 0; i < 64; ++i) shared = TupleSI({shared, shared});
  const std::string type = ToString(shared);
  EXPECT_LE(type.size(), kMaxMessageValueChars + std::strlen("…"));
  EXPECT_EQ(type.compare(0, 18, "Tuple(Tuple(Tuple("), 0) << type;
  EXPECT_EQ(type.substr(type.size() - std::strlen("…")), "…") << type;
  EXPECT_EQ(ToString(FuncSI(std::vector<StructInfo>(100000, shared), shared)).size(),
            kMaxMessageValueChars + std::strlen("…"));
  // Short ones are whole; PrintStructInfo is always whole.
  EXPECT_EQ(ToString(TupleSI({F32({2}), ObjectSI()})), "Tuple(Tensor((2,), float32), Object)");
  StructInfo eight = F32({2});
  for (int i = 0; i < 8; ++i) eight = TupleSI({eight, eight});
  EXPECT_EQ(PrintStructInfo(eight).size(), 256 * std::strlen("Tensor((2,), float32)") + 255 * 2 + 255 * 7);

  std::vector<Expr> fields(100000, MakeVar("some_variable", F32({2})));
  const std::string expr = PrintExpr(MakeTuple(fields));
  EXPECT_LE(expr.size(), kMaxMessageValueChars + std::strlen("…"));
  EXPECT_EQ(expr.compare(0, 31, "(%some_variable, %some_variable"), 0) << expr;
  EXPECT_EQ(PrintExpr(MakeVar(std::string(100000, 'v'), F32({2}))).size(), kMaxMessageValueChars + std::strlen("…"));
  EXPECT_EQ(PrintExpr(MakeTuple({MakeVar("a", F32({2})), MakeStringImm("b")})), "(%a, \"b\")");
}

}  // namespace
}  // namespace rxt
