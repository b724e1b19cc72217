// The host side of rxt_ir_api_t (core/src/plugin/ir_builder_host.cc, ir_api_read.cc,
// ir_api_build.cc): every function of the table called as a plugin calls it, and the C++
// conveniences of ir_generators.h with the C fixtures of tests/plugins/fixtures.
#include "rxt/plugin/ir_builder_host.h"

#include <gtest/gtest.h>

#include <cstring>

#include "rxt/ir/equality.h"
#include "rxt/ir/parser.h"
#include "rxt/ir/printer.h"
#include "rxt/ir/op.h"
#include "rxt/plugin/ir_generators.h"

namespace rxt {
namespace {

const rxt_ir_api_t& Ir() { return *IRBuilderHost::Api(); }

std::string Str(const char* s) { return s != nullptr ? s : "<null>"; }

/// A builder with an open dataflow block and two inputs: %x: (n, 4) float32, %i: (n,) int64.
class IRBuilderHostTest : public testing::Test {
 protected:
  IRBuilderHostTest() {
    std::map<std::string, PrimVar> symbols;
    x_ = MakeVar("x", ParseStructInfo("Tensor((n, 4), float32)", &symbols));
    i_ = MakeVar("i", ParseStructInfo("Tensor((n,), int64)", &symbols));
    builder_.BeginDataflowBlock();
  }
  rxt_ir_builder_t* b() { return host_.handle(); }
  Expr Get(rxt_ir_expr_t h) { return host_.Unwrap(h); }
  std::string SInfo(rxt_ir_expr_t h) {
    Expr e = Get(h);
    return e ? ToString(GetStructInfo(e)) : "<null>";
  }

  BlockBuilder builder_;
  IRBuilderHost host_{builder_};
  Var x_, i_;
};

TEST_F(IRBuilderHostTest, TableIsComplete) {
  const rxt_ir_api_t& api = Ir();
  EXPECT_EQ(api.struct_size, sizeof(rxt_ir_api_t));
  const void* const* slots = reinterpret_cast<const void* const*>(reinterpret_cast<const char*>(&api) + sizeof(size_t));
  size_t count = (sizeof(rxt_ir_api_t) - sizeof(size_t)) / sizeof(void*);
  for (size_t k = 0; k < count; ++k) EXPECT_NE(slots[k], nullptr) << "member " << k;
  EXPECT_TRUE(RXT_IR_API_HAS(&api, check_options));
}

TEST_F(IRBuilderHostTest, OpBindsAVariableWithInferredStructInfo) {
  rxt_ir_expr_t x = host_.Wrap(x_);
  rxt_ir_expr_t y = Ir().op(b(), "exp", &x, 1, nullptr);
  ASSERT_NE(y, nullptr) << host_.error();
  EXPECT_EQ(Get(y)->kind, ExprKind::kVar);
  EXPECT_TRUE(Get(y)->As<VarNode>()->is_dataflow);
  EXPECT_EQ(SInfo(y), "Tensor((n, 4), float32)");
  rxt_ir_expr_t s = Ir().op(b(), "sum", &y, 1, "axis=[1], keepdims=true");
  EXPECT_EQ(SInfo(s), "Tensor((n, 1), float32)");
  BindingBlock block = builder_.EndBlock();
  ASSERT_EQ(block.bindings.size(), 2u);
  EXPECT_EQ(PrintExpr(block.bindings[1].value), "sum(%lv, axis=[1], keepdims=true)");
  builder_.BeginDataflowBlock();
}

TEST_F(IRBuilderHostTest, BindOutputsGivesOrdinaryVariables) {
  IRBuilderHost host(builder_, {.bind_outputs = true});
  rxt_ir_expr_t x = host.Wrap(x_);
  Expr y = host.Unwrap(Ir().op(host.handle(), "negative", &x, 1, nullptr));
  ASSERT_NE(y, nullptr);
  EXPECT_FALSE(y->As<VarNode>()->is_dataflow);
}

TEST_F(IRBuilderHostTest, BadAttributesUnknownOpsAndShapesAreErrors) {
  rxt_ir_expr_t x = host_.Wrap(x_);
  EXPECT_EQ(Ir().op(b(), "sum", &x, 1, "axes=[1]"), nullptr);
  EXPECT_NE(host_.error().find("sum has no attribute 'axes'; did you mean 'axis'?"), std::string::npos) << host_.error();

  IRBuilderHost other(builder_);
  EXPECT_EQ(Ir().op(other.handle(), "expp", nullptr, 0, nullptr), nullptr);
  EXPECT_NE(other.error().find("expp"), std::string::npos) << other.error();

  IRBuilderHost third(builder_);
  rxt_ir_expr_t args[2] = {third.Wrap(x_), third.Wrap(i_)};
  EXPECT_EQ(Ir().op(third.handle(), "add", args, 2, nullptr), nullptr);
  EXPECT_NE(third.error().find("add"), std::string::npos) << third.error();

  IRBuilderHost fourth(builder_);
  rxt_ir_expr_t y = fourth.Wrap(x_);
  EXPECT_EQ(Ir().op(fourth.handle(), "sum", &y, 1, "axis=[1"), nullptr);
  EXPECT_NE(fourth.error().find("attributes of sum:1:8: error: expected"), std::string::npos) << fourth.error();
  EXPECT_EQ(Ir().op(fourth.handle(), "print", &y, 1, nullptr), nullptr);  // impure: not after an error
}

TEST_F(IRBuilderHostTest, FirstErrorIsKeptAndNullOperandsPropagate) {
  rxt_ir_expr_t x = host_.Wrap(x_);
  EXPECT_EQ(Ir().error(b()), nullptr);
  rxt_ir_expr_t bad = Ir().op(b(), "matmul", &x, 1, nullptr);  // one argument short
  EXPECT_EQ(bad, nullptr);
  std::string first = Str(Ir().error(b()));
  EXPECT_NE(first.find("matmul"), std::string::npos);
  EXPECT_EQ(Ir().op(b(), "exp", &bad, 1, nullptr), nullptr);
  EXPECT_EQ(Ir().fail(b(), "later"), nullptr);
  EXPECT_EQ(Str(Ir().error(b())), first);

  // A NULL operand with no error yet is an error of its own.
  IRBuilderHost fresh(builder_);
  rxt_ir_expr_t null_arg = nullptr;
  EXPECT_EQ(Ir().op(fresh.handle(), "exp", &null_arg, 1, nullptr), nullptr);
  EXPECT_EQ(fresh.error(), "exp: argument 0 is NULL or not a handle of this builder");
}

TEST_F(IRBuilderHostTest, ForeignHandlesAndNullBuildersNeverCrash) {
  auto foreign = reinterpret_cast<rxt_ir_expr_t>(uintptr_t{12345});
  EXPECT_EQ(Ir().op_name(b(), foreign), nullptr);
  EXPECT_EQ(Ir().num_args(b(), foreign), -1);
  EXPECT_EQ(Ir().ndim(b(), foreign), -1);
  EXPECT_STREQ(Ir().dtype(b(), foreign), "");
  EXPECT_EQ(Ir().struct_info_text(b(), foreign), nullptr);
  EXPECT_EQ(Ir().shape_of(b(), foreign), nullptr);
  EXPECT_TRUE(host_.failed());
  EXPECT_EQ(Ir().op(nullptr, "exp", nullptr, 0, nullptr), nullptr);
  EXPECT_EQ(Ir().error(nullptr), nullptr);
  EXPECT_EQ(Ir().ndim(nullptr, nullptr), -1);
}

TEST_F(IRBuilderHostTest, ReadsOpCallsAndTheirAttributes) {
  IRModule m = ParseModule(R"(
def @f(%x: Tensor((1, 3, 8, 8), float32), %w: Tensor((4, 3, 3, 3), float32)) -> Tensor((1, 4, 6, 6), float32) {
  %y: Tensor((1, 4, 6, 6), float32) = nn.conv2d(%x, %w, strides=[1, 1], out_dtype=float32)
  %z: Tensor((1, 4), float32) = sum(%y, axis=[2, 3])
  %c: Tensor((1, 4, 6, 6), float32) = clip(%y, min=0, max=6.5)
  return %y
})");
  const auto& bindings = m.GetFunction("f")->body->blocks[0].bindings;
  rxt_ir_expr_t conv = host_.Wrap(bindings[0].value), sum = host_.Wrap(bindings[1].value);
  rxt_ir_expr_t clip = host_.Wrap(bindings[2].value);
  EXPECT_STREQ(Ir().op_name(b(), conv), "nn.conv2d");
  EXPECT_EQ(Ir().num_args(b(), conv), 2);
  EXPECT_EQ(Ir().arg(b(), conv, 2), nullptr);
  EXPECT_EQ(Get(Ir().arg(b(), conv, 1)), m.GetFunction("f")->params[1]);

  int64_t groups = 0;
  EXPECT_EQ(Ir().attr_int(b(), conv, "groups", &groups), RXT_OK);
  EXPECT_EQ(groups, 1);
  const char* layout = nullptr;
  EXPECT_EQ(Ir().attr_string(b(), conv, "data_layout", &layout), RXT_OK);
  EXPECT_STREQ(layout, "NCHW");
  const char* dtype = nullptr;
  EXPECT_EQ(Ir().attr_string(b(), conv, "out_dtype", &dtype), RXT_OK);
  EXPECT_STREQ(dtype, "float32");
  const int64_t* strides = nullptr;
  int count = 0;
  ASSERT_EQ(Ir().attr_ints(b(), conv, "strides", &strides, &count), RXT_OK);
  EXPECT_EQ(count, 2);
  EXPECT_EQ(strides[1], 1);
  EXPECT_STREQ(Ir().attr_text(b(), conv, "padding"), "[0, 0, 0, 0]");
  EXPECT_EQ(Ir().attr_int(b(), conv, "nope", &groups), RXT_NOT_FOUND);
  EXPECT_EQ(Ir().attr_int(b(), conv, "data_layout", &groups), RXT_INVALID_ARGUMENT);
  EXPECT_EQ(Ir().attr_text(b(), conv, "nope"), nullptr);

  int keepdims = 1;
  EXPECT_EQ(Ir().attr_bool(b(), sum, "keepdims", &keepdims), RXT_OK);
  EXPECT_EQ(keepdims, 0);
  ASSERT_EQ(Ir().attr_ints(b(), sum, "axis", &strides, &count), RXT_OK);
  EXPECT_EQ(count, 2);
  EXPECT_EQ(strides[0], 2);

  double max = 0;
  EXPECT_EQ(Ir().attr_float(b(), clip, "max", &max), RXT_OK);
  EXPECT_EQ(max, 6.5);
  EXPECT_EQ(Ir().attr_float(b(), clip, "min", &max), RXT_OK);
  EXPECT_EQ(max, 0.0);

  // Not an op call: nothing to read.
  rxt_ir_expr_t var = host_.Wrap(x_);
  EXPECT_EQ(Ir().op_name(b(), var), nullptr);
  EXPECT_EQ(Ir().attr_int(b(), var, "groups", &groups), RXT_NOT_FOUND);
  EXPECT_FALSE(host_.failed());  // reading records no error
}

TEST_F(IRBuilderHostTest, UnsetOptionalAttributesReadAsNotFound) {
  rxt_ir_expr_t x = host_.Wrap(x_);
  rxt_ir_expr_t s = Ir().op(b(), "sum", &x, 1, nullptr);
  rxt_ir_expr_t call = host_.Wrap(builder_.EndBlock().bindings.back().value);
  builder_.BeginDataflowBlock();
  ASSERT_NE(s, nullptr);
  const int64_t* axes = nullptr;
  int count = 0;
  EXPECT_EQ(Ir().attr_ints(b(), call, "axis", &axes, &count), RXT_NOT_FOUND);
  EXPECT_STREQ(Ir().attr_text(b(), call, "axis"), "none");
}

TEST_F(IRBuilderHostTest, StructInfoQueries) {
  rxt_ir_expr_t x = host_.Wrap(x_), i = host_.Wrap(i_);
  EXPECT_EQ(Ir().is_tensor(b(), x), 1);
  EXPECT_EQ(Ir().ndim(b(), x), 2);
  EXPECT_STREQ(Ir().dtype(b(), i), "int64");
  int64_t value = -1;
  EXPECT_EQ(Ir().dim(b(), x, 0, &value), 0);  // symbolic
  EXPECT_EQ(Ir().dim(b(), x, 1, &value), 1);
  EXPECT_EQ(value, 4);
  EXPECT_EQ(Ir().dim(b(), x, 2, &value), 0);
  EXPECT_STREQ(Ir().dim_text(b(), x, 0), "n");
  EXPECT_STREQ(Ir().dim_text(b(), x, 1), "4");
  EXPECT_EQ(Ir().dim_text(b(), x, 5), nullptr);
  EXPECT_STREQ(Ir().struct_info_text(b(), x), "Tensor((n, 4), float32)");
  EXPECT_EQ(Ir().tuple_size(b(), x), -1);
  rxt_ir_expr_t fields[2] = {x, i};
  rxt_ir_expr_t t = Ir().tuple(b(), fields, 2);
  EXPECT_EQ(Ir().tuple_size(b(), t), 2);
  EXPECT_EQ(Ir().is_tensor(b(), t), 0);
}

TEST_F(IRBuilderHostTest, ConstantsShapesAndPrimValues) {
  rxt_ir_expr_t one = Ir().scalar(b(), 1.5, "float32");
  EXPECT_EQ(PrintExpr(Get(one)), "const(1.5, float32)");
  double values[] = {1, 2, 3, 4, 5, 6};
  int64_t shape[] = {2, 3};
  rxt_ir_expr_t c = Ir().constant(b(), values, shape, 2, "int64");
  EXPECT_EQ(PrintExpr(Get(c)), "const([[1, 2, 3], [4, 5, 6]], int64)");
  EXPECT_EQ(PrintExpr(Get(Ir().shape(b(), shape, 2))), "shape(2, 3)");
  rxt_ir_expr_t x = host_.Wrap(x_);
  EXPECT_EQ(PrintExpr(Get(Ir().shape_of(b(), x))), "shape(n, 4)");
  // The symbolic dim is the same variable as in %x's struct info.
  const auto* shape_expr = Get(Ir().shape_of(b(), x))->As<ShapeExprNode>();
  EXPECT_EQ(shape_expr->values[0], (*x_->struct_info->As<TensorSINode>()->shape)[0]);
  EXPECT_EQ(PrintExpr(Get(Ir().prim(b(), 3, "int64"))), "prim(3)");
  EXPECT_EQ(SInfo(Ir().prim(b(), 0.5, "float32")), "Prim(float32, value=0.5f32)");
  EXPECT_FALSE(host_.failed()) << host_.error();

  EXPECT_EQ(Ir().scalar(b(), 1, "float33"), nullptr);
  EXPECT_NE(host_.error().find("unknown dtype 'float33'"), std::string::npos);
  IRBuilderHost other(builder_);
  EXPECT_EQ(Ir().prim(other.handle(), 0.5, "int64"), nullptr);
  EXPECT_NE(other.error().find("not an integer"), std::string::npos);
  // Outside the dtype's range (or int64's: the cast would be undefined) is refused too.
  for (auto [value, dtype] : {std::pair{300.0, "uint8"}, {-1.0, "uint8"}, {1e30, "int64"}, {2147483648.0, "int32"}}) {
    IRBuilderHost host(builder_);
    EXPECT_EQ(Ir().prim(host.handle(), value, dtype), nullptr) << value << " " << dtype;
    EXPECT_NE(host.error().find("is not an integer of " + std::string(dtype)), std::string::npos) << host.error();
  }
  IRBuilderHost fits(builder_);
  EXPECT_NE(Ir().prim(fits.handle(), 255, "uint8"), nullptr) << fits.error();
}

// What kernel libraries' patterns read and build: constants' values, call_extern.
TEST_F(IRBuilderHostTest, ConstantValuesAndExternCalls) {
  double value = -1;
  EXPECT_EQ(Ir().constant_value(b(), Ir().scalar(b(), 0, "float32"), &value), 1);
  EXPECT_EQ(value, 0);
  int64_t one[] = {1, 1};
  double seven = 7;
  EXPECT_EQ(Ir().constant_value(b(), Ir().constant(b(), &seven, one, 2, "int32"), &value), 1);
  EXPECT_EQ(value, 7);
  double six[] = {1, 2, 3, 4, 5, 6};
  int64_t two_by_three[] = {2, 3};
  EXPECT_EQ(Ir().constant_value(b(), Ir().constant(b(), six, two_by_three, 2, "float32"), &value), 0);
  EXPECT_EQ(Ir().constant_value(b(), Ir().scalar(b(), 1, "bool"), &value), 0);
  EXPECT_EQ(Ir().constant_value(b(), host_.Wrap(x_), &value), 0);
  EXPECT_EQ(Ir().constant_value(b(), nullptr, &value), 0);

  rxt_ir_expr_t x = host_.Wrap(x_), i = host_.Wrap(i_);
  rxt_ir_expr_t args[2] = {x, Ir().prim(b(), 4, "int64")};
  rxt_ir_expr_t y = Ir().call_extern(b(), "lib.f", args, 2, &x, 1);
  ASSERT_NE(y, nullptr) << host_.error();
  EXPECT_EQ(PrintExpr(builder_.EndBlock().bindings.back().value),
            "call_extern(\"lib.f\", (%x, prim(4)), out_sinfo=Tensor((n, 4), float32))");
  builder_.BeginDataflowBlock();
  rxt_ir_expr_t outs[2] = {x, i};
  EXPECT_EQ(SInfo(Ir().call_extern(b(), "lib.g", &x, 1, outs, 2)), "Tuple(Tensor((n, 4), float32), Tensor((n,), int64))");
  EXPECT_FALSE(host_.failed()) << host_.error();

  IRBuilderHost no_name(builder_);
  rxt_ir_expr_t xn = no_name.Wrap(x_);
  EXPECT_EQ(Ir().call_extern(no_name.handle(), "", &xn, 1, &xn, 1), nullptr);
  EXPECT_EQ(no_name.error(), "call_extern: no function name");
  IRBuilderHost no_result(builder_);
  rxt_ir_expr_t xr = no_result.Wrap(x_);
  EXPECT_EQ(Ir().call_extern(no_result.handle(), "lib.f", &xr, 1, nullptr, 0), nullptr);
  EXPECT_EQ(no_result.error(), "call_extern 'lib.f': needs the struct info of a result");
  IRBuilderHost not_a_tensor(builder_);
  rxt_ir_expr_t shape = Ir().shape(not_a_tensor.handle(), two_by_three, 2);
  EXPECT_EQ(Ir().call_extern(not_a_tensor.handle(), "lib.f", &shape, 1, &shape, 1), nullptr);
  EXPECT_EQ(not_a_tensor.error(), "call_extern 'lib.f': result 0 must be like a tensor, got Shape((2, 3))");
}

TEST_F(IRBuilderHostTest, TuplesAndItems) {
  rxt_ir_expr_t x = host_.Wrap(x_), i = host_.Wrap(i_);
  rxt_ir_expr_t fields[2] = {x, i};
  rxt_ir_expr_t t = Ir().tuple(b(), fields, 2);
  EXPECT_EQ(Get(Ir().get_item(b(), t, 1)), i_);  // a literal's field: no binding
  EXPECT_EQ(Ir().get_item(b(), t, 2), nullptr);
  EXPECT_NE(host_.error().find("index 2 is out of range"), std::string::npos);

  IRBuilderHost other(builder_);
  rxt_ir_expr_t y = other.Wrap(x_);
  rxt_ir_expr_t dropout = Ir().op(other.handle(), "nn.dropout", &y, 1, "rate=0.25");
  rxt_ir_expr_t mask = Ir().get_item(other.handle(), dropout, 1);
  ASSERT_NE(mask, nullptr) << other.error();
  EXPECT_EQ(PrintExpr(builder_.EndBlock().bindings.back().value), "%lv[1]");
  builder_.BeginDataflowBlock();
}

TEST_F(IRBuilderHostTest, ParametersAndStatesOnlyWhereAllowed) {
  EXPECT_EQ(Ir().param(b(), "t", "Tensor((n,), int64)"), nullptr);
  EXPECT_NE(host_.error().find("may not declare parameters"), std::string::npos);
  IRBuilderHost other(builder_);
  EXPECT_EQ(Ir().state(other.handle(), "lr", "Tensor((), float32)", 0.1), nullptr);
  EXPECT_NE(other.error().find("only optimizers declare state"), std::string::npos);
}

TEST_F(IRBuilderHostTest, ParamsShareTheFunctionsSymbolicDims) {
  IRBuilderHost host(builder_, {.allow_params = true});
  host.AddSymbols(x_->struct_info);
  rxt_ir_expr_t t = Ir().param(host.handle(), "targets", "Tensor((n,), int64)");
  ASSERT_NE(t, nullptr) << host.error();
  ASSERT_EQ(host.params().size(), 1u);
  EXPECT_EQ(host.params()[0]->name, "targets");
  const PrimExpr& n = (*x_->struct_info->As<TensorSINode>()->shape)[0];
  EXPECT_EQ((*host.params()[0]->struct_info->As<TensorSINode>()->shape)[0], n);
  EXPECT_EQ(Ir().param(host.handle(), "targets", "Tensor((n,), int64)"), nullptr);
  EXPECT_NE(host.error().find("declared twice"), std::string::npos);
  // Any printable name is one (the text format quotes it: a model's own names stay).
  IRBuilderHost quoted(builder_, {.allow_params = true});
  EXPECT_NE(Ir().param(quoted.handle(), "trunk.block1-0 w", "Tensor((2,), int64)"), nullptr) << quoted.error();
  IRBuilderHost bad(builder_, {.allow_params = true});
  EXPECT_EQ(Ir().param(bad.handle(), "a\nb", "Tensor((2,), int64)"), nullptr);
  EXPECT_NE(bad.error().find("not a valid name"), std::string::npos);
  EXPECT_EQ(Ir().param(bad.handle(), "", "Tensor((2,), int64)"), nullptr);
  IRBuilderHost worse(builder_, {.allow_params = true});
  EXPECT_EQ(Ir().param(worse.handle(), "t", "Tensor((2,), int65)"), nullptr);
  EXPECT_NE(worse.error().find("struct info of param 't':1:"), std::string::npos) << worse.error();
}

TEST_F(IRBuilderHostTest, StatesAndTheirNextValues) {
  IRBuilderHost host(builder_, {.allow_states = true});
  rxt_ir_builder_t* hb = host.handle();
  rxt_ir_expr_t step = Ir().state(hb, "step", "Tensor((), int64)", 0);
  rxt_ir_expr_t lr = Ir().state(hb, "lr", "Tensor((), float32)", 0.01);
  ASSERT_NE(step, nullptr);
  rxt_ir_expr_t args[2] = {step, Ir().scalar(hb, 1, "int64")};
  EXPECT_EQ(Ir().set_state(hb, step, Ir().op(hb, "add", args, 2, nullptr)), RXT_OK);
  ASSERT_EQ(host.states().size(), 2u);
  EXPECT_EQ(host.states()[1].name, "lr");
  EXPECT_DOUBLE_EQ(host.states()[1].init, 0.01);
  EXPECT_NE(host.states()[0].next, nullptr);
  EXPECT_EQ(host.states()[1].next, nullptr);
  EXPECT_FALSE(host.failed()) << host.error();
  // A next value of another type, a value that is not a state, a duplicate.
  EXPECT_EQ(Ir().set_state(hb, lr, step), RXT_INVALID_ARGUMENT);
  EXPECT_NE(host.error().find("state 'lr' is Tensor((), float32) but its next value is Tensor((), int64)"),
            std::string::npos)
      << host.error();
  IRBuilderHost other(builder_, {.allow_states = true});
  rxt_ir_expr_t x = other.Wrap(x_);
  EXPECT_EQ(Ir().set_state(other.handle(), x, x), RXT_INVALID_ARGUMENT);
  EXPECT_NE(other.error().find("not a state"), std::string::npos);
  IRBuilderHost third(builder_, {.allow_states = true});
  Ir().state(third.handle(), "m", "Tensor((4,), float32)", 0);
  EXPECT_EQ(Ir().state(third.handle(), "m", "Tensor((4,), float32)", 0), nullptr);
  EXPECT_NE(third.error().find("declared twice"), std::string::npos);
}

TEST_F(IRBuilderHostTest, Options) {
  const char* options = "lr=0.001, betas=[0.9, 0.999], nesterov=true, steps=10, name=\"adam\"";
  double lr = 0;
  EXPECT_EQ(Ir().option_float(b(), options, "lr", &lr), RXT_OK);
  EXPECT_DOUBLE_EQ(lr, 0.001);
  EXPECT_EQ(Ir().option_float(b(), options, "steps", &lr), RXT_OK);  // an int reads as a float
  EXPECT_DOUBLE_EQ(lr, 10);
  int64_t steps = 0;
  EXPECT_EQ(Ir().option_int(b(), options, "steps", &steps), RXT_OK);
  EXPECT_EQ(steps, 10);
  int nesterov = 0;
  EXPECT_EQ(Ir().option_bool(b(), options, "nesterov", &nesterov), RXT_OK);
  EXPECT_EQ(nesterov, 1);
  const char* name = nullptr;
  EXPECT_EQ(Ir().option_string(b(), options, "name", &name), RXT_OK);
  EXPECT_STREQ(name, "adam");
  const double* betas = nullptr;
  int count = 0;
  ASSERT_EQ(Ir().option_floats(b(), options, "betas", &betas, &count), RXT_OK);
  ASSERT_EQ(count, 2);
  EXPECT_DOUBLE_EQ(betas[1], 0.999);
  ASSERT_EQ(Ir().option_floats(b(), options, "lr", &betas, &count), RXT_OK);
  EXPECT_EQ(count, 1);
  EXPECT_EQ(Ir().option_float(b(), options, "momentum", &lr), RXT_NOT_FOUND);
  EXPECT_EQ(Ir().option_float(b(), nullptr, "momentum", &lr), RXT_NOT_FOUND);
  const char* const known[] = {"lr", "betas", "nesterov", "steps", "name"};
  EXPECT_EQ(Ir().check_options(b(), options, known, 5), RXT_OK);
  EXPECT_FALSE(host_.failed()) << host_.error();

  EXPECT_EQ(Ir().option_int(b(), options, "lr", &steps), RXT_INVALID_ARGUMENT);
  EXPECT_EQ(host_.error(), "option 'lr' must be an int, got float");
  IRBuilderHost other(builder_);
  EXPECT_EQ(Ir().check_options(other.handle(), options, known, 2), RXT_INVALID_ARGUMENT);
  EXPECT_EQ(other.error(), "unknown option 'nesterov' (known: lr, betas)");
  IRBuilderHost third(builder_);
  EXPECT_EQ(Ir().option_float(third.handle(), "lr=", "lr", &lr), RXT_INVALID_ARGUMENT);
  EXPECT_NE(third.error().find("options:1:4: error: expected an attribute value"), std::string::npos)
      << third.error();
}

// ---- The C++ conveniences with the C fixtures.

class IRGeneratorsTest : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    host_ = new PluginHost();
    for (const char* name : {"test_grad_rules", "test_grad_rules_v1", "test_ir_generators"}) {
      host_->Load(std::string(RXT_TEST_IR_PLUGIN_DIR) + "/" + name + ".so");
    }
  }
  static void TearDownTestSuite() {
    delete host_;
    host_ = nullptr;
  }
  static PluginItem Item(PluginItemKind kind, const std::string& name) {
    std::optional<PluginItem> item = host_->Find(kind, name);
    EXPECT_TRUE(item.has_value()) << name;
    return item.value_or(PluginItem{});
  }
  static PluginHost* host_;
};
PluginHost* IRGeneratorsTest::host_ = nullptr;

/// A call `op(args)` bound in |builder| (normalized), for handing to a rule.
Expr BoundCall(BlockBuilder& builder, const std::string& op, std::vector<Expr> args, Var* output) {
  Expr call = builder.Normalize(MakeOpCall(op, std::move(args)));
  *output = builder.Emit(call, "z");
  return call;
}

TEST_F(IRGeneratorsTest, ItemsKnowTheirAbiVersion) {
  EXPECT_EQ(Item(PluginItemKind::kGradient, "multiply").abi_version, uint32_t{RXT_PLUGIN_ABI_VERSION});
  EXPECT_EQ(Item(PluginItemKind::kGradient, "exp").abi_version, 1u);
  EXPECT_EQ(DescribeItem(Item(PluginItemKind::kGradient, "multiply")), "gradient rule 'multiply' (plugin test_grad_rules)");
  EXPECT_EQ(DescribeItem(Item(PluginItemKind::kLoss, "test_sse")), "loss 'test_sse' (plugin test_ir_generators)");
}

TEST_F(IRGeneratorsTest, CallsAGradientRule) {
  Var a = MakeVar("a", TensorSI(std::vector<int64_t>{2, 3}, DType::kFloat32));
  Var c = MakeVar("c", TensorSI(std::vector<int64_t>{3}, DType::kFloat32));
  BlockBuilder builder;
  builder.BeginDataflowBlock();
  Var z;
  Expr call = BoundCall(builder, "multiply", {a, c}, &z);
  Var dz = builder.Emit(MakeOpCall("ones_like", {z}), "dz");
  std::vector<Expr> grads = CallGradientRule(Item(PluginItemKind::kGradient, "multiply"), builder, call, z, dz);
  ASSERT_EQ(grads.size(), 2u);
  EXPECT_EQ(ToString(GetStructInfo(grads[0])), "Tensor((2, 3), float32)");
  EXPECT_EQ(ToString(GetStructInfo(grads[1])), "Tensor((3,), float32)");  // collapsed from the broadcast
  BindingBlock block = builder.EndBlock();
  EXPECT_EQ(PrintExpr(block.bindings.back().value), "collapse_sum_to(%lv, shape(3))");
}

TEST_F(IRGeneratorsTest, RuleErrorsNameTheRuleAndItsPlugin) {
  Var a = MakeVar("a", TensorSI(std::vector<int64_t>{2, 3}, DType::kFloat32));
  BlockBuilder builder;
  builder.BeginDataflowBlock();
  Var z;
  Expr call = BoundCall(builder, "sigmoid", {a}, &z);
  try {
    CallGradientRule(Item(PluginItemKind::kGradient, "sigmoid"), builder, call, z, z);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "gradient rule 'sigmoid' (plugin test_grad_rules): the fixture's sigmoid rule always fails");
  }
  call = BoundCall(builder, "negative", {a}, &z);
  try {
    CallGradientRule(Item(PluginItemKind::kGradient, "negative"), builder, call, z, z);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "gradient rule 'negative' (plugin test_grad_rules): the adjoint of argument 0 (%a: Tensor((2, 3), "
              "float32)) is Tensor((), float32)");
  }
  call = BoundCall(builder, "exp", {a}, &z);
  try {
    CallGradientRule(Item(PluginItemKind::kGradient, "exp"), builder, call, z, z);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kFailedPrecondition);
    EXPECT_NE(std::string(e.what()).find("gradient rule 'exp' (plugin test_grad_rules_v1) comes from a plugin of ABI "
                                         "version 1"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(IRGeneratorsTest, BuildsALossFunction) {
  std::map<std::string, PrimVar> symbols;
  StructInfo prediction = ParseStructInfo("Tensor((n, 10), float32)", &symbols);
  IRModule m;
  m.Add("loss", BuildLossFunction(Item(PluginItemKind::kLoss, "test_sse"), "scale=0.5", prediction));
  IRModule expected = ParseModule(R"(
def @loss(%predictions: Tensor((n, 10), float32), %targets: Tensor((n, 10), float32)) -> Tensor((), float32) {
  dataflow {
    %lv: Tensor((n, 10), float32) = subtract(%predictions, %targets)
    %lv1: Tensor((n, 10), float32) = multiply(%lv, %lv)
    %lv2: Tensor((), float32) = sum(%lv1)
    %loss: Tensor((), float32) = multiply(%lv2, const(0.5, float32))
    output %loss
  }
  return %loss
})");
  EXPECT_TRUE(StructuralEqual(m, expected)) << PrintModule(m);
  try {
    BuildLossFunction(Item(PluginItemKind::kLoss, "test_sse"), "scale=0.5, reduction=\"sum\"", prediction);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "loss 'test_sse' (plugin test_ir_generators): unknown option 'reduction' (known: scale)");
  }
}

TEST_F(IRGeneratorsTest, BuildsAnOptimizerFunction) {
  std::vector<StructInfo> params = {TensorSI(std::vector<int64_t>{4, 2}, DType::kFloat32),
                                    TensorSI(std::vector<int64_t>{2}, DType::kFloat64)};
  OptimizerFunction opt = BuildOptimizerFunction(Item(PluginItemKind::kOptimizer, "test_sgd"), "lr=0.25", params);
  ASSERT_EQ(opt.states.size(), 2u);
  EXPECT_EQ(opt.states[0].name, "lr");
  EXPECT_DOUBLE_EQ(opt.states[0].init, 0.25);
  EXPECT_EQ(ToString(opt.states[1].sinfo), "Tensor((), int64)");
  IRModule m;
  m.Add("optimizer", opt.function);
  IRModule expected = ParseModule(R"(
def @optimizer(%params: Tuple(Tensor((4, 2), float32), Tensor((2,), float64)),
               %gradients: Tuple(Tensor((4, 2), float32), Tensor((2,), float64)),
               %optim_states: Tuple(Tensor((), float32), Tensor((), int64)))
    -> Tuple(Tuple(Tensor((4, 2), float32), Tensor((2,), float64)), Tuple(Tensor((), float32), Tensor((), int64))) {
  dataflow {
    %lr: Tensor((), float32) = %optim_states[0]
    %step: Tensor((), int64) = %optim_states[1]
    %param: Tensor((4, 2), float32) = %params[0]
    %grad: Tensor((4, 2), float32) = %gradients[0]
    %param1: Tensor((2,), float64) = %params[1]
    %grad1: Tensor((2,), float64) = %gradients[1]
    %lv: Tensor((), int64) = add(%step, const(1, int64))
    %lv1: Tensor((), float32) = astype(%lr, dtype=float32)
    %lv2: Tensor((4, 2), float32) = multiply(%lv1, %grad)
    %lv3: Tensor((4, 2), float32) = subtract(%param, %lv2)
    %lv4: Tensor((), float64) = astype(%lr, dtype=float64)
    %lv5: Tensor((2,), float64) = multiply(%lv4, %grad1)
    %lv6: Tensor((2,), float64) = subtract(%param1, %lv5)
    %result = ((%lv3, %lv6), (%lr, %lv))
    output %result
  }
  return %result
})");
  EXPECT_TRUE(StructuralEqual(m, expected)) << PrintModule(m);
  try {
    BuildOptimizerFunction(Item(PluginItemKind::kOptimizer, "test_sgd"), "lr=\"fast\"", params);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "optimizer 'test_sgd' (plugin test_ir_generators): option 'lr' must be a float, got string");
  }
}

// set_struct_info: only an op plugin's inference sets one, a tensor or tuple of tensors whose
// symbolic dims are the arguments' (AddSymbols); there, building IR fails.
TEST_F(IRBuilderHostTest, SetStructInfoBelongsToInferenceOnly) {
  EXPECT_TRUE(RXT_IR_API_HAS(&Ir(), set_struct_info));
  EXPECT_EQ(Ir().set_struct_info(b(), "Tensor((2,), float32)"), RXT_INVALID_ARGUMENT);
  EXPECT_NE(Str(Ir().error(b())).find("only struct info inference sets one"), std::string::npos) << Str(Ir().error(b()));

  BlockBuilder scratch;
  IRBuilderHost infer(scratch, {.infer = true});
  infer.AddSymbols(x_->struct_info);
  EXPECT_EQ(Ir().set_struct_info(infer.handle(), "Tensor((n, 8), float32)"), RXT_OK) << Str(Ir().error(infer.handle()));
  const auto* t = infer.inferred()->As<TensorSINode>();
  ASSERT_NE(t, nullptr);
  // The same n as the argument's, not a new variable of the same name.
  EXPECT_EQ((*t->shape)[0], (*x_->struct_info->As<TensorSINode>()->shape)[0]);

  IRBuilderHost object(scratch, {.infer = true});
  EXPECT_EQ(Ir().set_struct_info(object.handle(), "Object"), RXT_INVALID_ARGUMENT);
  EXPECT_NE(object.error().find("an op returns a tensor or a tuple of tensors"), std::string::npos) << object.error();
  IRBuilderHost garbage(scratch, {.infer = true});
  EXPECT_EQ(Ir().set_struct_info(garbage.handle(), "Tensor((2,"), RXT_INVALID_ARGUMENT);
  EXPECT_NE(garbage.error().find("the inferred struct info"), std::string::npos) << garbage.error();

  IRBuilderHost builds(scratch, {.infer = true});
  rxt_ir_expr_t x = builds.Wrap(x_);
  EXPECT_EQ(Ir().op(builds.handle(), "exp", &x, 1, nullptr), nullptr);
  EXPECT_NE(builds.error().find("cannot build it"), std::string::npos) << builds.error();
}

}  // namespace
}  // namespace rxt
