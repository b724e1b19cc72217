// The tensor-expression kernel builder: stages, reductions, allocations, symbolic dims, and
// the scalar helpers.
#include "rxt/transform/legalize/tensor_expr.h"

#include <gtest/gtest.h>

#include <cmath>

#include "rxt/ir/equality.h"
#include "rxt/ir/kernel_encoding.h"
#include "rxt/ir/parser.h"
#include "rxt/ir/printer.h"
#include "rxt/ir/visitor.h"

namespace rxt {
namespace {

using namespace te;

KernelFunction ParseKernel(const std::string& text) { return ParseModule(text, "expected.rxt").GetKernel("k"); }

std::string Print(const KernelFunction& k) {
  IRModule m;
  m.AddKernel("k", k);
  return PrintModule(m);
}

#define EXPECT_KERNEL_EQ(actual, expected_text)                                                  \
  do {                                                                                           \
    KernelFunction expected_kernel = ParseKernel(expected_text);                                 \
    EXPECT_TRUE(StructuralEqual((actual), expected_kernel)) << "actual:\n"                        \
                                                             << Print(actual) << "expected:\n" \
                                                             << Print(expected_kernel);        \
  } while (0)

TEST(TensorExpr, ComputeIsALoopNestAroundABlock) {
  PrimVar n = MakePrimVar("n");
  KernelBuilder kb;
  TensorRef x = kb.Input("x", TensorSI({n, IntImm(4)}, DType::kFloat32));
  TensorRef y = kb.Compute("relu", x.shape(), [&](const Index& i) { return Max(x(i), Zero(DType::kFloat32)); });
  EXPECT_EQ(y.dtype(), DType::kFloat32);
  EXPECT_KERNEL_EQ(kb.Build({y}), R"(
kernel @k(x: Buffer((n, 4), float32), y: Buffer((n, 4), float32)) attributes {op_pattern = "elementwise"} {
  for i in range(n) {
    for j in range(4) {
      block relu(vi = i, vj = j) {
        y[vi, vj] = max(x[vi, vj], 0f32)
      }
    }
  }
})");
}

TEST(TensorExpr, ReduceHasReduceIteratorsInnermostAndAnInit) {
  KernelBuilder kb;
  TensorRef x = kb.Input("x", DType::kFloat32, {IntImm(2), IntImm(3)});
  TensorRef s = kb.Reduce("sum", {IntImm(2)}, {IntImm(3)}, ReduceKind::kSum,
                          [&](const Index& i, const Index& r) { return x({i[0], r[0]}); });
  EXPECT_KERNEL_EQ(kb.Build({s}), R"(
kernel @k(x: Buffer((2, 3), float32), s: Buffer((2,), float32)) attributes {op_pattern = "comm_reduce"} {
  for i in range(2) {
    for k in range(3) {
      block sum(vi = i, reduce vk = k) {
        init {
          s[vi] = 0f32
        }
        s[vi] = s[vi] + x[vi, vk]
      }
    }
  }
})");
}

TEST(TensorExpr, ReduceIdentitiesAndExplicitInit) {
  KernelBuilder kb;
  TensorRef x = kb.Input("x", DType::kInt32, {IntImm(5)});
  auto load = [&](const Index&, const Index& r) { return x(r); };
  TensorRef mx = kb.Reduce("max", {}, {IntImm(5)}, ReduceKind::kMax, load);
  TensorRef mn = kb.Reduce("min", {}, {IntImm(5)}, ReduceKind::kMin, load, IntImm(100, DType::kInt32));
  EXPECT_KERNEL_EQ(kb.Build({mx, mn}), R"(
kernel @k(x: Buffer((5,), int32), a: Buffer((), int32), b: Buffer((), int32)) attributes {op_pattern = "opaque"} {
  for k in range(5) {
    block max(reduce vk = k) {
      init {
        a[] = -2147483648i32
      }
      a[] = max(a[], x[vk])
    }
  }
  for k in range(5) {
    block min(reduce vk = k) {
      init {
        b[] = 100i32
      }
      b[] = min(b[], x[vk])
    }
  }
})");
}

TEST(TensorExpr, ReduceOverNothingIsACompute) {
  KernelBuilder kb;
  TensorRef x = kb.Input("x", DType::kFloat32, {IntImm(2)});
  TensorRef s = kb.Reduce("sum", {IntImm(2)}, {}, ReduceKind::kSum, [&](const Index& i, const Index&) { return x(i); });
  EXPECT_KERNEL_EQ(kb.Build({s}), R"(
kernel @k(x: Buffer((2,), float32), s: Buffer((2,), float32)) attributes {op_pattern = "elementwise"} {
  for i in range(2) {
    block sum(vi = i) {
      s[vi] = x[vi]
    }
  }
})");
}

TEST(TensorExpr, ReduceOverAStaticEmptyExtentIsTheInit) {
  KernelBuilder kb;
  TensorRef x = kb.Input("x", DType::kFloat32, {IntImm(2), IntImm(0)});
  TensorRef s = kb.Reduce("max", {IntImm(2)}, {IntImm(0)}, ReduceKind::kMax,
                          [&](const Index& i, const Index& r) { return x({i[0], r[0]}); });
  EXPECT_KERNEL_EQ(kb.Build({s}), R"(
kernel @k(x: Buffer((2, 0), float32), s: Buffer((2,), float32)) attributes {op_pattern = "elementwise"} {
  for i in range(2) {
    block max(vi = i) {
      s[vi] = -inf_f32
    }
  }
})");
}

TEST(TensorExpr, IntermediateStagesBecomeAllocations) {
  KernelBuilder kb;
  TensorRef x = kb.Input("x", DType::kFloat32, {IntImm(3)});
  TensorRef e = kb.Compute("e", {IntImm(3)}, [&](const Index& i) { return Call("exp", x(i)); });
  TensorRef y = kb.Compute("y", {IntImm(3)}, [&](const Index& i) { return e(i) + e(i); });
  EXPECT_KERNEL_EQ(kb.Build({y}), R"(
kernel @k(x: Buffer((3,), float32), y: Buffer((3,), float32)) attributes {op_pattern = "injective"} {
  alloc e: Buffer((3,), float32)
  for i in range(3) {
    block e(vi = i) {
      e[vi] = exp(x[vi])
    }
  }
  for i in range(3) {
    block y(vi = i) {
      y[vi] = e[vi] + e[vi]
    }
  }
})");
}

/// The scalar variables a kernel reads (not those it defines).
class VarUses : public StmtVisitor {
 public:
  void VisitPrimVar(const PrimVar& var) override { used.push_back(var.get()); }
  std::vector<const PrimVarNode*> used;
};

TEST(TensorExpr, AKernelHasSymbolicVariablesOfItsOwn) {
  PrimVar n = MakePrimVar("n");
  KernelBuilder kb;
  TensorRef x = kb.Input("x", TensorSI({n}, DType::kFloat32));
  KernelFunction k = kb.Build({kb.Compute("y", {n}, [&](const Index& i) { return x(i); })});
  const PrimExpr& dim = k->params[0].buffer->shape[0];
  ASSERT_EQ(dim->kind, PrimKind::kVar);
  EXPECT_EQ(dim->As<PrimVarNode>()->name, "n");
  EXPECT_NE(dim.get(), n.get());  // the caller's n is not shared with the kernel
  VarUses uses;
  uses.VisitKernel(*k);
  for (const PrimVarNode* v : uses.used) EXPECT_NE(v, n.get());
  EXPECT_NO_THROW(EncodeKernel(k, "k"));  // binds n from x's shape: a valid kernel
}

TEST(TensorExpr, ACompositeDimNoParameterBindsGetsAVariable) {
  PrimVar n = MakePrimVar("n");
  PrimExpr twice = MakeBinary(BinaryOp::kMul, n, IntImm(2));
  KernelBuilder kb;
  TensorRef x = kb.Input("x", TensorSI({twice}, DType::kFloat32));
  KernelFunction k = kb.Build({kb.Compute("y", {twice}, [&](const Index& i) { return x(i); })});
  EXPECT_KERNEL_EQ(k, R"(
kernel @k(x: Buffer((d,), float32), y: Buffer((d,), float32)) attributes {op_pattern = "elementwise"} {
  for i in range(d) {
    block y(vi = i) {
      y[vi] = x[vi]
    }
  }
})");
  // When another parameter binds n, the composite dim stays (checked at run time).
  KernelBuilder kb2;
  TensorRef x2 = kb2.Input("x", TensorSI({twice}, DType::kFloat32));
  KernelFunction k2 = kb2.Build({kb2.Compute("y", {n}, [&](const Index& i) { return x2({i[0] * IntImm(2)}); })});
  EXPECT_KERNEL_EQ(k2, R"(
kernel @k(x: Buffer((n * 2,), float32), y: Buffer((n,), float32)) attributes {op_pattern = "injective"} {
  for i in range(n) {
    block y(vi = i) {
      y[vi] = x[vi * 2]
    }
  }
})");
}

TEST(TensorExpr, AnUnbindableDimIsUnimplemented) {
  PrimVar n = MakePrimVar("n"), m = MakePrimVar("m");
  KernelBuilder kb;
  TensorRef x = kb.Input("x", TensorSI({n}, DType::kFloat32));
  TensorRef y = kb.Compute("y", {n}, [&](const Index& i) { return x({FloorMod(i[0], m)}); });
  try {
    kb.Build({y});
    FAIL() << "a kernel reading an unbound m was built";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnimplemented);
    EXPECT_NE(std::string(e.what()).find("symbolic dim(s) m cannot be bound"), std::string::npos) << e.what();
  }
}

TEST(TensorExpr, ScalarInputsAndUnknownDims) {
  KernelBuilder kb;
  TensorRef x = kb.Input("x", TensorSI(DType::kFloat32, 2));  // dims unknown
  PrimExpr alpha = kb.ScalarInput("alpha", DType::kFloat32);
  TensorRef y = kb.Compute("y", x.shape(), [&](const Index& i) { return x(i) * alpha; });
  KernelFunction k = kb.Build({y});
  ASSERT_EQ(k->params.size(), 3u);
  EXPECT_NE(k->params[1].scalar, nullptr);
  EXPECT_EQ(k->params[0].buffer->shape[0]->kind, PrimKind::kVar);
  EXPECT_EQ(k->params[0].buffer->shape[1]->kind, PrimKind::kVar);
  EXPECT_NO_THROW(EncodeKernel(k, "k"));
  EXPECT_THROW(kb.Input("bad", TensorSI(DType::kUnknown, 2)), Error);
  EXPECT_THROW(kb.Input("bad", TensorSI(DType::kFloat32)), Error);  // ndim unknown
}

TEST(TensorExpr, BuildRejectsOutputsThatAreNotStages) {
  KernelBuilder kb;
  TensorRef x = kb.Input("x", DType::kFloat32, {IntImm(2)});
  kb.Compute("y", {IntImm(2)}, [&](const Index& i) { return x(i); });
  EXPECT_THROW(kb.Build({x}), Error);
}

TEST(TensorExprHelpers, ConstantsSaturateAndCastsFold) {
  int64_t v = 0;
  EXPECT_TRUE(GetConstInt(Const(1e10, DType::kInt8), &v));
  EXPECT_EQ(v, 127);
  EXPECT_TRUE(GetConstInt(Const(-2.7, DType::kInt32), &v));
  EXPECT_EQ(v, -2);
  EXPECT_TRUE(GetConstInt(Const(NAN, DType::kInt64), &v));
  EXPECT_EQ(v, 0);
  EXPECT_EQ(Const(3, DType::kFloat16)->As<FloatImmNode>()->value, 3.0);
  EXPECT_EQ(Const(2, DType::kBool)->As<IntImmNode>()->value, 1);
  EXPECT_EQ(Cast(DType::kFloat32, IntImm(3))->kind, PrimKind::kFloatImm);
  EXPECT_EQ(Cast(DType::kInt8, IntImm(300))->kind, PrimKind::kCast);  // it would wrap: left to the backend
  EXPECT_EQ(Cast(DType::kFloat32, MakePrimVar("n"))->kind, PrimKind::kCast);
  EXPECT_TRUE(std::isinf(LowestValue(DType::kFloat32)->As<FloatImmNode>()->value));
  EXPECT_TRUE(GetConstInt(HighestValue(DType::kUInt8), &v));
  EXPECT_EQ(v, 255);
}

TEST(TensorExprHelpers, IndexMaps) {
  PrimVar a = MakePrimVar("a"), b = MakePrimVar("b"), c = MakePrimVar("c");
  // (n, 1, 4) read for an element of (2, n, 3, 4): the size-1 dim reads 0, dims right-aligned.
  PrimVar n = MakePrimVar("n");
  PrimVar d = MakePrimVar("d");
  Index in = BroadcastIndex({d, a, b, c}, {IntImm(2), n, IntImm(3), IntImm(4)}, {n, IntImm(1), IntImm(4)});
  ASSERT_EQ(in.size(), 3u);
  EXPECT_EQ(in[0], a);
  EXPECT_TRUE(StructuralEqual(in[1], IntImm(0)));
  EXPECT_EQ(in[2], c);
  // A dim of 1 in the output too keeps the output's index (the same element, visibly).
  in = BroadcastIndex({a, b}, {IntImm(1), IntImm(4)}, {IntImm(1), IntImm(4)});
  EXPECT_EQ(in[0], a);
  EXPECT_EQ(in[1], b);
  // Row-major positions: (a, b) in (n, 3) is a * 3 + b, and back.
  PrimExpr flat = FlatIndex({a, b}, {n, IntImm(3)});
  EXPECT_TRUE(StructuralEqual(flat, a * IntImm(3) + b));
  Index back = UnravelIndex(flat, {n, IntImm(3)});
  EXPECT_TRUE(StructuralEqual(back[1], FloorMod(flat, IntImm(3))));
  EXPECT_TRUE(StructuralEqual(back[0], FloorDiv(flat, IntImm(3))));
  EXPECT_TRUE(StructuralEqual(ProductOf({IntImm(2), IntImm(3)}), IntImm(6)));
  EXPECT_TRUE(StructuralEqual(ProductOf({}), IntImm(1)));
}

TEST(TensorExprHelpers, LoadOrNeverReadsOutOfBounds) {
  KernelBuilder kb;
  TensorRef x = kb.Input("x", DType::kFloat32, {IntImm(4)});
  PrimVar i = MakePrimVar("i");
  PrimExpr e = LoadOr(x, {i - IntImm(1)}, Zero(DType::kFloat32));
  const auto* select = e->As<SelectNode>();
  ASSERT_NE(select, nullptr);
  const auto* load = select->if_true->As<LoadNode>();
  ASSERT_NE(load, nullptr);
  EXPECT_TRUE(StructuralEqual(load->indices[0], ClampIndex(i - IntImm(1), IntImm(4))));
}

}  // namespace
}  // namespace rxt
