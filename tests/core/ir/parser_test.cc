// What the parser builds: variables and their scopes, symbolic dims, inferred struct info,
// constants, metadata, kernels, and the positions it records.
#include "rxt/ir/parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "rxt/ir/printer.h"
#include "rxt/ir/op.h"

namespace rxt {
namespace {

const std::vector<Binding>& Bindings(const IRModule& m, const std::string& function, size_t block = 0) {
  return m.GetFunction(function)->body->blocks.at(block).bindings;
}

const CallNode& CallOf(const Binding& b) {
  const auto* call = b.value->As<CallNode>();
  EXPECT_NE(call, nullptr);
  return *call;
}

constexpr const char* kMlp = R"(
def @f(%x: Tensor((n, 4), float32), %w: Tensor((4, 4), float32)) -> Tensor(ndim=2, float32) {
  dataflow {
    %a = matmul(%x, %w)
    %b: Tensor(ndim=2, float32) = nn.relu(%a)
    output %b
  }
  %c = add(%b, %b)
  return %c
}
)";

TEST(Parser, DataflowVariablesUnlessListedAsOutputs) {
  IRModule m = ParseModule(kMlp);
  const auto& df = Bindings(m, "f", 0);
  ASSERT_EQ(df.size(), 2u);
  EXPECT_TRUE(m.GetFunction("f")->body->blocks[0].is_dataflow);
  EXPECT_TRUE(df[0].var->is_dataflow);
  EXPECT_FALSE(df[1].var->is_dataflow);
  const auto& plain = Bindings(m, "f", 1);
  EXPECT_FALSE(m.GetFunction("f")->body->blocks[1].is_dataflow);
  EXPECT_FALSE(plain[0].var->is_dataflow);
  // Uses refer to the defining variable node.
  EXPECT_EQ(CallOf(plain[0]).args[0], df[1].var);
  EXPECT_EQ(m.GetFunction("f")->body->body, plain[0].var);
}

TEST(Parser, StructInfoIsInferredAndAnnotationsAreKept) {
  IRModule m = ParseModule(kMlp);
  const auto& df = Bindings(m, "f", 0);
  EXPECT_EQ(ToString(df[0].var->struct_info), "Tensor((n, 4), float32)");
  EXPECT_EQ(ToString(df[1].var->struct_info), "Tensor(ndim=2, float32)");  // the annotation
  EXPECT_EQ(ToString(df[1].value->struct_info), "Tensor((n, 4), float32)");  // the inferred value
}

TEST(Parser, SymbolicDimsAreOneVariablePerFunction) {
  IRModule m = ParseModule(R"(
def @f(%x: Tensor((n, 4), float32), %y: Tensor((n,), float32)) -> Tensor((n,), float32) {
  return %y
}
def @g(%x: Tensor((n,), float32)) -> Tensor((n,), float32) {
  return %x
}
)");
  Function f = m.GetFunction("f"), g = m.GetFunction("g");
  const PrimExpr& n_x = (*f->params[0]->struct_info->As<TensorSINode>()->shape)[0];
  const PrimExpr& n_y = (*f->params[1]->struct_info->As<TensorSINode>()->shape)[0];
  const PrimExpr& n_ret = (*f->ret_sinfo->As<TensorSINode>()->shape)[0];
  const PrimExpr& n_g = (*g->params[0]->struct_info->As<TensorSINode>()->shape)[0];
  ASSERT_NE(n_x->As<PrimVarNode>(), nullptr);
  EXPECT_EQ(n_x, n_y);
  EXPECT_EQ(n_x, n_ret);
  EXPECT_NE(n_x, n_g);
  EXPECT_EQ(n_x->dtype, DType::kInt64);
}

TEST(Parser, CallsResolveFunctionsDefinedLaterAndInstantiateTheirShapes) {
  IRModule m = ParseModule(R"(
def @main(%x: Tensor((8, 4), float32)) -> Tensor((8, 4), float32) {
  %y = @double(%x)
  return %y
}
def @double(%a: Tensor((k, 4), float32)) -> Tensor((k, 4), float32) {
  %b = add(%a, %a)
  return %b
}
)");
  const Binding& call = Bindings(m, "main")[0];
  EXPECT_EQ(ToString(call.var->struct_info), "Tensor((8, 4), float32)");
  EXPECT_EQ(CallOf(call).callee->As<GlobalVarNode>()->name, "double");
  ASSERT_EQ(m.entries().size(), 2u);
  EXPECT_EQ(m.entries()[0].name, "main");  // file order is kept
  EXPECT_EQ(Bindings(m, "double").size(), 1u);  // the real body replaced the placeholder
}

TEST(Parser, OpAttributesAreCompletedWithDefaults) {
  IRModule m = ParseModule(R"(
def @f(%x: Tensor((2, 3), float32)) -> Tensor((2, 1), float32) {
  %s = sum(%x, axis=[1], keepdims=true)
  %c = clip(%x, min=0, max=6)
  return %s
}
)");
  const CallNode& sum = CallOf(Bindings(m, "f")[0]);
  EXPECT_EQ(AsOp(sum.callee)->name(), "sum");
  EXPECT_EQ(sum.attrs.Get("axis"), AttrValue::IntList({1}));
  EXPECT_EQ(sum.attrs.Get("keepdims"), AttrValue(true));
  const CallNode& clip = CallOf(Bindings(m, "f")[1]);
  EXPECT_TRUE(clip.attrs.Get("min").is<double>());  // ints coerced to the schema's float
  EXPECT_EQ(clip.attrs.Get("max"), AttrValue(6.0));
}

TEST(Parser, InlineConstantsKeepShapeDTypeAndExactBits) {
  IRModule m = ParseModule(R"(
def @f() -> Object {
  %a = const(1.5, float32)
  %b = const([[1, -2], [3, 4]], int64)
  %c = const([-0, 1e-45, inf, -inf, nan, 0.1], float32)
  %d = const([true, false], bool)
  %e = const([-9223372036854775808], int64)
  %f = const([[], []], uint8)
  return %a
}
)");
  const auto& b = Bindings(m, "f");
  auto data = [&](size_t i) -> const Tensor& { return b[i].value->As<ConstantNode>()->data; };
  EXPECT_TRUE(data(0).shape().empty());
  EXPECT_EQ(data(0).data_as<float>()[0], 1.5f);
  EXPECT_EQ(data(1).shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(data(1).data_as<int64_t>()[1], -2);
  const float* c = data(2).data_as<float>();
  EXPECT_TRUE(std::signbit(c[0]) && c[0] == 0.0f);
  EXPECT_EQ(c[1], std::numeric_limits<float>::denorm_min());
  EXPECT_EQ(c[2], std::numeric_limits<float>::infinity());
  EXPECT_EQ(c[3], -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(c[4]));
  EXPECT_EQ(c[5], 0.1f);
  EXPECT_EQ(data(3).dtype(), DType::kBool);
  EXPECT_EQ(data(3).data_as<uint8_t>()[0], 1);
  EXPECT_EQ(data(4).data_as<int64_t>()[0], std::numeric_limits<int64_t>::min());
  EXPECT_EQ(data(5).shape(), (std::vector<int64_t>{2, 0}));
  EXPECT_EQ(ToString(b[1].var->struct_info), "Tensor((2, 2), int64)");
}

TEST(Parser, FloatTextUnderflowsToZeroAndOverflowIsAnError) {
  IRModule m = ParseModule("def @f() -> Object {\n  %a = const([1e-46, -1e-400], float32)\n  return %a\n}\n");
  const Tensor& data = Bindings(m, "f")[0].value->As<ConstantNode>()->data;
  EXPECT_EQ(data.data_as<float>()[0], 0.0f);
  EXPECT_TRUE(std::signbit(data.data_as<float>()[1]));
  EXPECT_THROW(ParseModule("def @f() -> Object {\n  %a = const([1e39], float32)\n  return %a\n}\n"), Error);
  EXPECT_THROW(ParseModule("def @f() -> Object {\n  %a = const([70000], float16)\n  return %a\n}\n"), Error);
  EXPECT_THROW(ParseModule("attributes {a = 1e400}"), Error);
  EXPECT_EQ(ParseModule("attributes {a = 1e-400}").attrs.Get("a"), AttrValue(0.0));
}

TEST(Parser, ConstantIntegerArithmeticFoldsUnlessItWouldOverflow) {
  IRModule m = ParseModule(R"(
def @f() -> Object {
  %a = prim(2 * 3 + 1)
  %b = prim(9223372036854775807 + 1)
  %c = prim(floordiv(7, 0))
  %d = prim(-(-9223372036854775808))
  return %a
}
)");
  const auto& b = Bindings(m, "f");
  auto value = [&](size_t i) { return b[i].value->As<PrimValueNode>()->value; };
  int64_t folded = 0;
  EXPECT_TRUE(GetConstInt(value(0), &folded));
  EXPECT_EQ(folded, 7);
  EXPECT_NE(value(1)->As<BinaryNode>(), nullptr);
  EXPECT_NE(value(2)->As<BinaryNode>(), nullptr);
  EXPECT_NE(value(3)->As<IntrinsicNode>(), nullptr);
  const std::string printed = PrintModule(m);
  EXPECT_NE(printed.find("prim(9223372036854775807 + 1)"), std::string::npos) << printed;
  EXPECT_NE(printed.find("prim(neg(-9223372036854775808))"), std::string::npos) << printed;
  EXPECT_EQ(PrintModule(ParseModule(printed)), printed);
}

TEST(Parser, MetadataMayComeFirstOrLastAndEntriesAreShared) {
  const std::string body = R"(
def @f(%x: Tensor((2,), float32)) -> Tensor((2,), float32) {
  %a = add(%x, meta[7])
  %b = add(%a, meta[7])
  return %b
}
)";
  const std::string section = "metadata {\n  7: Tensor((2,), float32) = base64\"AADAPwAAAMA=\"\n}\n";
  for (const std::string& text : {body + section, section + body}) {
    IRModule m = ParseModule(text);
    const auto& b = Bindings(m, "f");
    const Tensor& first = CallOf(b[0]).args[1]->As<ConstantNode>()->data;
    const Tensor& second = CallOf(b[1]).args[1]->As<ConstantNode>()->data;
    EXPECT_EQ(first.data_as<float>()[0], 1.5f);
    EXPECT_EQ(first.data_as<float>()[1], -2.0f);
    EXPECT_EQ(first.data(), second.data());
  }
}

TEST(Parser, ModuleAttributesOfEveryKind) {
  IRModule m = ParseModule(R"(attributes {i = -3, f = 0.5, g = -inf, s = "a\tb", t = true, n = none,
  d = float16, a = [1, [2.5, "x"]], c = const([1, 2], int32), "quoted key" = 1})");
  EXPECT_EQ(m.attrs.Get("i"), AttrValue(int64_t{-3}));
  EXPECT_EQ(m.attrs.Get("f"), AttrValue(0.5));
  EXPECT_EQ(m.attrs.Get("g"), AttrValue(-std::numeric_limits<double>::infinity()));
  EXPECT_EQ(m.attrs.Get("s"), AttrValue("a\tb"));
  EXPECT_EQ(m.attrs.Get("t"), AttrValue(true));
  EXPECT_TRUE(m.attrs.Get("n").is_none());
  EXPECT_EQ(m.attrs.Get("d"), AttrValue(DType::kFloat16));
  EXPECT_EQ(m.attrs.Get("a"), AttrValue(AttrArray{AttrValue(1), AttrValue(AttrArray{AttrValue(2.5), AttrValue("x")})}));
  EXPECT_EQ(m.attrs.Get("c").get<Tensor>().dtype(), DType::kInt32);
  EXPECT_EQ(m.attrs.Get("quoted key"), AttrValue(1));
  EXPECT_EQ(m.attrs.entries()[0].first, "i");  // order is kept
}

TEST(Parser, TuplesIfAndMatchCast) {
  IRModule m = ParseModule(R"(
def @f(%x: Tensor(ndim=1, float32), %c: Prim(bool)) -> Object {
  %one = (%x,)
  %same = (%x)
  %none = ()
  %m: Tensor((n,), float32) = match_cast(%x, Tensor((n,), float32))
  %r = if %c {
    %e = exp(%m)
    yield %e
  } else {
    yield %m
  }
  return %r
}
)");
  const auto& b = Bindings(m, "f");
  EXPECT_EQ(b[0].value->As<TupleNode>()->fields.size(), 1u);
  EXPECT_EQ(b[1].value, m.GetFunction("f")->params[0]);
  EXPECT_EQ(b[2].value->As<TupleNode>()->fields.size(), 0u);
  EXPECT_TRUE(b[3].is_match_cast());
  EXPECT_EQ(ToString(b[3].match_sinfo), "Tensor((n,), float32)");
  const auto* node = b[4].value->As<IfNode>();
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->then_branch->blocks[0].bindings.size(), 1u);
  EXPECT_TRUE(node->else_branch->blocks.empty());
  EXPECT_EQ(ToString(b[4].var->struct_info), "Tensor((n,), float32)");
}

TEST(Parser, ExternalCallsAndStrings) {
  IRModule m = ParseModule(R"(
def @f(%x: Tensor((2,), float32)) -> Object {
  %a = extern("env.f")(%x, "mode", out_sinfo=Tensor((2,), float32))
  %b = call_extern("env.g", (%x,), out_sinfo=Tensor((2,), float32))
  return %a
}
)");
  const CallNode& a = CallOf(Bindings(m, "f")[0]);
  EXPECT_EQ(a.callee->As<ExternFuncNode>()->name, "env.f");
  EXPECT_EQ(a.args[1]->As<StringImmNode>()->value, "mode");
  EXPECT_EQ(a.sinfo_args.size(), 1u);
  EXPECT_EQ(ToString(Bindings(m, "f")[0].var->struct_info), "Tensor((2,), float32)");
  const CallNode& b = CallOf(Bindings(m, "f")[1]);
  EXPECT_EQ(AsOp(b.callee)->name(), "call_extern");
  EXPECT_EQ(b.args[0]->As<StringImmNode>()->value, "env.g");
}

TEST(Parser, ImpureAndAttributesInEitherOrderAndQuotedNames) {
  IRModule m = ParseModule(R"(
def @"a b"() -> Tuple() impure attributes {k = 1} {
  %p = print()
  return %p
}
def @g() -> Tuple() attributes {k = 2} impure {
  %p = print()
  return %p
}
)");
  EXPECT_FALSE(m.GetFunction("a b")->is_pure);
  EXPECT_EQ(m.GetFunction("a b")->attrs.Get("k"), AttrValue(1));
  EXPECT_FALSE(m.GetFunction("g")->is_pure);
  EXPECT_TRUE(ParseModule("def @h() -> Tuple() {\n  return ()\n}\n").GetFunction("h")->is_pure);
}

TEST(Parser, DataflowNamesMayBeReusedAfterTheirBlock) {
  IRModule m = ParseModule(R"(
def @f(%x: Tensor((2,), float32)) -> Tensor((2,), float32) {
  dataflow {
    %t = add(%x, %x)
    %u = exp(%t)
    output %u
  }
  dataflow {
    %t = add(%u, %u)
    %v = exp(%t)
    output %v
  }
  return %v
}
)");
  EXPECT_NE(Bindings(m, "f", 0)[0].var, Bindings(m, "f", 1)[0].var);
}

TEST(Parser, SpansPointAtTheSource) {
  IRModule m = ParseModule(kMlp, "mlp.rxt");
  const Binding& a = Bindings(m, "f", 0)[0];
  EXPECT_EQ(a.var->span.ToString(), "mlp.rxt:4:5");
  EXPECT_EQ(a.value->span.ToString(), "mlp.rxt:4:10");
  EXPECT_EQ(m.GetFunction("f")->span.ToString(), "mlp.rxt:2:1");
}

TEST(Parser, ByteOrderMarkAndWindowsLineEndings) {
  const std::string text = "\xEF\xBB\xBF# comment\r\ndef @f() -> Tuple() {\r\n  return ()\r\n}\r\n";
  EXPECT_NE(ParseModule(text).FindFunction("f"), nullptr);
  try {
    ParseModule("\xEF\xBB\xBF" "def @f() -> Tuple() {\r\n  return ?\r\n}\r\n", "crlf.rxt");
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "crlf.rxt:2:10: error: unexpected character '?'");
  }
}

TEST(Parser, PrimValueVariablesTakeTheDeclaredDType) {
  IRModule m = ParseModule("def @f(%s: Prim(float32, value=x)) -> Prim(float32) {\n  return %s\n}\n");
  const auto* prim = m.GetFunction("f")->params[0]->struct_info->As<PrimSINode>();
  ASSERT_NE(prim, nullptr);
  EXPECT_EQ(prim->value->dtype, DType::kFloat32);
  EXPECT_NE(prim->value->As<PrimVarNode>(), nullptr);
}

TEST(ParserKernels, StructureOfTheSeedLinearKernel) {
  IRModule m = ParseModule(R"(
kernel @linear0(X: Buffer((1, m), float32), W: Buffer((n, m), float32),
                B: Buffer((n,), float32), Z: Buffer((1, n), float32)) {
  alloc Y: Buffer((1, n), float32)
  for i in range(1) {
    for j in range(n) {
      for k in range(m) {
        block Y(vi = i, vj = j, reduce vk = k) {
          init {
            Y[vi, vj] = 0f32
          }
          Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
        }
      }
    }
  }
  for i in range(1) {
    for j in range(n) {
      block Z(vi = i, vj = j) {
        Z[vi, vj] = Y[vi, vj] + B[vj]
      }
    }
  }
}
)");
  KernelFunction k = m.GetKernel("linear0");
  ASSERT_EQ(k->params.size(), 4u);
  const PrimExpr& m_dim = k->params[0].buffer->shape[1];
  EXPECT_EQ(m_dim, k->params[1].buffer->shape[1]);  // one m per kernel
  const auto* alloc = k->body->As<AllocateNode>();
  ASSERT_NE(alloc, nullptr);  // the flat alloc owns the rest of the body
  EXPECT_EQ(alloc->buffer->name, "Y");
  const auto* rest = alloc->body->As<SeqStmtNode>();
  ASSERT_NE(rest, nullptr);
  ASSERT_EQ(rest->stmts.size(), 2u);
  const auto* loop_i = rest->stmts[0]->As<ForNode>();
  const auto* loop_k = loop_i->body->As<ForNode>()->body->As<ForNode>();
  EXPECT_EQ(loop_k->extent, m_dim);
  const auto* block = loop_k->body->As<BlockNode>();
  ASSERT_NE(block, nullptr);
  ASSERT_EQ(block->iter_vars.size(), 3u);
  EXPECT_EQ(block->iter_vars[2].kind, IterKind::kReduce);
  EXPECT_EQ(block->iter_vars[0].value, loop_i->var);
  ASSERT_NE(block->init, nullptr);
  const auto* store = block->body->As<StoreNode>();
  EXPECT_EQ(store->buffer, alloc->buffer);
  EXPECT_EQ(store->indices[0], block->iter_vars[0].var);
  // The sibling loop nest has its own i.
  EXPECT_NE(rest->stmts[1]->As<ForNode>()->var, loop_i->var);
}

TEST(ParserKernels, ScalarParametersLiteralsAndScopes) {
  IRModule m = ParseModule(R"(
kernel @k(X: Buffer((n,), float32), n: int64, alpha: float32) {
  for i in range(n) vectorized {
    X[i] = select(float32(i) < 2.5f32, X[i] * alpha, -inf_f32)
  }
  alloc T: Buffer((2,), int32) {
    T[0] = -2147483648i32
  }
}
)");
  KernelFunction k = m.GetKernel("k");
  EXPECT_EQ(k->params[1].scalar, k->params[0].buffer->shape[0]);  // the dim and the parameter are one
  EXPECT_EQ(k->params[2].scalar->dtype, DType::kFloat32);
  const auto* seq = k->body->As<SeqStmtNode>();
  ASSERT_NE(seq, nullptr);
  const auto* loop = seq->stmts[0]->As<ForNode>();
  EXPECT_EQ(loop->loop_kind, LoopKind::kVectorized);
  const auto* select = loop->body->As<StoreNode>()->value->As<SelectNode>();
  ASSERT_NE(select, nullptr);
  const auto* neg_inf = select->if_false->As<FloatImmNode>();
  ASSERT_NE(neg_inf, nullptr);
  EXPECT_EQ(neg_inf->value, -std::numeric_limits<double>::infinity());
  const auto* alloc = seq->stmts[1]->As<AllocateNode>();
  ASSERT_NE(alloc, nullptr);
  const auto* imm = alloc->body->As<StoreNode>()->value->As<IntImmNode>();
  EXPECT_EQ(imm->value, std::numeric_limits<int32_t>::min());
  EXPECT_EQ(imm->dtype, DType::kInt32);
  // A braced allocation's buffer is not visible after its braces.
  EXPECT_THROW(ParseModule("kernel @k() {\n  alloc T: Buffer((1,), float32) {\n  }\n  T[0] = 1f32\n}\n"), Error);
}

}  // namespace
}  // namespace rxt
