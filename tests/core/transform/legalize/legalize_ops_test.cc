// LegalizeOps and the legalization registry. Pass cases are in tests/data/passes/LegalizeOps/,
// numeric checks of every legalized op in tests/core/transform/legalize/numeric/.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "rxt/ir/equality.h"
#include "rxt/ir/kernel_encoding.h"
#include "rxt/ir/parser.h"
#include "rxt/ir/printer.h"
#include "rxt/ir/visitor.h"
#include "rxt/ir/well_formed.h"
#include "rxt/op/op_list.h"
#include "rxt/transform/legalize/legalize.h"
#include "rxt/transform/passes.h"
#include "rxt/transform/legalize/tensor_expr.h"

namespace rxt {
namespace {

IRModule Legalize(const IRModule& module) {
  PassContext context;
  context.verify_well_formed_after_each = true;
  return RunPasses(module, {"LegalizeOps"}, context);
}

/// The names of the ops called anywhere in a module.
class OpCallCollector : public ExprVisitor {
 public:
  void VisitCall(const CallNode& call) override {
    if (const OpDef* op = AsOp(call.callee)) ops.insert(op->name());
    ExprVisitor::VisitCall(call);
  }
  std::set<std::string> ops;
};

std::set<std::string> OpsCalled(const IRModule& module) {
  OpCallCollector collector;
  for (const IRModule::Entry& entry : module.entries()) {
    if (entry.function) collector.VisitFunction(*entry.function);
  }
  return collector.ops;
}

/// Legalizes |module| and checks what every legalized module must satisfy: only call_kernel
/// calls, views and call_extern (the collectives') remain, it is well formed, round-trips through the text format, and every kernel is
/// valid in the portable kernel format.
IRModule LegalizeAndCheck(const IRModule& module) {
  IRModule legal = Legalize(module);
  std::set<std::string> ops = OpsCalled(legal);
  ops.erase("call_kernel");
  ops.erase("view");
  ops.erase("call_extern");
  EXPECT_TRUE(ops.empty()) << "left unlegalized: " << *ops.begin();
  EXPECT_TRUE(CheckWellFormed(legal).empty());
  std::string text = PrintModule(legal);
  EXPECT_TRUE(StructuralEqual(ParseModule(text, "printed.rxt"), legal)) << text;
  for (const IRModule::Entry& entry : legal.entries()) {
    if (entry.kernel) {
      EXPECT_NO_THROW(EncodeKernel(entry.kernel, entry.name)) << entry.name;
    }
  }
  return legal;
}

TEST(LegalizeOps, EveryCoreOpHasALegalization) {
  for (std::string_view name : kCoreOpNames) {
    EXPECT_TRUE(OpRegistry::Global().Get(std::string(name)).Has<FLegalize>()) << name;
  }
}

/// An op of the tests' own with no legalization (every core op has one).
void DefineUnlegalizedOp() {
  OpRegistry::Global().Extend([](OpRegistry& registry) {
    if (registry.Find("test.unlegalized") != nullptr) return;
    registry.Def("test.unlegalized")
        .Describe("An op without a legalization (tests).")
        .Input("x")
        .Set<FInferStructInfo>([](const CallNode& call) { return call.args[0]->struct_info; });
  });
}

TEST(LegalizeOps, TheSeedMlpBecomesKernelsThatRoundTrip) {
  std::ifstream in(std::string(RXT_SOURCE_DIR) + "/examples/mlp.rxt");
  std::stringstream text;
  text << in.rdbuf();
  IRModule legal = LegalizeAndCheck(ParseModule(text.str(), "mlp.rxt"));
  // Three matmuls of different shapes, two adds, one relu shared by both relu calls.
  int kernels = 0;
  for (const IRModule::Entry& entry : legal.entries()) kernels += entry.kernel != nullptr;
  EXPECT_EQ(kernels, 6);
  EXPECT_EQ(legal.attrs, ParseModule(text.str(), "mlp.rxt").attrs);
}

// One call of every legalized op, with symbolic dims where the op allows them.
const char* kEveryOp = R"(
def @main(%x: Tensor((n, 4), float32), %y: Tensor((4,), float32), %i: Tensor((n,), int64),
          %c: Tensor((n, 4), bool), %img: Tensor((n, 3, 6, 6), float32), %k: Tensor((2, 3, 3, 3), float32),
          %ch: Tensor((3,), float32), %m: Tensor((n, 4), int32), %s: Tensor((), float32),
          %kt: Tensor((3, 2, 3, 3), float32), %seed: Tensor((), int64),
          %kl: Tensor((4, 4), float32)) -> Object {
  %e0 = negative(%x)
  %e1 = abs(%m)
  %e2 = exp(%x)
  %e3 = log(%x)
  %e4 = sqrt(%x)
  %e5 = rsqrt(%x)
  %e6 = tanh(%x)
  %e7 = sigmoid(%x)
  %e8 = erf(%x)
  %e9 = floor(%x)
  %e10 = ceil(%x)
  %e11 = round(%x)
  %e12 = sign(%m)
  %e13 = sin(%x)
  %e14 = cos(%x)
  %e15 = tan(%x)
  %e16 = asin(%x)
  %e17 = acos(%x)
  %e18 = atan(%x)
  %e19 = sinh(%x)
  %e20 = cosh(%x)
  %e21 = asinh(%x)
  %e22 = acosh(%x)
  %e23 = atanh(%x)
  %b0 = add(%x, %y)
  %b1 = subtract(%x, %y)
  %b2 = multiply(%x, %y)
  %b3 = divide(%m, %m)
  %b4 = power(%x, %y)
  %b5 = maximum(%x, %s)
  %b6 = minimum(%m, %m)
  %b7 = mod(%x, %y)
  %b8 = fmod(%m, %m)
  %c0 = equal(%x, %y)
  %c1 = not_equal(%c, %c)
  %c2 = less(%x, %y)
  %c3 = less_equal(%m, %m)
  %c4 = greater(%x, %y)
  %c5 = greater_equal(%x, %y)
  %w0 = where(%c, %x, %y)
  %a0 = astype(%x, dtype=float16)
  %a1 = clip(%x, min=-1, max=1)
  %l0 = matmul(%x, %y)
  %l1 = matmul(%img, %img)
  %l2 = linear(%x, %kl, %y)
  %p0 = permute_dims(%x)
  %p1 = reshape(%img, shape(n, -1))
  %p2 = broadcast_to(%y, shape(n, 4))
  %p3 = collapse_sum_to(%x, shape(1, 4))
  %p4 = expand_dims(%x, axis=[1])
  %p5 = squeeze(%p4, axis=[1])
  %p6 = flatten(%x)
  %p7 = concat((%x, %x), axis=1)
  %p8 = split(%x, indices=[1, 3], axis=1)
  %p9 = strided_slice(%x, axes=[1], begin=[3], end=[0], strides=[-2])
  %p10 = take(%x, %i, axis=0)
  %p11 = pad(%x, pad_width=[0, 1, 2, 0])
  %p12 = one_hot(%i, prim(1f32), prim(0f32), depth=3)
  %r0 = sum(%x, axis=[0])
  %r1 = mean(%x, keepdims=true)
  %r2 = max(%m, axis=[-1])
  %r3 = min(%x)
  %r4 = variance(%img, axis=[1, 2])
  %r5 = argmax(%x, axis=1)
  %r6 = softmax(%x)
  %r7 = log_softmax(%img, axis=1)
  %r8 = prod(%x, axis=[1], keepdims=true)
  %r9 = cumsum(%m, axis=-1, exclusive=true, reverse=true)
  %z0 = zeros(shape(n, 2))
  %z1 = ones(shape(3), dtype=int8)
  %z2 = full(shape(2, 2), %s)
  %z3 = zeros_like(%x)
  %z4 = ones_like(%m)
  %z5 = full_like(%x, prim(2f32))
  %n0 = nn.relu(%x)
  %n1 = nn.gelu(%x)
  %n2 = nn.silu(%x)
  %n3 = nn.conv2d(%img, %k, padding=[1], strides=[2])
  %n4 = nn.max_pool2d(%img, pool_size=[2, 2], strides=[2, 2])
  %n5 = nn.avg_pool2d(%img, pool_size=[3, 3], padding=[1, 1], ceil_mode=true)
  %n6 = nn.adaptive_avg_pool2d(%img, output_size=[2, 2])
  %n7 = nn.batch_norm(%img, %ch, %ch, %ch, %ch)
  %t0 = nn.conv2d_transpose(%img, %kt, strides=[2], padding=[1], output_padding=[1])
  %t6 = nn.conv2d_backward_data(%n3, %k, padding=[1], strides=[2], data_size=[6, 6])
  %t7 = nn.conv2d_backward_weight(%n3, %img, padding=[1], strides=[2], kernel_size=[3, 3])
  %t1 = nn.max_pool2d_backward(%n4, %img, pool_size=[2, 2], strides=[2, 2])
  %t2 = nn.avg_pool2d_backward(%n5, %img, pool_size=[3, 3], padding=[1, 1], ceil_mode=true)
  %t3 = nn.adaptive_avg_pool2d_backward(%n6, %img)
  %t4 = nn.dropout(%x, %seed, rate=0.25)
  %t5 = nn.dropout(%x)
  %n8 = nn.layer_norm(%img, %ch, %ch, axes=[1])
  %n9 = nn.nll_loss(%x, %i)
  %n10 = nn.cross_entropy_with_logits(%x, %x)
  %k0 = checkpoint_start((%x, %y))
  %k1 = checkpoint_end(%k0)
  %cc0 = ccl.allreduce(%x, op="mean")
  %cc1 = ccl.allreduce((%x, %y))
  %cc2 = (%x, %s)
  %cc3 = ccl.allreduce(%cc2, op="mean")
  %cc4 = ccl.allreduce_start(%cc2, op="mean")
  %cc5 = ccl.allreduce_wait(%cc4, out_sinfo=Tuple(Tensor((n, 4), float32), Tensor((), float32)))
  %cc6 = ccl.allreduce_start(%x)
  %cc7 = ccl.allreduce_wait(%cc6, out_sinfo=Tensor((n, 4), float32))
  return %n10
}
)";

TEST(LegalizeOps, OneCallOfEveryOpGivesValidKernels) {
  IRModule module = ParseModule(kEveryOp, "every_op.rxt");
  std::set<std::string> tested = OpsCalled(module);
  for (std::string_view name : kCoreOpNames) {
    const OpDef& op = OpRegistry::Global().Get(std::string(name));
    // gradient_of's legalization refuses: the LowerGradientOf pass lowers it (its own tests).
    if (op.Has<FLegalize>() && name != "call_kernel" && name != "call_extern" && name != "print" && name != "assert" &&
        name != "view" && name != "gradient_of") {
      EXPECT_TRUE(tested.count(std::string(name))) << name << " is missing from kEveryOp";
    }
  }
  LegalizeAndCheck(module);
}

TEST(LegalizeOps, LegalizingAgainChangesNothing) {
  IRModule once = Legalize(ParseModule(kEveryOp, "every_op.rxt"));
  EXPECT_TRUE(StructuralEqual(Legalize(once), once));
}

TEST(LegalizeOps, AllowMissingKeepsTheCallsItCannotLegalize) {
  DefineUnlegalizedOp();
  IRModule module = ParseModule(R"(
def @main(%x: Tensor((2, 4), float32), %u: Tensor(ndim=1, float32)) -> Tensor(ndim=1, float32) {
  %t: Tensor((2, 4), float32) = test.unlegalized(%x)
  %r: Tensor(ndim=1, float32) = exp(%u)
  %y: Tensor((2, 4), float32) = exp(%x)
  return %r
})");
  try {
    Legalize(module);
    FAIL() << "test.unlegalized and a shapeless exp were legalized";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnimplemented);
    std::string what = e.what();
    EXPECT_NE(what.find("2 op call(s) cannot be legalized"), std::string::npos) << what;
    EXPECT_NE(what.find("test.unlegalized (1 call) in @main: no legalization is registered"), std::string::npos)
        << what;
    EXPECT_NE(what.find("exp (1 call) in @main: the shape and dtype of the result must be known"), std::string::npos)
        << what;
  }
  PassContext context;
  context.options["LegalizeOps.allow_missing"] = true;
  IRModule legal = RunPasses(module, {"LegalizeOps"}, context);
  EXPECT_EQ(OpsCalled(legal), (std::set<std::string>{"test.unlegalized", "exp", "call_kernel"}));
  context.options["LegalizeOps.allow_missing"] = 1;  // not a bool
  EXPECT_THROW(RunPasses(module, {"LegalizeOps"}, context), Error);
}

TEST(LegalizeOps, KernelsAreSharedAcrossFunctions) {
  IRModule legal = LegalizeAndCheck(ParseModule(R"(
def @f(%x: Tensor((n, 4), float32)) -> Tensor((n, 4), float32) {
  %y: Tensor((n, 4), float32) = nn.relu(%x)
  return %y
}

def @g(%a: Tensor((m, 4), float32)) -> Tensor((m, 4), float32) {
  %b: Tensor((m, 4), float32) = nn.relu(%a)
  %c: Tensor((m, 4), float32) = add(%b, %b)
  return %c
}
)"));
  std::vector<std::string> kernels;
  for (const IRModule::Entry& entry : legal.entries()) {
    if (entry.kernel) kernels.push_back(entry.name);
  }
  EXPECT_EQ(kernels, (std::vector<std::string>{"relu", "add"}));  // one relu for n and m alike
}

TEST(LegalizeContext, AddKernelReusesStructurallyEqualKernels) {
  auto copy_kernel = [](DType dtype) {
    KernelBuilder kb;
    TensorRef x = kb.Input("x", dtype, {IntImm(2)});
    return kb.Build({kb.Compute("copy", {IntImm(2)}, [&](const Index& i) { return x(i); })});
  };
  IRModule module;
  BlockBuilder builder(&module);
  LegalizeContext context(module, builder);
  std::string a = context.AddKernel("copy", copy_kernel(DType::kFloat32));
  std::string b = context.AddKernel("copy", copy_kernel(DType::kFloat32));
  std::string c = context.AddKernel("copy", copy_kernel(DType::kInt32));
  EXPECT_EQ(a, "copy");
  EXPECT_EQ(b, "copy");
  EXPECT_EQ(c, "copy_1");
  EXPECT_NE(module.FindKernel("copy_1"), nullptr);
  // A new context sees the kernels already in the module.
  LegalizeContext again(module, builder);
  EXPECT_EQ(again.AddKernel("other", copy_kernel(DType::kInt32)), "copy_1");
  Expr call = again.CallKernel("other", copy_kernel(DType::kFloat32), {}, {TensorSI(std::vector<int64_t>{2}, DType::kFloat32)});
  EXPECT_EQ(PrintExpr(call), "call_kernel(@copy, (), out_sinfo=Tensor((2,), float32))");
}

TEST(RegisterLegalizations, KeepsALegalizationAlreadySet) {
  OpRegistry registry;
  RegisterCoreOps(registry);
  bool called = false;
  registry.FindMutable("add")->Set<FLegalize>([&](LegalizeContext&, const CallNode&) {
    called = true;
    return Expr();
  });
  RegisterLegalizations(registry);
  EXPECT_TRUE(registry.Get("nn.relu").Has<FLegalize>());
  EXPECT_TRUE(registry.Get("nn.dropout").Has<FLegalize>());
  IRModule module;
  BlockBuilder builder(&module);
  LegalizeContext context(module, builder);
  Expr x = MakeVar("x", TensorSI(std::vector<int64_t>{2}, DType::kFloat32));
  Expr add = MakeOpCall("add", {x, x});
  (*registry.Get("add").Get<FLegalize>())(context, *add->As<CallNode>());
  EXPECT_TRUE(called);
}

}  // namespace
}  // namespace rxt
