// The kernels of every legalized op, compiled by the CPU backend, against the reference
// interpreter: a one-op function is built (LegalizeOps, and also the fusion pipeline), run by
// the VM on both backends with the same random inputs, and every result compared bit for bit
// (NaN equals NaN). Symbolic dims, broadcasting, float16/bfloat16 and integer dtypes included.
#include <random>
#include <set>

#include "cpu_kernel_provider.h"
#include "rxt/exec/build.h"
#include "rxt/ir/parser.h"
#include "rxt/ir/op.h"
#include "rxt/runtime/vm.h"
#include "rxt/transform/legalize/legalize.h"
#include "rxt/transform/passes.h"
#include "test_util/reference_provider.h"

namespace rxt::backend_cpu::testing {
namespace {

/// One argument: a tensor of random values in [lo, hi] (integers: whole numbers), or a
/// scalar (Prim) value lo.
struct Input {
  std::vector<int64_t> shape;
  DType dtype = DType::kFloat32;
  double lo = -2, hi = 2;
  bool scalar = false;
};

struct OpCase {
  std::string family;   // the test that runs it
  std::string op;       // the op it covers
  std::string params;   // "%x: Tensor((n, 3), float32)"
  std::string body;     // bindings ending with %r = ...
  std::vector<Input> inputs;
};

Input T(std::vector<int64_t> shape, DType dtype = DType::kFloat32, double lo = -2, double hi = 2) {
  return Input{std::move(shape), dtype, lo, hi, false};
}
Input Scalar(double v, DType dtype) { return Input{{}, dtype, v, v, true}; }

constexpr DType kF = DType::kFloat32;

std::vector<OpCase> Cases() {
  std::vector<OpCase> cases;
  std::string family;
  auto add = [&](std::string op, std::string params, std::string call, std::vector<Input> inputs) {
    std::string body = call.find("%r = ") == std::string::npos ? "%r = " + call : call;
    cases.push_back({family, std::move(op), std::move(params), std::move(body), std::move(inputs)});
  };
  family = "elementwise";
  for (const char* op : {"negative", "abs", "exp", "tanh", "sigmoid", "erf", "floor", "ceil", "round", "sign", "sin", "cos",
                         "atan", "sinh", "cosh", "asinh"}) {
    add(op, "%x: Tensor((n, 3), float32)", std::string(op) + "(%x)", {T({4, 3}, kF, -3, 3)});
  }
  for (const char* op : {"tan", "asin", "acos", "atanh"}) {
    add(op, "%x: Tensor((n, 3), float32)", std::string(op) + "(%x)", {T({4, 3}, kF, -0.9, 0.9)});
  }
  add("acosh", "%x: Tensor((n, 3), float32)", "acosh(%x)", {T({4, 3}, kF, 1, 4)});
  for (const char* op : {"log", "sqrt", "rsqrt"}) add(op, "%x: Tensor((n, 3), float32)", std::string(op) + "(%x)", {T({4, 3}, kF, 0.1, 4)});
  add("negative", "%x: Tensor((5,), int32)", "negative(%x)", {T({5}, DType::kInt32, -9, 9)});
  add("abs", "%x: Tensor((5,), int8)", "abs(%x)", {T({5}, DType::kInt8, -128, 127)});
  for (const char* op : {"add", "subtract", "multiply", "divide", "maximum", "minimum"}) {
    add(op, "%a: Tensor((n, 1, 3), float32), %b: Tensor((2, 1), float32)", std::string(op) + "(%a, %b)",
        {T({4, 1, 3}), T({2, 1})});
  }
  add("power", "%a: Tensor((n, 3), float32), %b: Tensor((3,), float32)", "power(%a, %b)", {T({2, 3}, kF, 0.1, 3), T({3})});
  add("add", "%a: Tensor((n, 3), float16), %b: Tensor((3,), float16)", "add(%a, %b)", {T({5, 3}, DType::kFloat16), T({3}, DType::kFloat16)});
  add("multiply", "%a: Tensor((n, 3), bfloat16), %b: Tensor((n, 3), bfloat16)", "multiply(%a, %b)",
      {T({5, 3}, DType::kBFloat16), T({5, 3}, DType::kBFloat16)});
  add("divide", "%a: Tensor((6,), int32), %b: Tensor((6,), int32)", "divide(%a, %b)", {T({6}, DType::kInt32, -9, 9), T({6}, DType::kInt32, 1, 4)});
  for (const char* op : {"mod", "fmod"}) {
    add(op, "%a: Tensor((n, 3), float32), %b: Tensor((3,), float32)", std::string(op) + "(%a, %b)",
        {T({4, 3}, kF, -5, 5), T({3}, kF, 0.5, 2)});
    add(op, "%a: Tensor((6,), int32), %b: Tensor((6,), int32)", std::string(op) + "(%a, %b)",
        {T({6}, DType::kInt32, -9, 9), T({6}, DType::kInt32, -4, -1)});
  }
  add("sign", "%x: Tensor((5,), int32)", "sign(%x)", {T({5}, DType::kInt32, -9, 9)});
  for (const char* op : {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"}) {
    add(op, "%a: Tensor((n, 4), int32), %b: Tensor((4,), int32)", std::string(op) + "(%a, %b)",
        {T({3, 4}, DType::kInt32, -1, 1), T({4}, DType::kInt32, -1, 1)});
  }
  add("less", "%a: Tensor((n, 4), float16), %b: Tensor((4,), float16)", "less(%a, %b)",
      {T({3, 4}, DType::kFloat16), T({4}, DType::kFloat16)});
  add("where", "%c: Tensor((3, 1), bool), %a: Tensor((1, m), float32), %b: Tensor((m,), float32)", "where(%c, %a, %b)",
      {T({3, 1}, DType::kBool, 0, 1), T({1, 4}), T({4})});
  add("astype", "%x: Tensor((n, 3), float32)", "astype(%x, dtype=int32)", {T({4, 3}, kF, -300, 300)});
  add("astype", "%x: Tensor((n, 3), float16)", "astype(%x, dtype=bfloat16)", {T({4, 3}, DType::kFloat16, -300, 300)});
  add("astype", "%y: Tensor((4,), int64)", "astype(%y, dtype=bool)", {T({4}, DType::kInt64, -1, 1)});
  add("clip", "%y: Tensor((6,), int32)", "clip(%y, min=-1.5, max=2.5)", {T({6}, DType::kInt32, -5, 5)});
  family = "linalg";
  add("matmul", "%a: Tensor((n, k), float32), %b: Tensor((k, m), float32)", "matmul(%a, %b)", {T({4, 3}), T({3, 5})});
  add("linear", "%x: Tensor((n, 3, 4), float32), %w: Tensor((5, 4), float32), %b: Tensor((5,), float32)",
      "linear(%x, %w, %b)", {T({2, 3, 4}), T({5, 4}), T({5})});
  add("linear", "%x: Tensor((4,), float32), %w: Tensor((3, 4), float32)", "linear(%x, %w)", {T({4}), T({3, 4})});
  add("matmul", "%a: Tensor((2, 1, 3, 4), float32), %b: Tensor((3, 4, 2), float32)", "matmul(%a, %b)", {T({2, 1, 3, 4}), T({3, 4, 2})});
  add("matmul", "%a: Tensor((4,), float32), %b: Tensor((2, 4, 3), float32)", "matmul(%a, %b)", {T({4}), T({2, 4, 3})});
  add("matmul", "%a: Tensor((2, 3), int32), %b: Tensor((3, 4), int32)", "matmul(%a, %b, out_dtype=float64)",
      {T({2, 3}, DType::kInt32, -5, 5), T({3, 4}, DType::kInt32, -5, 5)});
  family = "manipulate";
  add("permute_dims", "%x: Tensor((n, 3, 4), float32)", "permute_dims(%x, axes=[2, 0, -2])", {T({2, 3, 4})});
  add("reshape", "%s: Tensor((n,), float32), %x: Tensor((n * 2, 3), float32)", "reshape(%x, shape(n, 6))", {T({2}), T({4, 3})});
  add("flatten", "%y: Tensor((n, 3, 2), float32)", "flatten(%y)", {T({2, 3, 2})});
  add("broadcast_to", "%x: Tensor((3, 1), float32)", "broadcast_to(%x, shape(2, 3, 4))", {T({3, 1})});
  add("collapse_sum_to", "%x: Tensor((n, 3, 4), float32)", "collapse_sum_to(%x, shape(3, 1))", {T({2, 3, 4})});
  add("expand_dims", "%x: Tensor((n, 3), float32)", "expand_dims(%x, axis=[0, -1])", {T({2, 3})});
  add("squeeze", "%y: Tensor((1, n, 1, 2), float32)", "squeeze(%y, axis=[-2])", {T({1, 3, 1, 2})});
  add("concat", "%a: Tensor((n, 3), float32), %b: Tensor((n, 1), float32), %c: Tensor((n, m), float32)",
      "concat((%a, %b, %c), axis=-1)", {T({2, 3}), T({2, 1}), T({2, 2})});
  add("split", "%x: Tensor((n, 2), float32)", "split(%x, sections=3)", {T({6, 2})});
  add("split", "%y: Tensor((m, 5), float32)", "split(%y, indices=[2], axis=-1)", {T({3, 5})});
  add("strided_slice", "%x: Tensor((5, 6), float32)", "strided_slice(%x, axes=[1], begin=[-1], end=[-100], strides=[-2])", {T({5, 6})});
  add("strided_slice", "%x: Tensor((n, 6), float32)", "strided_slice(%x, axes=[0], begin=[1], end=[2147483647], strides=[2])", {T({7, 6})});
  add("take", "%x: Tensor((n, 4), float32), %i: Tensor((2, 2), int64)", "take(%x, %i, axis=1)", {T({3, 4}), T({2, 2}, DType::kInt64, 0, 3)});
  add("take", "%x: Tensor((n, 4), float32), %i: Tensor((3,), int32)", "take(%x, %i)", {T({3, 4}), T({3}, DType::kInt32, 0, 11)});
  add("pad", "%x: Tensor((n, 3), float32)", "pad(%x, pad_width=[1, 0, 2, 1], pad_value=0.5)", {T({2, 3})});
  add("one_hot", "%i: Tensor((n, 2), int32)", "one_hot(%i, prim(2f32), prim(-1f32), depth=4)", {T({3, 2}, DType::kInt32, -1, 4)});
  add("one_hot", "%i: Tensor((3,), int64), %on: Prim(float32), %off: Prim(float32)", "one_hot(%i, %on, %off, depth=2)",
      {T({3}, DType::kInt64, 0, 1), Scalar(4.5, kF), Scalar(-0.5, kF)});
  family = "reduce";
  for (const char* op : {"sum", "mean", "max", "min", "prod", "variance"}) {
    add(op, "%x: Tensor((n, 3, m), float32)", std::string(op) + "(%x, axis=[-1, 0], keepdims=true)", {T({2, 3, 5})});
  }
  add("sum", "%x: Tensor((n, 3, m), float32)", "sum(%x, axis=[1])", {T({2, 3, 5})});
  add("sum", "%x: Tensor((3, 4), int32)", "sum(%x, axis=[0])", {T({3, 4}, DType::kInt32, -9, 9)});
  add("max", "%x: Tensor((2, 0), float32)", "max(%x, axis=[1])", {T({2, 0})});
  add("argmax", "%x: Tensor((n, 4), float32)", "argmax(%x, axis=-2, keepdims=true)", {T({3, 4})});
  add("argmax", "%y: Tensor((2, 5), int32)", "argmax(%y, axis=1)", {T({2, 5}, DType::kInt32, 0, 3)});
  add("prod", "%x: Tensor((3, 4), int32)", "prod(%x, axis=[0])", {T({3, 4}, DType::kInt32, -3, 3)});
  for (const char* flags : {"", ", exclusive=true", ", reverse=true", ", exclusive=true, reverse=true"}) {
    add("cumsum", "%x: Tensor((n, 5), float32)", std::string("cumsum(%x, axis=1") + flags + ")", {T({3, 5})});
  }
  add("cumsum", "%x: Tensor((4, 3), int64)", "cumsum(%x, axis=-2, reverse=true)", {T({4, 3}, DType::kInt64, -9, 9)});
  add("softmax", "%x: Tensor((n, 3, 4), float32)", "softmax(%x, axis=1)", {T({2, 3, 4}, kF, -3, 80)});
  add("log_softmax", "%x: Tensor((n, 3, 4), float32)", "log_softmax(%x, axis=-1)", {T({2, 3, 4}, kF, -3, 3)});
  family = "create";
  add("zeros", "", "zeros(shape(2, 3))", {});
  add("ones", "", "ones(shape(4), dtype=int32)", {});
  add("full", "%v: Prim(float32)", "full(shape(2, 1), %v)", {Scalar(1.25, kF)});
  add("full", "%v: Tensor((), float32)", "full(shape(2), %v, dtype=int32)", {T({}, kF, -3.75, -3.75)});
  add("zeros_like", "%x: Tensor((n, 2), float32)", "zeros_like(%x)", {T({3, 2})});
  add("ones_like", "%x: Tensor((n, 2), float32)", "ones_like(%x, dtype=bool)", {T({3, 2})});
  add("full_like", "%x: Tensor((2, n), int64), %v: Tensor((), int64)", "full_like(%x, %v)", {T({2, 3}, DType::kInt64), T({}, DType::kInt64, 7, 7)});
  family = "nn";
  add("nn.relu", "%x: Tensor((n, 4), float32)", "nn.relu(%x)", {T({3, 4})});
  add("nn.relu", "%y: Tensor((5,), int32)", "nn.relu(%y)", {T({5}, DType::kInt32, -5, 5)});
  add("nn.gelu", "%x: Tensor((n, 4), bfloat16)", "nn.gelu(%x)", {T({3, 4}, DType::kBFloat16, -3, 3)});
  add("nn.gelu", "%x: Tensor((n, 4), float32)", "nn.gelu(%x)", {T({3, 4}, kF, -3, 3)});
  add("nn.silu", "%x: Tensor((n, 4), float16)", "nn.silu(%x)", {T({3, 4}, DType::kFloat16, -3, 3)});
  add("nn.dropout", "%x: Tensor((n, 50), float32), %s: Tensor((), int64)", "%t = nn.dropout(%x, %s, rate=0.3)\n  %r = %t",
      {T({4, 50}), T({}, DType::kInt64, 42, 42)});
  add("nn.dropout", "%x: Tensor((3, 4), float32)", "nn.dropout(%x, rate=0.5)", {T({3, 4})});
  add("nn.conv2d", "%d: Tensor((n, 4, 5, 5), float32), %w: Tensor((6, 2, 3, 3), float32)",
      "nn.conv2d(%d, %w, strides=[1, 2], padding=[1, 1, 1, 1], dilation=[1, 1], groups=2)", {T({2, 4, 5, 5}), T({6, 2, 3, 3})});
  add("nn.conv2d", "%d: Tensor((n, 6, 5, 3), float32), %w: Tensor((2, 2, 3, 2), float32)",
      "nn.conv2d(%d, %w, strides=[2, 2], padding=[1, 0, 1, 0], data_layout=\"NHWC\", kernel_layout=\"HWIO\")",
      {T({2, 6, 5, 3}), T({2, 2, 3, 2})});
  add("nn.conv2d_transpose", "%d: Tensor((n, 4, 3, 3), float32), %w: Tensor((4, 3, 3, 3), float32)",
      "nn.conv2d_transpose(%d, %w, strides=[2, 2], padding=[1, 1, 1, 1], output_padding=[1, 1])", {T({2, 4, 3, 3}), T({4, 3, 3, 3})});
  add("nn.conv2d_backward_data", "%g: Tensor((n, 6, 3, 3), float32), %w: Tensor((6, 2, 3, 3), float32)",
      "nn.conv2d_backward_data(%g, %w, strides=[2, 2], padding=[1], groups=2, data_size=[5, 6])",
      {T({2, 6, 3, 3}), T({6, 2, 3, 3})});
  add("nn.conv2d_backward_weight", "%g: Tensor((n, 3, 2, 2), float32), %d: Tensor((n, 6, 5, 3), float32)",
      "nn.conv2d_backward_weight(%g, %d, strides=[2, 2], padding=[1, 0, 1, 0], data_layout=\"NHWC\", "
      "kernel_layout=\"HWIO\", kernel_size=[3, 2])",
      {T({2, 3, 2, 2}), T({2, 6, 5, 3})});
  add("nn.max_pool2d", "%x: Tensor((n, 2, 5, 7), float32)",
      "nn.max_pool2d(%x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1], ceil_mode=true)", {T({1, 2, 5, 7})});
  add("nn.avg_pool2d", "%x: Tensor((n, 5, 5, 3), float32)",
      "nn.avg_pool2d(%x, pool_size=[3, 2], strides=[2, 1], padding=[1, 0, 0, 1], layout=\"NHWC\", count_include_pad=true)",
      {T({2, 5, 5, 3})});
  add("nn.avg_pool2d", "%x: Tensor((n, 2, 6, 6), float32)", "nn.avg_pool2d(%x, pool_size=[2, 2], strides=[2, 2], padding=[1, 1, 1, 1])",
      {T({2, 2, 6, 6})});
  add("nn.adaptive_avg_pool2d", "%x: Tensor((n, 3, 7, 5), float32)", "nn.adaptive_avg_pool2d(%x, output_size=[3, 2])", {T({2, 3, 7, 5})});
  add("nn.max_pool2d_backward", "%g: Tensor((n, 2, 2, 3), float32), %x: Tensor((n, 2, 5, 7), float32)",
      "nn.max_pool2d_backward(%g, %x, pool_size=[3, 3], strides=[2, 2])", {T({1, 2, 2, 3}), T({1, 2, 5, 7}, DType::kFloat32, 0, 3)});
  add("nn.avg_pool2d_backward", "%g: Tensor((n, 2, 3, 3), float32), %x: Tensor((n, 2, 6, 6), float32)",
      "nn.avg_pool2d_backward(%g, %x, pool_size=[2, 2], strides=[2, 2], padding=[0, 0, 0, 0])", {T({2, 2, 3, 3}), T({2, 2, 6, 6})});
  add("nn.adaptive_avg_pool2d_backward", "%g: Tensor((1, 3, 3, 2), float32), %x: Tensor((1, 3, h, w), float32)",
      "nn.adaptive_avg_pool2d_backward(%g, %x)", {T({1, 3, 3, 2}), T({1, 3, 7, 5})});
  for (const char* training : {"true", "false"}) {
    add("nn.batch_norm",
        "%x: Tensor((n, 3, 2, 2), float32), %g: Tensor((3,), float32), %b: Tensor((3,), float32), %m: Tensor((3,), "
        "float32), %v: Tensor((3,), float32)",
        std::string("nn.batch_norm(%x, %g, %b, %m, %v, axis=1, epsilon=0.001, momentum=0.2, training=") + training + ")",
        {T({2, 3, 2, 2}, kF, -3, 3), T({3}, kF, 0.5, 2), T({3}), T({3}), T({3}, kF, 0.5, 2)});
  }
  add("nn.layer_norm", "%x: Tensor((n, 3, 4), float32), %g: Tensor((4, 3), float32), %b: Tensor((4, 3), float32)",
      "nn.layer_norm(%x, %g, %b, axes=[2, 1], epsilon=0.01)", {T({2, 3, 4}, kF, -3, 3), T({4, 3}, kF, 0.5, 2), T({4, 3})});
  for (const char* reduction : {"none", "mean"}) {
    add("nn.nll_loss", "%p: Tensor((n, 3), float32), %t: Tensor((n,), int64), %w: Tensor((3,), float32)",
        std::string("nn.nll_loss(%p, %t, %w, reduction=\"") + reduction + "\", ignore_index=1)",
        {T({5, 3}, kF, -3, 0), T({5}, DType::kInt64, 0, 2), T({3}, kF, 0.5, 2)});
  }
  add("nn.nll_loss", "%p: Tensor((2, 3, d), float32), %t: Tensor((2, d), int32)", "nn.nll_loss(%p, %t)",
      {T({2, 3, 4}, kF, -3, 0), T({2, 4}, DType::kInt32, 0, 2)});
  add("nn.cross_entropy_with_logits", "%p: Tensor((n, 4), float32), %l: Tensor((n, 4), float32)",
      "nn.cross_entropy_with_logits(%p, %l)", {T({3, 4}, kF, -3, 0), T({3, 4}, kF, 0, 1)});
  family = "create";  // markers for the Gradient pass: legalized, each is its argument
  add("checkpoint_start", "%x: Tensor((n, 2), float32)", "%c = checkpoint_start(%x)\n  %r = nn.relu(%c)", {T({3, 2})});
  add("checkpoint_end", "%x: Tensor((n, 2), float32)", "%c = checkpoint_end(%x)\n  %r = exp(%c)", {T({3, 2})});
  return cases;
}

Value MakeInput(const Input& in, std::mt19937& rng) {
  if (in.scalar) return IsFloat(in.dtype) ? Value::Float(in.lo) : Value::Int(static_cast<int64_t>(in.lo));
  Tensor t = Tensor::Empty(in.shape, in.dtype);
  std::uniform_real_distribution<double> real(in.lo, in.hi);
  for (int64_t i = 0; i < t.numel(); ++i) {
    double v = real(rng);
    t.SetFromDouble(i, IsFloat(in.dtype) ? v : std::floor(v + 0.5));
  }
  return Value(t);
}

void Flatten(const Value& v, std::vector<Tensor>& out) {
  if (v.is_tuple()) {
    for (const Value& f : v.tuple()) Flatten(f, out);
  } else {
    out.push_back(v.tensor());
  }
}

::testing::AssertionResult SameValues(const Value& reference, const Value& cpu) {
  std::vector<Tensor> a, b;
  Flatten(reference, a);
  Flatten(cpu, b);
  if (a.size() != b.size()) return ::testing::AssertionFailure() << a.size() << " results vs " << b.size();
  for (size_t k = 0; k < a.size(); ++k) {
    if (a[k].dtype() != b[k].dtype() || a[k].shape() != b[k].shape()) {
      return ::testing::AssertionFailure() << "result " << k << ": dtype or shape differ";
    }
    for (int64_t i = 0; i < a[k].numel(); ++i) {
      double x = a[k].GetAsDouble(i), y = b[k].GetAsDouble(i);
      if (!(x == y || (std::isnan(x) && std::isnan(y)))) {
        return ::testing::AssertionFailure() << "result " << k << " element " << i << ": reference " << x << ", cpu " << y;
      }
    }
  }
  return ::testing::AssertionSuccess();
}

// Runs the cases of |family| unfused and fused on both backends.
void RunFamily(const std::string& family) {
  // Kept loaded to the end: a kernel that recurs (the fused build of a one-op function is
  // usually the same kernel) reuses the compiled code.
  std::vector<std::unique_ptr<CpuKernelProvider>> cpu_kernels;
  double compile_ms = 0;
  uint32_t seed = 1;
  for (const OpCase& c : Cases()) {
    if (c.family != family) continue;
    for (int opt_level : {0, 2}) {
      SCOPED_TRACE(c.body + " at opt_level " + std::to_string(opt_level));
      std::string text = "def @main(" + c.params + ") -> Object {\n  " + c.body + "\n  return %r\n}\n";
      Executable exec;
      try {
        exec = Build(ParseModule(text, "case.rxt"), {.backend = "", .opt_level = opt_level});
      } catch (const Error& e) {
        ADD_FAILURE() << e.what();
        continue;
      }
      std::mt19937 rng(seed++);
      std::vector<Value> args;
      for (const Input& in : c.inputs) args.push_back(MakeInput(in, rng));
      rxt::testing::ReferenceKernelProvider reference_kernels;
      cpu_kernels.push_back(std::make_unique<CpuKernelProvider>());
      VirtualMachine reference(exec, reference_kernels);
      VirtualMachine cpu(exec, *cpu_kernels.back());
      compile_ms += cpu_kernels.back()->compile_ms();
      EXPECT_TRUE(SameValues(reference.Invoke("main", args), cpu.Invoke("main", args)));
    }
  }
  ::testing::Test::RecordProperty("compile_cpu_ms", std::to_string(compile_ms));
}

TEST(LegalizedOps, Elementwise) { RunFamily("elementwise"); }
TEST(LegalizedOps, LinearAlgebra) { RunFamily("linalg"); }
TEST(LegalizedOps, Manipulation) { RunFamily("manipulate"); }
TEST(LegalizedOps, Reductions) { RunFamily("reduce"); }
TEST(LegalizedOps, Creation) { RunFamily("create"); }
TEST(LegalizedOps, NeuralNetworks) { RunFamily("nn"); }

TEST(LegalizedOps, EveryLegalizedOpHasACase) {
  std::set<std::string> covered;
  for (const OpCase& c : Cases()) covered.insert(c.op);
  LegalizeOps();  // attaches the legalizations to the registry
  // gradient_of's legalization refuses: LowerGradientOf turns it into ops that have cases here.
  // ccl.allreduce and its halves become call_extern (the communicator's), no kernel.
  const std::set<std::string> builtins = {"call_kernel", "call_extern", "print", "assert", "view", "gradient_of",
                                          "ccl.allreduce", "ccl.allreduce_start", "ccl.allreduce_wait"};
  for (const OpDef* op : OpRegistry::Global().List()) {
    if (!op->Has<FLegalize>() || builtins.count(op->name())) continue;
    EXPECT_TRUE(covered.count(op->name())) << op->name() << " is legalized but this test has no case for it";
  }
}

}  // namespace
}  // namespace rxt::backend_cpu::testing
