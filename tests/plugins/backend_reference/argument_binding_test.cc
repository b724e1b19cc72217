// Binding arguments to parameters: symbolic dims from shapes, strides, and the errors for
// arguments that do not fit (each names the kernel, the buffer and the dim).
#include "test_util.h"

namespace rxt::backend_reference {
namespace {

using namespace testing;

std::string MyModule() { return ReadSourceFile("examples/my_module.rxt"); }

TEST(ArgumentBinding, SymbolicDimsComeFromTheShapes) {
  ReferenceInterpreter linear = Compile(MyModule(), "linear0");
  for (auto [m, n] : std::vector<std::pair<int64_t, int64_t>>{{2, 3}, {5, 1}}) {
    HostTensor x({1, m}, kF32), w({n, m}, kF32), b({n}, kF32), z({1, n}, kF32);
    std::vector<float> ones(static_cast<size_t>(n * m), 1.0f);
    x.Fill(std::vector<float>(static_cast<size_t>(m), 2.0f));
    w.Fill(ones);
    b.Fill(std::vector<float>(static_cast<size_t>(n), 0.5f));
    linear.Run({x.arg(), w.arg(), b.arg(), z.arg()});
    EXPECT_EQ(z.Values<float>(), std::vector<float>(static_cast<size_t>(n), 2.0f * m + 0.5f));
  }
}

TEST(ArgumentBinding, DisagreeingDimsAreNamed) {
  ReferenceInterpreter linear = Compile(MyModule(), "linear0");
  HostTensor x({1, 4}, kF32), w({3, 5}, kF32), b({3}, kF32), z({1, 3}, kF32);
  EXPECT_EQ(RunError(linear, {x.arg(), w.arg(), b.arg(), z.arg()}),
            "kernel 'linear0': buffer W (parameter 1) dim 1 is 5, but m = 4 from buffer X (parameter 0) dim 1");
  HostTensor w2({3, 4}, kF32), z2({1, 2}, kF32);
  EXPECT_EQ(RunError(linear, {x.arg(), w2.arg(), b.arg(), z2.arg()}),
            "kernel 'linear0': buffer Z (parameter 3) dim 1 is 2, but n = 3 from buffer W (parameter 1) dim 0");
  // A constant dim: X is (1, m).
  HostTensor x2({2, 4}, kF32);
  EXPECT_EQ(RunError(linear, {x2.arg(), w2.arg(), b.arg(), z.arg()}),
            "kernel 'linear0': buffer X (parameter 0) dim 0 is 2, but the kernel expects 1");
}

TEST(ArgumentBinding, DimsWrittenAsExpressionsAreChecked) {
  const char* text = R"(
kernel @pairs(X: Buffer((n, 2), float32), Y: Buffer((n * 2,), float32)) {
  for i in range(n) {
    for j in range(2) {
      Y[i * 2 + j] = X[i, j]
    }
  }
}
)";
  ReferenceInterpreter pairs = Compile(text, "pairs");
  HostTensor x({3, 2}, kF32), y({6}, kF32), wrong({5}, kF32);
  x.Fill<float>({1, 2, 3, 4, 5, 6});
  pairs.Run({x.arg(), y.arg()});
  EXPECT_EQ(y.Values<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(RunError(pairs, {x.arg(), wrong.arg()}),
            "kernel 'pairs': buffer Y (parameter 1) dim 0 is 5, but the kernel expects (n * 2) = 6");
}

TEST(ArgumentBinding, WrongDTypeRankDeviceOrCountIsAnError) {
  ReferenceInterpreter relu = Compile(MyModule(), "relu0");
  HostTensor x({1, 4}, kF32), y({1, 4}, kF32), ints({1, 4}, kI32), flat({4}, kF32);
  EXPECT_EQ(RunError(relu, {ints.arg(), y.arg()}),
            "kernel 'relu0': buffer X (parameter 0): expected float32 but got a tensor of int32");
  EXPECT_EQ(RunError(relu, {x.arg(), flat.arg()}),
            "kernel 'relu0': buffer Y (parameter 1): expected 2 dims but got a tensor with 1 (4,)");
  EXPECT_EQ(RunError(relu, {x.arg()}), "kernel 'relu0': expected 2 arguments, got 1");
  EXPECT_EQ(RunError(relu, {x.arg(), KernelArg::Int(3)}), "kernel 'relu0': buffer Y (parameter 1): expected a tensor");
  DLTensor on_gpu = *y.dl();
  on_gpu.device = {kDLCUDA, 0};
  EXPECT_EQ(RunError(relu, {x.arg(), KernelArg::Tensor(&on_gpu)}),
            "kernel 'relu0': buffer Y (parameter 1): expected a CPU tensor but got device type 2");
  DLTensor vector_lanes = *x.dl();
  vector_lanes.dtype.lanes = 4;
  EXPECT_EQ(RunError(relu, {KernelArg::Tensor(&vector_lanes), y.arg()}),
            "kernel 'relu0': buffer X (parameter 0): expected float32 but got a tensor of float32x4");
  DLTensor no_data = *x.dl();
  no_data.data = nullptr;
  EXPECT_EQ(RunError(relu, {KernelArg::Tensor(&no_data), y.arg()}),
            "kernel 'relu0': buffer X (parameter 0): the tensor has no data");
}

TEST(ArgumentBinding, ScalarArgumentsMustFitTheirParameter) {
  const char* text = R"(
kernel @fill(Y: Buffer((n,), int8), value: int8, scale: float32) {
  for i in range(n) {
    Y[i] = value
  }
}
)";
  ReferenceInterpreter fill = Compile(text, "fill");
  HostTensor y({2}, kI8);
  fill.Run({y.arg(), KernelArg::Int(-7), KernelArg::Int(2)});
  EXPECT_EQ(y.Values<int8_t>(), (std::vector<int8_t>{-7, -7}));
  EXPECT_EQ(RunError(fill, {y.arg(), KernelArg::Int(300), KernelArg::Float(1)}),
            "kernel 'fill': parameter 1 (value: int8): 300 does not fit");
  EXPECT_EQ(RunError(fill, {y.arg(), KernelArg::Float(1.5), KernelArg::Float(1)}),
            "kernel 'fill': parameter 1 (value: int8): expected an integer but got a float");
  EXPECT_EQ(RunError(fill, {y.arg(), KernelArg::Tensor(y.dl()), KernelArg::Float(1)}),
            "kernel 'fill': parameter 1 (value: int8): expected a scalar but got a tensor");
}

TEST(ArgumentBinding, AScalarParameterCanAlsoBeADim) {
  const char* text = R"(
kernel @iota(Y: Buffer((m,), int64), m: int64) {
  for i in range(m) {
    Y[i] = i
  }
}
)";
  ReferenceInterpreter iota = Compile(text, "iota");
  HostTensor y({3}, kI64);
  iota.Run({y.arg(), KernelArg::Int(3)});
  EXPECT_EQ(y.Values<int64_t>(), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(RunError(iota, {y.arg(), KernelArg::Int(4)}),
            "kernel 'iota': buffer Y (parameter 0) dim 0 is 3, but m = 4 from the scalar parameter m");
}

// ---- Strides and offsets.

const char* kRowSums = R"(
kernel @rowsum(X: Buffer((n, m), float32, strides=(s, 1)), Y: Buffer((n,), float32)) {
  for i in range(n) {
    for j in range(m) {
      block Y(vi = i, reduce vj = j) {
        init {
          Y[vi] = 0f32
        }
        Y[vi] = Y[vi] + X[vi, vj]
      }
    }
  }
}
)";

TEST(ArgumentBinding, DeclaredSymbolicStridesAreBoundAndHonoured) {
  ReferenceInterpreter rowsum = Compile(kRowSums, "rowsum");
  // Rows of 3 values padded to 5: the padding holds 1000s the kernel must skip.
  HostTensor x({2, 3}, kF32, {5, 1}), y({2}, kF32);
  float* base = &x.at<float>({0, 0});
  for (int k = 0; k < 10; ++k) base[k] = 1000;
  x.Fill<float>({1, 2, 3, 4, 5, 6});
  rowsum.Run({x.arg(), y.arg()});
  EXPECT_EQ(y.Values<float>(), (std::vector<float>{6, 15}));
  // The inner stride is declared 1: a column-major tensor does not fit.
  HostTensor column_major({2, 3}, kF32, {1, 2});
  EXPECT_EQ(RunError(rowsum, {column_major.arg(), y.arg()}),
            "kernel 'rowsum': buffer X (parameter 0) stride 1 is 2, but the kernel expects 1");
}

TEST(ArgumentBinding, FullySymbolicStridesReadTransposedViews) {
  const char* text = R"(
kernel @copy2d(X: Buffer((n, m), float32, strides=(a, b)), Y: Buffer((n, m), float32)) {
  for i in range(n) {
    for j in range(m) {
      Y[i, j] = X[i, j]
    }
  }
}
)";
  ReferenceInterpreter copy = Compile(text, "copy2d");
  HostTensor x({2, 3}, kF32, {1, 2}), y({2, 3}, kF32);  // column-major
  x.Fill<float>({1, 2, 3, 4, 5, 6});                    // logical row-major order
  copy.Run({x.arg(), y.arg()});
  EXPECT_EQ(y.Values<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(ArgumentBinding, BuffersWithoutStridesNeedCompactTensors) {
  ReferenceInterpreter relu = Compile(MyModule(), "relu0");
  HostTensor y({1, 3}, kF32);
  // Explicit strides that are compact are fine; a dim of 1 may have any stride (as torch gives).
  HostTensor compact({1, 3}, kF32, {99, 1});
  compact.Fill<float>({-1, 2, -3});
  relu.Run({compact.arg(), y.arg()});
  EXPECT_EQ(y.Values<float>(), (std::vector<float>{0, 2, 0}));
  HostTensor gappy({1, 3}, kF32, {6, 2});
  EXPECT_EQ(RunError(relu, {gappy.arg(), y.arg()}),
            "kernel 'relu0': buffer X (parameter 0): declares no strides, so the tensor must be compact row-major, "
            "but its strides are (6, 2) for shape (1, 3)");
}

TEST(ArgumentBinding, ByteOffsetsAreHonoured) {
  ReferenceInterpreter relu = Compile(MyModule(), "relu0");
  HostTensor x({1, 3}, kF32), y({1, 3}, kF32);
  float* data = static_cast<float*>(x.dl()->data);
  for (int k = 0; k < 6; ++k) data[k] = static_cast<float>(k % 2 ? k : -k) - 0.5f;
  DLTensor shifted = *x.dl();
  shifted.byte_offset = 3 * sizeof(float);  // starts at data[3]
  relu.Run({KernelArg::Tensor(&shifted), y.arg()});
  EXPECT_EQ(y.Values<float>(), (std::vector<float>{2.5f, 0, 4.5f}));
}

TEST(ArgumentBinding, EmptyTensorsRunNothing) {
  ReferenceInterpreter relu = Compile(MyModule(), "relu0");
  HostTensor x({1, 0}, kF32), y({1, 0}, kF32);
  DLTensor x_empty = *x.dl(), y_empty = *y.dl();
  x_empty.data = nullptr;  // allowed: nothing is read
  y_empty.data = nullptr;
  EXPECT_EQ(RunError(relu, {KernelArg::Tensor(&x_empty), KernelArg::Tensor(&y_empty)}), "");
}

}  // namespace
}  // namespace rxt::backend_reference
