// Which loads may run speculatively (index_bounds.cc): every index's range, from constant loop
// extents and block bindings, inside a constant dim. Anything else keeps its guard.
#include "index_bounds.h"

#include "cpu_test_util.h"

namespace rxt::backend_cpu::testing {
namespace {

plugin_support::kernel_format::Kernel Decode(const std::string& text) {
  IRModule module = ParseModule(text, "bounds.rxt");
  std::vector<uint8_t> bytes = EncodeKernel(module.GetKernel("k"), "k");
  return plugin_support::kernel_format::DecodeKernel(bytes.data(), bytes.size()).kernel;
}

// Whether the one load of buffer X in kernel @k (with |x_shape| and |body| inside) is in bounds.
bool XLoadInBounds(const std::string& x_shape, const std::string& body) {
  plugin_support::kernel_format::Kernel kernel =
      Decode("kernel @k(X: Buffer(" + x_shape + ", float32), Y: Buffer((8,), float32)) {\n" + body + "\n}\n");
  IndexBounds bounds(kernel);
  int loads = 0;
  bool in_bounds = false;
  for (size_t i = 0; i < kernel.exprs.size(); ++i) {
    const plugin_support::kernel_format::Expr& e = kernel.exprs[i];
    if (e.kind == plugin_support::kernel_format::ExprKind::kLoad && kernel.buffers[e.buffer].name == "X") {
      ++loads;
      in_bounds = bounds.LoadInBounds(static_cast<int32_t>(i));
    }
  }
  EXPECT_EQ(loads, 1) << body;
  return in_bounds;
}

TEST(IndexBounds, WindowsInsideTheirBuffer) {
  const char* window = "for i in range(4) { for k in range(2) { Y[i] = X[i * 2 + k] } }";
  EXPECT_TRUE(XLoadInBounds("(8,)", window));
  EXPECT_FALSE(XLoadInBounds("(7,)", window));  // the last window would read X[7]
}

TEST(IndexBounds, PaddingKeepsItsGuard) {
  // A convolution's zero padding: X[i - 1] at i = 0 is outside, whatever the select says.
  EXPECT_FALSE(XLoadInBounds("(8,)", "for i in range(8) { Y[i] = select(i >= 1, X[i - 1], 0f32) }"));
  EXPECT_TRUE(XLoadInBounds("(8,)", "for i in range(8) { Y[i] = select(i >= 1, X[max(i - 1, 0)], 0f32) }"));
  EXPECT_TRUE(XLoadInBounds("(8,)", "for i in range(8) { Y[i] = select(i < 7, X[min(i + 1, 7)], 0f32) }"));
}

TEST(IndexBounds, DivisionModuloAndBlockBindings) {
  EXPECT_TRUE(XLoadInBounds("(4,)", "for i in range(8) { Y[i] = X[floordiv(i, 2)] }"));
  EXPECT_FALSE(XLoadInBounds("(3,)", "for i in range(8) { Y[i] = X[floordiv(i, 2)] }"));
  EXPECT_TRUE(XLoadInBounds("(3,)", "for i in range(8) { Y[i] = X[floormod(i, 3)] }"));
  EXPECT_TRUE(XLoadInBounds("(8,)", "for i in range(7) { block Y(v = i + 1) { Y[v] = X[v] } }"));
  EXPECT_FALSE(XLoadInBounds("(8,)", "for i in range(8) { block Y(v = i + 1) { Y[i] = X[v] } }"));
}

TEST(IndexBounds, AnIndexPastItsDimInsideACompactBuffer) {
  // Merged loops (loop_collapse.cc) index [0, w]: the offset, not each index, decides.
  EXPECT_TRUE(XLoadInBounds("(2, 3)", "for i in range(6) { Y[i] = X[0, i] }"));
  EXPECT_FALSE(XLoadInBounds("(2, 3)", "for i in range(6) { Y[i] = X[1, i] }"));
  EXPECT_FALSE(XLoadInBounds("(2, 3)", "for i in range(7) { Y[i] = X[0, i] }"));
  EXPECT_FALSE(XLoadInBounds("(2, 3)", "for i in range(6) { Y[i] = X[0, i - 1] }"));  // negative
  // With declared strides every index must stay in its dim.
  plugin_support::kernel_format::Kernel strided = Decode(
      "kernel @k(X: Buffer((2, 3), float32, strides=(4, 1)), Y: Buffer((8,), float32)) {\n"
      "for i in range(6) { Y[i] = X[0, i] }\n}\n");
  IndexBounds bounds(strided);
  for (size_t i = 0; i < strided.exprs.size(); ++i) {
    if (strided.exprs[i].kind == plugin_support::kernel_format::ExprKind::kLoad) {
      EXPECT_FALSE(bounds.LoadInBounds(static_cast<int32_t>(i)));
    }
  }
}

TEST(IndexBounds, SymbolicExtentsOrDimsProveNothing) {
  plugin_support::kernel_format::Kernel kernel = Decode(R"(
kernel @k(X: Buffer((n,), float32), Z: Buffer((8,), float32), Y: Buffer((n,), float32)) {
  for i in range(n) {
    Y[i] = X[i] + Z[floormod(i, 8)]
  }
}
)");
  IndexBounds bounds(kernel);
  for (size_t i = 0; i < kernel.exprs.size(); ++i) {
    const plugin_support::kernel_format::Expr& e = kernel.exprs[i];
    if (e.kind != plugin_support::kernel_format::ExprKind::kLoad) continue;
    const std::string& name = kernel.buffers[e.buffer].name;
    // X's dim is n: unknown. Z is read at floormod(i, 8): inside (0..7) whatever n is.
    EXPECT_EQ(bounds.LoadInBounds(static_cast<int32_t>(i)), name == "Z") << name;
  }
}

}  // namespace
}  // namespace rxt::backend_cpu::testing
