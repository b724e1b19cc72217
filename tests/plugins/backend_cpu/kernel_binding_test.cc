// rxt/plugin_support/kernel_binding.h: binding a call's DLPack tensors to a kernel's parameters, with the
// reference interpreter's checks and messages, into the arrays compiled kernels take.
#include "rxt/plugin_support/kernel_binding.h"

#include "cpu_test_util.h"

namespace rxt::backend_cpu::testing {
namespace {

namespace kb = ::rxt::plugin_support::kernel_binding;
namespace ref = ::rxt::backend_reference;

kb::KernelBinder Binder(const std::string& text, const std::string& name) {
  IRModule module = ParseModule(text, name + ".rxt");
  std::vector<uint8_t> bytes = EncodeKernel(module.GetKernel(name), name);
  plugin_support::kernel_format::DecodeResult decoded = plugin_support::kernel_format::DecodeKernel(bytes.data(), bytes.size());
  EXPECT_TRUE(decoded.ok()) << decoded.error;
  return kb::KernelBinder(std::move(decoded.kernel));
}

std::string BindError(const kb::KernelBinder& binder, const std::vector<DLTensor*>& args) {
  kb::BoundCall call = binder.NewCall();
  std::string error;
  return binder.Bind(args.data(), static_cast<int>(args.size()), call, error) ? "" : error;
}

// The reference interpreter's message for the same arguments (tensors only), without its
// "kernel 'name': " prefix.
std::string ReferenceError(const std::string& text, const std::string& name, const std::vector<DLTensor*>& args) {
  std::vector<ref::KernelArg> ref_args;
  for (DLTensor* t : args) ref_args.push_back(ref::KernelArg::Tensor(t));
  std::string message = ref::testing::RunError(ref::testing::Compile(text, name), ref_args);
  std::string prefix = "kernel '" + name + "': ";
  return message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : message;
}

std::string MyModule() { return ReadSourceFile("examples/my_module.rxt"); }

TEST(KernelBinding, FillsTheArraysCompiledKernelsTake) {
  const char* text = R"(
kernel @k(X: Buffer((n, m), float32, strides=(s, 1)), a: float64, c: int32, Y: Buffer((n * 2,), int64)) {
  for i in range(n) {
    Y[i] = int64(X[i, 0] * float32(a)) + int64(c)
  }
}
)";
  kb::KernelBinder binder = Binder(text, "k");
  HostTensor x({3, 4}, kF32, {6, 1}), y({6}, kI64);
  x.dl()->byte_offset = 8;
  double a = 2.5;
  int64_t c = -4;
  DLTensor a_t{&a, {kDLCPU, 0}, 0, {kDLFloat, 64, 1}, nullptr, nullptr, 0};
  DLTensor c_t{&c, {kDLCPU, 0}, 0, {kDLInt, 64, 1}, nullptr, nullptr, 0};
  std::vector<DLTensor*> args = {x.dl(), &a_t, &c_t, y.dl()};
  kb::BoundCall call = binder.NewCall();
  std::string error;
  ASSERT_TRUE(binder.Bind(args.data(), 4, call, error)) << error;
  const plugin_support::kernel_format::Kernel& k = binder.kernel();
  auto var = [&](const std::string& name) {
    for (size_t v = 0; v < k.vars.size(); ++v) {
      if (k.vars[v].name == name) return v;
    }
    ADD_FAILURE() << "no variable " << name;
    return size_t{0};
  };
  EXPECT_EQ(call.int_vars[var("n")], 3);
  EXPECT_EQ(call.int_vars[var("m")], 4);
  EXPECT_EQ(call.int_vars[var("s")], 6);
  EXPECT_EQ(call.int_vars[var("c")], -4);
  EXPECT_EQ(call.float_vars[var("a")], 2.5);
  EXPECT_EQ(call.buffers[0], static_cast<uint8_t*>(x.dl()->data) + 8);
  EXPECT_EQ(call.buffers[1], y.dl()->data);
}

TEST(KernelBinding, MessagesAreTheReferenceInterpretersOnes) {
  std::string text = MyModule();
  HostTensor x({1, 4}, kF32), w({3, 4}, kF32), b({3}, kF32), z({1, 3}, kF32);
  HostTensor w_bad({3, 5}, kF32), z_bad({1, 2}, kF32), x_rows({2, 4}, kF32), ints({1, 4}, kI32), flat({4}, kF32);
  HostTensor strided({1, 4}, kF32, {8, 2});
  DLTensor on_gpu = *x.dl();
  on_gpu.device = {kDLCUDA, 0};
  DLTensor lanes = *x.dl();
  lanes.dtype.lanes = 4;
  DLTensor no_data = *x.dl();
  no_data.data = nullptr;
  HostTensor negative({1, 4}, kF32);
  negative.dl()->shape[1] = -4;
  std::vector<std::vector<DLTensor*>> cases = {
      {x.dl(), w_bad.dl(), b.dl(), z.dl()},    {x.dl(), w.dl(), b.dl(), z_bad.dl()}, {x_rows.dl(), w.dl(), b.dl(), z.dl()},
      {ints.dl(), w.dl(), b.dl(), z.dl()},     {flat.dl(), w.dl(), b.dl(), z.dl()},  {&on_gpu, w.dl(), b.dl(), z.dl()},
      {&lanes, w.dl(), b.dl(), z.dl()},        {&no_data, w.dl(), b.dl(), z.dl()},   {strided.dl(), w.dl(), b.dl(), z.dl()},
      {negative.dl(), w.dl(), b.dl(), z.dl()},
  };
  kb::KernelBinder binder = Binder(text, "linear0");
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    std::string expected = ReferenceError(text, "linear0", cases[i]);
    EXPECT_FALSE(expected.empty());
    EXPECT_EQ(BindError(binder, cases[i]), expected);
  }
  EXPECT_EQ(BindError(binder, {x.dl(), w_bad.dl(), b.dl(), z.dl()}),
            "buffer W (parameter 1) dim 1 is 5, but m = 4 from buffer X (parameter 0) dim 1");
  EXPECT_EQ(BindError(binder, {x.dl(), w.dl(), b.dl(), z.dl()}), "");
}

TEST(KernelBinding, DerivedDimsStridesAndSmallTypes) {
  const char* text = R"(
kernel @k(X: Buffer((n, 2), float32, strides=(s, 1)), Y: Buffer((n * 2 + 1,), float32), Z: Buffer((t,), int8)) {
  for i in range(n) {
    Y[i] = X[i, 0]
  }
}
)";
  const char* narrow = R"(
kernel @k(X: Buffer((n,), float32)) {
  for i in range(n) {
    X[i] = 0f32
  }
}
)";
  HostTensor x({3, 2}, kF32, {5, 1}), y({7}, kF32), y_bad({6}, kF32), z({2}, kI8);
  HostTensor x_unit({3, 2}, kF32, {5, 2});
  std::vector<std::vector<DLTensor*>> cases = {{x.dl(), y_bad.dl(), z.dl()}, {x_unit.dl(), y.dl(), z.dl()}};
  kb::KernelBinder binder = Binder(text, "k");
  for (const auto& args : cases) EXPECT_EQ(BindError(binder, args), ReferenceError(text, "k", args));
  EXPECT_EQ(BindError(binder, {x.dl(), y_bad.dl(), z.dl()}),
            "buffer Y (parameter 1) dim 0 is 6, but the kernel expects ((n * 2) + 1) = 7");
  EXPECT_EQ(BindError(binder, {x.dl(), y.dl(), z.dl()}), "");
  (void)narrow;
}

TEST(KernelBinding, ScalarArgumentsAreZeroDimInt64OrFloat64Tensors) {
  const char* text = R"(
kernel @k(X: Buffer((n,), float32), c: int8, f: float32) {
  for i in range(n) {
    X[i] = float32(c) + f
  }
}
)";
  kb::KernelBinder binder = Binder(text, "k");
  HostTensor x({2}, kF32);
  int64_t big = 300, small = 3;
  double half = 0.5;
  DLTensor big_t{&big, {kDLCPU, 0}, 0, {kDLInt, 64, 1}, nullptr, nullptr, 0};
  DLTensor small_t{&small, {kDLCPU, 0}, 0, {kDLInt, 64, 1}, nullptr, nullptr, 0};
  DLTensor half_t{&half, {kDLCPU, 0}, 0, {kDLFloat, 64, 1}, nullptr, nullptr, 0};
  DLTensor int32_t_t{&small, {kDLCPU, 0}, 0, {kDLInt, 32, 1}, nullptr, nullptr, 0};
  EXPECT_EQ(BindError(binder, {x.dl(), &big_t, &half_t}), "parameter 1 (c: int8): 300 does not fit");
  EXPECT_EQ(BindError(binder, {x.dl(), &half_t, &half_t}), "parameter 1 (c: int8): expected an integer but got a float");
  EXPECT_EQ(BindError(binder, {x.dl(), &int32_t_t, &half_t}), "scalar argument 1 is not a 0-d int64 or float64 tensor");
  EXPECT_EQ(BindError(binder, {x.dl(), x.dl(), &half_t}), "scalar argument 1 is not a 0-d int64 or float64 tensor");
  EXPECT_EQ(BindError(binder, {x.dl(), &small_t}), "expected 3 arguments, got 2");
  EXPECT_EQ(BindError(binder, {x.dl(), nullptr, &half_t}), "argument 1 is null");
  EXPECT_EQ(BindError(binder, {x.dl(), &small_t, &small_t}), "");
}

TEST(KernelBinding, WrittenBuffersMustNotOverlapOtherArguments) {
  std::string text = ReadSourceFile("examples/my_module.rxt");
  kb::KernelBinder binder = Binder(text, "relu0");
  EXPECT_EQ(binder.written_params(), (std::vector<int32_t>{1}));
  HostTensor x({1, 8}, kF32), y({1, 8}, kF32);
  std::vector<DLTensor*> distinct = {x.dl(), y.dl()};
  DLTensor shifted = *x.dl();  // X's memory from element 1 on: overlaps X
  shifted.byte_offset = 4;
  shifted.shape = y.dl()->shape;
  std::vector<std::vector<DLTensor*>> overlapping = {{x.dl(), x.dl()}, {x.dl(), &shifted}};
  kb::BoundCall call = binder.NewCall();
  std::string error;
  ASSERT_TRUE(binder.Bind(distinct.data(), 2, call, error));
  EXPECT_TRUE(binder.CheckWrittenBuffersDistinct(call, error)) << error;
  for (auto& args : overlapping) {
    ASSERT_TRUE(binder.Bind(args.data(), 2, call, error)) << error;
    EXPECT_FALSE(binder.CheckWrittenBuffersDistinct(call, error));
    EXPECT_EQ(error,
              "buffer Y (parameter 1) shares memory with buffer X (parameter 0): a buffer the kernel writes must not "
              "overlap another argument");
  }
  // An output the kernel's "in_place" attribute lets the VM write over an input (docs/vm.md,
  // "Donated inputs") may be that input's very memory, but not a part of it.
  kb::KernelBinder in_place = Binder(R"(
kernel @twice(X: Buffer((1, 8), float32), Y: Buffer((1, 8), float32))
    attributes {in_place = [0, 1]} {
  for i in range(1) {
    for j in range(8) {
      block y(vi = i, vj = j) {
        Y[vi, vj] = X[vi, vj] * 2f32
      }
    }
  }
})", "twice");
  call = in_place.NewCall();
  ASSERT_TRUE(in_place.Bind(overlapping[0].data(), 2, call, error)) << error;
  EXPECT_TRUE(in_place.CheckWrittenBuffersDistinct(call, error)) << error;
  ASSERT_TRUE(in_place.Bind(overlapping[1].data(), 2, call, error)) << error;
  EXPECT_FALSE(in_place.CheckWrittenBuffersDistinct(call, error));
  // Reading one tensor through two parameters is fine.
  kb::KernelBinder linear = Binder(text, "linear0");
  HostTensor sq({1, 1}, kF32), bias({1}, kF32), out({1, 1}, kF32);
  std::vector<DLTensor*> shared = {sq.dl(), sq.dl(), bias.dl(), out.dl()};
  call = linear.NewCall();
  ASSERT_TRUE(linear.Bind(shared.data(), 4, call, error)) << error;
  EXPECT_TRUE(linear.CheckWrittenBuffersDistinct(call, error)) << error;
}

}  // namespace
}  // namespace rxt::backend_cpu::testing
