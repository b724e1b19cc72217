#include "op_test_util.h"

namespace rxt::op_test {
namespace {

TEST(CallKernelOpTest, ResultIsTheDeclaredOutput) {
  PrimVar n = MakePrimVar("n");
  Expr args = Tup({S("x", {I(1), n}), T("w", {4, 4})});
  StructInfo out = TensorSI(std::vector<PrimExpr>{I(1), n}, f32);
  EXPECT_EQ(Infer("call_kernel", {MakeGlobalVar("linear0"), args}, {}, {out}), "Tensor((1, n), float32)");
  EXPECT_EQ(Infer("call_kernel", {MakeGlobalVar("two"), args}, {}, {out, TensorSI(i64, 2)}),
            "Tuple(Tensor((1, n), float32), Tensor(ndim=2, int64))");
  Expr tuple_var = MakeVar("args", TupleSI({TensorSI(f32, 2)}));
  EXPECT_EQ(Infer("call_kernel", {MakeGlobalVar("k"), tuple_var}, {}, {out}), "Tensor((1, n), float32)");
}

TEST(CallKernelOpTest, RejectsBadCalls) {
  Expr args = Tup({T("x", {2})});
  StructInfo out = TensorSI(std::vector<int64_t>{2}, f32);
  EXPECT_EQ(InferError("call_kernel", {MakeGlobalVar("k"), args}),
            "call_kernel: needs the struct info of its output (out_sinfo)");
  EXPECT_EQ(InferError("call_kernel", {MakeGlobalVar("k"), args}, {}, {TupleSI({})}),
            "call_kernel: output 0 must be a Tensor (kernels write into output buffers), got Tuple()");
  EXPECT_EQ(InferError("call_kernel", {T("f", {2}), args}, {}, {out}),
            "call_kernel: argument kernel must be a GlobalVar naming a kernel function, got kernel %f: "
            "Tensor((2,), float32)");
  EXPECT_EQ(InferError("call_kernel", {MakeGlobalVar("k"), T("x", {2})}, {}, {out}),
            "call_kernel: args %x: Tensor((2,), float32) must be a Tuple, got a Tensor");
}

TEST(CallExternOpTest, ResultIsTheDeclaredOutput) {
  Expr args = Tup({T("x", {1, 784}), T("w", {128, 784})});
  StructInfo out = TensorSI(std::vector<int64_t>{1, 128}, f32);
  EXPECT_EQ(Infer("call_extern", {MakeStringImm("env.linear"), args}, {}, {out}), "Tensor((1, 128), float32)");
  EXPECT_EQ(InferError("call_extern", {MakeGlobalVar("k"), args}, {}, {out}),
            "call_extern: argument name must be a string, got name ?");
  EXPECT_EQ(InferError("call_extern", {MakeStringImm(""), args}, {}, {out}),
            "call_extern: argument name must not be empty");
  EXPECT_EQ(InferError("call_extern", {MakeStringImm("f"), args}),
            "call_extern: needs the struct info of its output (out_sinfo)");
}

TEST(ViewOpTest, ResultIsTheDeclaredShapeOfTheSameElements) {
  PrimVar n = MakePrimVar("n");
  EXPECT_EQ(Infer("view", {T("x", {64, 16, 5, 5})}, {}, {TensorSI(std::vector<int64_t>{64, 400}, f32)}),
            "Tensor((64, 400), float32)");
  EXPECT_EQ(Infer("view", {S("x", {n, I(4)})}, {}, {TensorSI(std::vector<PrimExpr>{n * I(4)}, f32)}),
            "Tensor((n * 4,), float32)");
  EXPECT_TRUE(OpRegistry::Global().Get("view").pure());
}

TEST(ViewOpTest, RejectsBadCalls) {
  StructInfo out = TensorSI(std::vector<int64_t>{6}, f32);
  EXPECT_EQ(InferError("view", {T("x", {2, 3})}), "view: needs the struct info of its one output (out_sinfo)");
  EXPECT_EQ(InferError("view", {T("x", {2, 3})}, {}, {TensorSI(std::vector<int64_t>{7}, f32)}),
            "view: a view keeps the number of elements: 6 in x %x: Tensor((2, 3), float32), 7 in the output");
  EXPECT_EQ(InferError("view", {T("x", {2, 3})}, {}, {TensorSI(std::vector<int64_t>{6}, i64)}),
            "view: a view keeps the dtype: x %x: Tensor((2, 3), float32) is float32, the output int64");
  EXPECT_EQ(InferError("view", {T("x", {2, 3})}, {}, {TensorSI(f32, 1)}),
            "view: the output must be a tensor of known dtype and shape (out_sinfo)");
  EXPECT_EQ(InferError("view", {Tup({T("x", {2, 3})})}, {}, {out}).rfind("view: ", 0), 0u);
}

TEST(PrintOpTest, ImpureAndReturnsEmptyTuple) {
  EXPECT_FALSE(OpRegistry::Global().Get("print").pure());
  EXPECT_EQ(Infer("print", {T("x", {2}), MakeStringImm("hello")}), "Tuple()");
  EXPECT_EQ(Infer("print", {}, A({{"format", "x = {}"}})), "Tuple()");
  EXPECT_NE(InferError("print", {T("x", {2})}, A({{"format", 3}})).find("print: attribute 'format' must be string"),
            std::string::npos);
}

TEST(AssertOpTest, ImpureAndChecksItsArguments) {
  EXPECT_FALSE(OpRegistry::Global().Get("assert").pure());
  EXPECT_EQ(Infer("assert", {T("c", {}, boolean), MakeStringImm("must hold")}), "Tuple()");
  EXPECT_EQ(Infer("assert", {MakePrimValue(BoolImm(true)), MakeStringImm("ok")}), "Tuple()");
  EXPECT_EQ(InferError("assert", {T("c", {2}, boolean), MakeStringImm("m")}),
            "assert: condition %c: Tensor((2,), bool) must be a bool scalar (a 0-d tensor or a Prim value)");
  EXPECT_EQ(InferError("assert", {T("c", {}, boolean), T("m", {})}),
            "assert: argument message must be a string, got message %m: Tensor((), float32)");
}

}  // namespace
}  // namespace rxt::op_test
