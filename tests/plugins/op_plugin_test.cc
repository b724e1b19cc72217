// Ops defined by plugins (rxt_op_t): the example plugin (examples/plugins/ops) defines
// example.softplus and example.leaky_relu — their schema, inference, kernels on two backends
// against the formulas, gradients against finite differences — and linked plugins check every
// way an op or its kernel description can be wrong.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "rxt/exec/gradient_check.h"
#include "rxt/exec/session.h"
#include "rxt/ir/op.h"
#include "rxt/ir/parser.h"
#include "rxt/plugin/plugin_host.h"
#include "rxt/runtime/vm.h"

namespace rxt {
namespace {

const std::string kExampleOps = std::string(RXT_TEST_PLUGIN_DIR) + "/ops/example_ops.so";
const std::string kExamples = std::string(RXT_SOURCE_DIR) + "/examples/plugins/ops";
const std::string kStandard = RXT_STANDARD_PLUGIN_DIR;

/// The example ops, the two backends and the standard gradient rules (for the ops around them).
SessionOptions WithExampleOps() {
  return {.plugins = {kExampleOps, kStandard + "/rxt_backend_reference.so", kStandard + "/rxt_backend_cpu.so",
                      kStandard + "/rxt_grad_std.so"},
          .search_path = false};
}

/// The message of what |fn| throws ("" if nothing).
template <typename Fn>
std::string ErrorOf(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(ExampleOps, AreOpsWithTheirSchemaAndTheirPlugin) {
  PluginHost host;
  PluginInfo info = host.Load(kExampleOps);
  EXPECT_EQ(info.items[static_cast<size_t>(PluginItemKind::kOp)],
            (std::vector<std::string>{"example.softplus", "example.leaky_relu"}));
  const OpDef& softplus = OpRegistry::Global().Get("example.softplus");
  ASSERT_EQ(softplus.inputs().size(), 1u);
  EXPECT_EQ(softplus.inputs()[0].name, "x");
  const AttrSpec* beta = softplus.FindAttr("beta");
  ASSERT_NE(beta, nullptr);
  EXPECT_EQ(beta->kind, AttrKind::kFloat);
  EXPECT_EQ(beta->default_value.get<double>(), 1.0);
  ASSERT_NE(softplus.Get<FPluginOp>(), nullptr);
  EXPECT_EQ(softplus.Get<FPluginOp>()->plugin, "example_ops");
  // Its gradient rule is the op's attribute, owned by this host.
  ASSERT_TRUE(softplus.GetOwned<FGradient>(host.gradient_owner()).has_value());
}

TEST(ExampleOps, InferTheirStructInfoAndReportBadCallsWhereTheyAre) {
  PluginHost host;
  host.Load(kExampleOps);
  IRModule ok = ParseModule(
      "def @f(%x: Tensor((n, 3), float32)) -> Tensor((n, 3), float32) {\n"
      "  %y = example.softplus(%x, beta=2.0)\n"
      "  %z = example.leaky_relu(%y)\n"
      "  return %z\n"
      "}\n",
      "ok.rxt");
  EXPECT_EQ(ToString(GetStructInfo(ok.GetFunction("f")->body->body)), "Tensor((n, 3), float32)");

  auto parse = [](const std::string& call) {
    return ErrorOf([&] {
      ParseModule("def @f(%x: Tensor((2, 3), float32), %i: Tensor((2,), int64)) -> Object {\n  %y = " + call +
                      "\n  return %y\n}\n",
                  "bad.rxt");
    });
  };
  std::string int_input = parse("example.softplus(%i)");
  EXPECT_TRUE(Contains(int_input, "bad.rxt:2:")) << int_input;
  EXPECT_TRUE(Contains(int_input, "example.softplus: x must be float32 or float64, got 'int64'")) << int_input;
  EXPECT_TRUE(Contains(parse("example.softplus(%x, %x)"), "example.softplus: expects 1 argument(s) (x), got 2"));
  EXPECT_TRUE(Contains(parse("example.softplus(%x, alpha=1.0)"), "example.softplus has no attribute 'alpha'"));
  EXPECT_TRUE(Contains(parse("example.softplus(%x, beta=0.0)"), "beta must be positive"));
  EXPECT_TRUE(Contains(parse("example.leaky_relu(%x, negative_slope=\"a\")"), "must be float"));
}

/// Runs @f of |text| on |x| for |backend|, with the example ops loaded into |host|.
Tensor RunF(const std::string& text, const std::string& backend, const Tensor& x) {
  PluginHost host;
  Session session(WithExampleOps(), host);
  Executable exec = session.Build(ParseModule(text, "run.rxt"), {.backend = backend});
  std::unique_ptr<KernelProvider> kernels = session.KernelsFor(exec);
  VirtualMachine vm(std::move(exec), *kernels);
  return vm.Invoke("f", {Value(x)}).tensor();
}

TEST(ExampleOps, RunTheirKernelsOnEveryBackendAsTheFormulasSay) {
  const std::string softplus_text =
      "def @f(%x: Tensor((n, 7), float32)) -> Tensor((n, 7), float32) {\n"
      "  %s = example.softplus(%x, beta=1.5)\n  return %s\n}\n";
  const std::string leaky_text =
      "def @f(%x: Tensor((n, 7), float32)) -> Tensor((n, 7), float32) {\n"
      "  %l = example.leaky_relu(%x, negative_slope=0.25)\n  return %l\n}\n";
  Tensor x = Tensor::Empty({3, 7}, DType::kFloat32);
  for (int64_t i = 0; i < x.numel(); ++i) x.data_as<float>()[i] = static_cast<float>(i - 10) * 3.7f;  // -37 .. 40
  for (const std::string backend : {"reference", "cpu"}) {
    SCOPED_TRACE(backend);
    Tensor softplus = RunF(softplus_text, backend, x), leaky = RunF(leaky_text, backend, x);
    for (int64_t i = 0; i < x.numel(); ++i) {
      double v = x.data_as<float>()[i];
      double expected = std::log1p(std::exp(1.5 * v)) / 1.5;
      EXPECT_NEAR(softplus.data_as<float>()[i], expected, 1e-5 * (1 + std::abs(expected))) << "x = " << v;
      EXPECT_FLOAT_EQ(leaky.data_as<float>()[i], static_cast<float>(v > 0 ? v : 0.25 * v)) << "x = " << v;
    }
  }
}

// The conformance check of the example's gradient rules: every function of its gradcheck.rxt,
// as `rxt gradcheck examples/plugins/ops/gradcheck.rxt --dim n=3 --plugin example_ops.so` does.
TEST(ExampleOps, GradientsMatchFiniteDifferences) {
  PluginHost host;
  Session session(WithExampleOps(), host);
  std::ifstream file(kExamples + "/gradcheck.rxt");
  std::stringstream text;
  text << file.rdbuf();
  IRModule cases = ParseModule(text.str(), "gradcheck.rxt");
  int checked = 0;
  for (const IRModule::Entry& entry : cases.entries()) {
    GradientCheckResult r = CheckGradient(cases, entry.name, {.dims = {{"n", 3}}}, session);
    EXPECT_TRUE(r.passed()) << entry.name << ":\n" << r.failures;
    EXPECT_GE(r.checks, 6) << entry.name;
    ++checked;
  }
  EXPECT_EQ(checked, 4);
}

TEST(ExampleOps, LoadingThePluginAgainFromAnotherHostReusesItsOps) {
  PluginHost first, second;
  first.Load(kExampleOps);
  const OpDef* op = OpRegistry::Global().Find("example.leaky_relu");
  second.Load(kExampleOps);
  EXPECT_EQ(OpRegistry::Global().Find("example.leaky_relu"), op);
  EXPECT_TRUE(op->GetOwned<FGradient>(second.gradient_owner()).has_value());
}

// ---- Linked plugins: what an op plugin can get wrong.

rxt_status_t InferLikeX(void*, const rxt_ir_api_t* ir, rxt_ir_builder_t* b, rxt_ir_expr_t call) {
  ir->set_struct_info(b, ir->struct_info_text(b, ir->arg(b, call, 0)));
  return nullptr;
}
rxt_status_t InferNothing(void*, const rxt_ir_api_t*, rxt_ir_builder_t*, rxt_ir_expr_t) { return nullptr; }
rxt_status_t InferByBuilding(void*, const rxt_ir_api_t* ir, rxt_ir_builder_t* b, rxt_ir_expr_t call) {
  rxt_ir_expr_t x = ir->arg(b, call, 0);
  ir->op(b, "exp", &x, 1, nullptr);  // building is not allowed here: recorded, reported
  return nullptr;
}

/// y = copy of x, through the TE table; |mistake| picks what goes wrong.
rxt_status_t LegalizeWith(int mistake, const rxt_te_api_t* te, rxt_te_builder_t* kb) {
  rxt_te_tensor_t x = te->input(kb, mistake == 1 ? 5 : 0);  // 1: an argument that does not exist
  int n = te->ndim(kb, x);
  if (n < 0) return nullptr;
  rxt_te_expr_t shape[RXT_TE_MAX_NDIM], i[RXT_TE_MAX_NDIM], other[RXT_TE_MAX_NDIM];
  for (int d = 0; d < n; ++d) shape[d] = te->dim(kb, x, d);
  te->axes(kb, n, i);
  te->axes(kb, n, other);
  rxt_te_expr_t v = te->load(kb, x, mistake == 2 ? other : i, n);  // 2: another stage's axes
  if (mistake == 3) v = te->binary(kb, RXT_TE_ADD, v, te->constant(kb, 1, "float64"));  // 3: mixed dtypes
  if (mistake == 4) v = te->call(kb, "lgamma", v);                                     // 4: unknown intrinsic
  rxt_te_tensor_t y = te->compute(kb, "y", shape, n, i, v);
  if (mistake != 5) te->output(kb, y);  // 5: no output
  if (mistake == 6) te->output(kb, y);  // 6: two outputs for one result
  return nullptr;
}
template <int kMistake>
rxt_status_t Legalize(void*, const rxt_te_api_t* te, rxt_te_builder_t* kb, const rxt_ir_api_t*, rxt_ir_builder_t*,
                      rxt_ir_expr_t) {
  return LegalizeWith(kMistake, te, kb);
}

const char* const kX[] = {"x"};
const rxt_op_attr_t kBadDefault[] = {{"alpha", RXT_ATTR_FLOAT, "fast", nullptr}};
const rxt_op_attr_t kBadKind[] = {{"alpha", static_cast<rxt_attr_kind_t>(99), "1", nullptr}};

/// A linked plugin named |plugin| with the one op |op|.
PluginInfo LoadOp(PluginHost& host, const std::string& plugin, const rxt_op_t& op) {
  static std::vector<std::unique_ptr<rxt_plugin_descriptor_t>> descriptors;
  static std::vector<std::unique_ptr<const rxt_op_t*>> lists;
  static std::vector<std::unique_ptr<std::string>> names;
  static thread_local const rxt_plugin_descriptor_t* current = nullptr;
  names.push_back(std::make_unique<std::string>(plugin));
  lists.push_back(std::make_unique<const rxt_op_t*>(&op));
  descriptors.push_back(std::make_unique<rxt_plugin_descriptor_t>(rxt_plugin_descriptor_t{
      sizeof(rxt_plugin_descriptor_t), RXT_PLUGIN_ABI_VERSION, names.back()->c_str(), "1.0", nullptr, nullptr, 0,
      nullptr, 0, nullptr, 0, nullptr, 0, nullptr, 0, lists.back().get(), 1}));
  current = descriptors.back().get();
  return host.LoadLinked(plugin, [](uint32_t, const rxt_host_api_t*) { return current; });
}

TEST(OpPlugins, AMalformedOpOrATakenNameIsRefusedAtLoad) {
  struct Case {
    rxt_op_t op;
    const char* expected;
  };
  const Case cases[] = {
      {{sizeof(rxt_op_t), "nn.relu", "", nullptr, kX, 1, nullptr, 0, InferLikeX, Legalize<0>},
       "op 'nn.relu' is already defined by the core"},
      {{sizeof(rxt_op_t), "bad name", "", nullptr, kX, 1, nullptr, 0, InferLikeX, Legalize<0>},
       "op 'bad name' is not a name the text format reads"},
      {{sizeof(rxt_op_t), "t.no_legalize", "", nullptr, kX, 1, nullptr, 0, InferLikeX, nullptr},
       "registers op 't.no_legalize' without legalize"},
      {{sizeof(rxt_op_t), "t.bad_default", "", nullptr, kX, 1, kBadDefault, 1, InferLikeX, Legalize<0>},
       "the default of attribute 'alpha'"},
      {{sizeof(rxt_op_t), "t.bad_kind", "", nullptr, kX, 1, kBadKind, 1, InferLikeX, Legalize<0>},
       "attribute 'alpha' has an unknown kind 99"},
      {{sizeof(rxt_op_t), "t.no_inputs", "", nullptr, nullptr, 2, nullptr, 0, InferLikeX, Legalize<0>},
       "lists 2 input(s) but no array"},
      {{16, "t.small", "", nullptr, kX, 1, nullptr, 0, InferLikeX, Legalize<0>}, "whose struct_size (16) is too small"},
  };
  int index = 0;
  for (const Case& c : cases) {
    PluginHost host;
    std::string error = ErrorOf([&] { LoadOp(host, "bad_op_" + std::to_string(index++), c.op); });
    EXPECT_TRUE(Contains(error, c.expected)) << error;
    EXPECT_TRUE(host.Plugins().empty());
  }
  // Another plugin's op of the same name.
  PluginHost example, other;
  example.Load(kExampleOps);
  static const rxt_op_t kClash = {sizeof(rxt_op_t), "example.softplus", "", nullptr, kX, 1, nullptr, 0, InferLikeX,
                                  Legalize<0>};
  std::string clash = ErrorOf([&] { LoadOp(other, "clashing", kClash); });
  EXPECT_TRUE(Contains(clash, "op 'example.softplus' is already defined by plugin 'example_ops'")) << clash;
}

TEST(OpPlugins, AnInferenceThatSetsNothingOrBuildsIsAnErrorOfTheCall) {
  static const rxt_op_t kSilent = {sizeof(rxt_op_t), "t.silent", "", nullptr, kX, 1, nullptr, 0, InferNothing,
                                   Legalize<0>};
  static const rxt_op_t kBuilder = {sizeof(rxt_op_t), "t.builder", "", nullptr, kX, 1, nullptr, 0, InferByBuilding,
                                    Legalize<0>};
  PluginHost host;
  LoadOp(host, "silent", kSilent);
  LoadOp(host, "builder", kBuilder);
  auto parse = [](const std::string& op) {
    return ErrorOf([&] { ParseModule("def @f(%x: Tensor((2,), float32)) -> Object {\n  %y = " + op + "(%x)\n  return %y\n}\n"); });
  };
  EXPECT_TRUE(Contains(parse("t.silent"), "t.silent: plugin 'silent' inferred no struct info")) << parse("t.silent");
  EXPECT_TRUE(Contains(parse("t.builder"), "cannot build it")) << parse("t.builder");
}

TEST(OpPlugins, AKernelDescriptionThatDoesNotFitIsAnErrorNamingTheOpAndThePlugin) {
  static const rxt_op_t kOps[] = {
      {sizeof(rxt_op_t), "t.copy0", "", nullptr, kX, 1, nullptr, 0, InferLikeX, Legalize<0>},
      {sizeof(rxt_op_t), "t.copy1", "", nullptr, kX, 1, nullptr, 0, InferLikeX, Legalize<1>},
      {sizeof(rxt_op_t), "t.copy2", "", nullptr, kX, 1, nullptr, 0, InferLikeX, Legalize<2>},
      {sizeof(rxt_op_t), "t.copy3", "", nullptr, kX, 1, nullptr, 0, InferLikeX, Legalize<3>},
      {sizeof(rxt_op_t), "t.copy4", "", nullptr, kX, 1, nullptr, 0, InferLikeX, Legalize<4>},
      {sizeof(rxt_op_t), "t.copy5", "", nullptr, kX, 1, nullptr, 0, InferLikeX, Legalize<5>},
      {sizeof(rxt_op_t), "t.copy6", "", nullptr, kX, 1, nullptr, 0, InferLikeX, Legalize<6>},
  };
  const char* expected[] = {"",
                            "argument 5 does not exist: the call has 1",
                            "the value uses an axis that is not one of this stage's",
                            "have different dtypes: float32 and float64",
                            "unknown intrinsic 'lgamma'",
                            "the kernel has 0 output(s) (output()), the call's result 1",
                            "the kernel has 2 output(s)"};
  PluginHost host;
  for (int k = 0; k < 7; ++k) {
    std::string op = "t.copy" + std::to_string(k);
    LoadOp(host, "copy" + std::to_string(k), kOps[k]);
    Tensor x = Tensor::Empty({2, 3}, DType::kFloat32);
    for (int64_t i = 0; i < 6; ++i) x.data_as<float>()[i] = static_cast<float>(i);
    const std::string text = "def @f(%x: Tensor((2, 3), float32)) -> Tensor((2, 3), float32) {\n  %y = " + op +
                             "(%x)\n  return %y\n}\n";
    std::string error = ErrorOf([&] {
      Tensor y = RunF(text, "reference", x);
      for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(y.data_as<float>()[i], static_cast<float>(i));
    });
    if (k == 0) {
      EXPECT_EQ(error, "");
    } else {
      EXPECT_TRUE(Contains(error, op + " (plugin 'copy" + std::to_string(k) + "'): legalize: ")) << error;
      EXPECT_TRUE(Contains(error, expected[k])) << error;
    }
  }
}

/// y[i] = the reduction of row i of a 2-D x by rxt_te_reduce_t |kKind| (passed as any int, as a
/// C plugin may).
template <int kKind>
rxt_status_t LegalizeRows(void*, const rxt_te_api_t* te, rxt_te_builder_t* kb, const rxt_ir_api_t*,
                          rxt_ir_builder_t*, rxt_ir_expr_t) {
  rxt_te_tensor_t x = te->input(kb, 0);
  rxt_te_expr_t shape[1] = {te->dim(kb, x, 0)}, extents[1] = {te->dim(kb, x, 1)}, i[1], k[1];
  te->axes(kb, 1, i);
  te->axes(kb, 1, k);
  rxt_te_expr_t index[2] = {i[0], k[0]};
  rxt_te_reduce_t kind;
  int raw = kKind;
  static_assert(sizeof kind == sizeof raw);
  std::memcpy(&kind, &raw, sizeof kind);
  te->output(kb, te->reduce(kb, "rows", shape, 1, i, extents, 1, k, kind, te->load(kb, x, index, 2), nullptr));
  return nullptr;
}
rxt_status_t InferRows(void*, const rxt_ir_api_t* ir, rxt_ir_builder_t* b, rxt_ir_expr_t) {
  ir->set_struct_info(b, "Tensor((2,), float32)");
  return nullptr;
}

TEST(OpPlugins, ReductionsOfEveryKindAndNoOther) {
  static const rxt_op_t kOps[] = {
      {sizeof(rxt_op_t), "t.rows0", "", nullptr, kX, 1, nullptr, 0, InferRows, LegalizeRows<RXT_TE_REDUCE_SUM>},
      {sizeof(rxt_op_t), "t.rows1", "", nullptr, kX, 1, nullptr, 0, InferRows, LegalizeRows<RXT_TE_REDUCE_MAX>},
      {sizeof(rxt_op_t), "t.rows2", "", nullptr, kX, 1, nullptr, 0, InferRows, LegalizeRows<RXT_TE_REDUCE_MIN>},
      {sizeof(rxt_op_t), "t.rows3", "", nullptr, kX, 1, nullptr, 0, InferRows, LegalizeRows<RXT_TE_REDUCE_PROD>},
      {sizeof(rxt_op_t), "t.rows4", "", nullptr, kX, 1, nullptr, 0, InferRows, LegalizeRows<4>},
  };
  const float expected[5][2] = {{6, 3.5f}, {3, 4}, {1, -1}, {6, -2}, {0, 0}};  // the last is refused
  PluginHost host;
  Tensor x = Tensor::Empty({2, 3}, DType::kFloat32);
  const float values[] = {1, 2, 3, -1, 0.5f, 4};
  std::memcpy(x.data_as<float>(), values, sizeof values);
  for (int k = 0; k < 5; ++k) {
    std::string op = "t.rows" + std::to_string(k);
    SCOPED_TRACE(op);
    LoadOp(host, "rows" + std::to_string(k), kOps[k]);
    const std::string text =
        "def @f(%x: Tensor((2, 3), float32)) -> Tensor((2,), float32) {\n  %y = " + op + "(%x)\n  return %y\n}\n";
    std::string error = ErrorOf([&] {
      Tensor y = RunF(text, "reference", x);
      for (int i = 0; i < 2; ++i) EXPECT_EQ(y.data_as<float>()[i], expected[k][i]) << i;
    });
    if (k < 4) {
      EXPECT_EQ(error, "");
    } else {
      EXPECT_TRUE(Contains(error, "unknown reduction 4")) << error;
    }
  }
}

// A rule that is wrong (d(2x)/dx taken as 1) fails the check, naming the parameter and both values.
rxt_status_t LegalizeDouble(void*, const rxt_te_api_t* te, rxt_te_builder_t* kb, const rxt_ir_api_t*,
                            rxt_ir_builder_t*, rxt_ir_expr_t) {
  rxt_te_tensor_t x = te->input(kb, 0);
  rxt_te_expr_t shape[1] = {te->dim(kb, x, 0)}, i[1];
  te->axes(kb, 1, i);
  rxt_te_expr_t v = te->load(kb, x, i, 1);
  te->output(kb, te->compute(kb, "double", shape, 1, i, te->binary(kb, RXT_TE_ADD, v, v)));
  return nullptr;
}
rxt_status_t WrongDoubleGrad(void*, const rxt_ir_api_t*, rxt_ir_builder_t*, rxt_ir_expr_t, rxt_ir_expr_t,
                             rxt_ir_expr_t dy, rxt_ir_expr_t* grads) {
  grads[0] = dy;
  return nullptr;
}

TEST(OpPlugins, TheGradientCheckCatchesAWrongRule) {
  static const rxt_op_t kDouble = {sizeof(rxt_op_t), "t.double", "2x", nullptr, kX, 1, nullptr, 0, InferLikeX,
                                   LegalizeDouble};
  static const rxt_gradient_rule_t kWrong = {sizeof(rxt_gradient_rule_t), "t.double", "wrong", nullptr,
                                             WrongDoubleGrad};
  static const rxt_op_t* const kOps[] = {&kDouble};
  static const rxt_gradient_rule_t* const kRules[] = {&kWrong};
  static const rxt_plugin_descriptor_t kPlugin = {sizeof(rxt_plugin_descriptor_t), RXT_PLUGIN_ABI_VERSION,
                                                  "wrong_rule", "1.0", nullptr, nullptr, 0, nullptr, 0, kRules, 1,
                                                  nullptr, 0, nullptr, 0, kOps, 1, nullptr, 0};
  PluginHost host;
  host.LoadLinked("wrong_rule", [](uint32_t, const rxt_host_api_t*) { return &kPlugin; });
  Session session(WithExampleOps(), host);
  IRModule module = ParseModule(
      "def @f(%x: Tensor((3,), float64)) -> Tensor((3,), float64) {\n  %r = t.double(%x)\n  return %r\n}\n");
  GradientCheckResult r = CheckGradient(module, "f", {}, session);
  EXPECT_FALSE(r.passed());
  EXPECT_EQ(r.checks, 3);
  EXPECT_TRUE(Contains(r.failures, "d/d %x[0]: gradient ")) << r.failures;
  EXPECT_TRUE(Contains(r.failures, "finite differences ")) << r.failures;
  // A symbolic dim without a value is an error naming it.
  IRModule symbolic = ParseModule(
      "def @f(%x: Tensor((n,), float64)) -> Tensor((n,), float64) {\n  %r = t.double(%x)\n  return %r\n}\n");
  EXPECT_TRUE(Contains(ErrorOf([&] { CheckGradient(symbolic, "f", {}, session); }),
                       "no value for the symbolic dim 'n'"));
}

}  // namespace
}  // namespace rxt
