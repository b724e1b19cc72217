// The memory plan at run time: results with and without it are identical, planned storage is
// shared inside a call and reused across calls (no new storage in steady state), and escaping
// results are fresh each call.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "test_util/reference_provider.h"
#include "rxt/exec/build.h"
#include "rxt/exec/vm_compiler.h"
#include "rxt/ir/parser.h"
#include "rxt/runtime/vm.h"
#include "rxt/support/c_status.h"
#include "test_util/seed_mlp_reference.h"

namespace rxt {
namespace {

using test::RandomTensor;

/// "test.plus_one": y = x + 1 (float32), remembering where each call wrote.
struct Recorder {
  std::vector<const void*> outputs;
};

rxt_status_t PlusOne(void* user_data, DLTensor* const* args, int num_args) {
  if (num_args != 2) return MakeCStatus(ErrorCode::kInvalidArgument, "test.plus_one takes 2 arguments");
  int64_t n = 1;
  for (int i = 0; i < args[1]->ndim; ++i) n *= args[1]->shape[i];
  const float* x = static_cast<const float*>(args[0]->data);
  float* y = static_cast<float*>(args[1]->data);
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] + 1;
  static_cast<Recorder*>(user_data)->outputs.push_back(args[1]->data);
  return nullptr;
}

constexpr const char* kChain = R"(
def @main(%x: Tensor((s, 4), float32)) -> Tensor((s, 4), float32) {
  %a = call_extern("test.plus_one", (%x,), out_sinfo=Tensor((s, 4), float32))
  %b = call_extern("test.plus_one", (%a,), out_sinfo=Tensor((s, 4), float32))
  %c = call_extern("test.plus_one", (%b,), out_sinfo=Tensor((s, 4), float32))
  %d = call_extern("test.plus_one", (%c,), out_sinfo=Tensor((s, 4), float32))
  return %d
})";

/// kChain with the batch dim |dim| ("3" for a static shape, "s" for a symbolic one).
std::string Chain(const std::string& dim) {
  std::string text = kChain;
  for (size_t at = 0; (at = text.find("(s, 4)", at)) != std::string::npos; at += dim.size() + 4) {
    text.replace(at, 6, "(" + dim + ", 4)");
  }
  return text;
}

class MemoryPlanRun : public ::testing::Test {
 protected:
  MemoryPlanRun() { externs_.Register("test.plus_one", PlusOne, &recorder_); }

  Tensor Ones(int64_t rows) {
    Tensor t = Tensor::Empty({rows, 4}, DType::kFloat32);
    for (int64_t i = 0; i < t.numel(); ++i) t.data_as<float>()[i] = 1;
    return t;
  }

  testing::ReferenceKernelProvider provider_;
  ExternRegistry externs_;
  Recorder recorder_;
};

TEST_F(MemoryPlanRun, StaticStorageIsSharedAndReusedAcrossCalls) {
  VirtualMachine vm(CompileToExecutable(ParseModule(Chain("3"))), provider_, externs_);
  EXPECT_EQ(vm.num_storage_allocations(), 0);
  Value y1 = vm.Invoke("main", {Value(Ones(3))});
  EXPECT_EQ(y1.tensor().data_as<float>()[5], 5.0f);
  EXPECT_EQ(vm.num_storage_allocations(), 2);  // the arena, and the result
  std::vector<const void*> first = recorder_.outputs;
  ASSERT_EQ(first.size(), 4u);
  EXPECT_EQ(first[0], first[2]) << "a and c share storage";
  EXPECT_NE(first[0], first[1]);

  recorder_.outputs.clear();
  Value y2 = vm.Invoke("main", {Value(Ones(3))});
  EXPECT_EQ(vm.num_storage_allocations(), 3) << "a steady-state call allocates only its result";
  ASSERT_EQ(recorder_.outputs.size(), 4u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(recorder_.outputs[i], first[i]) << "planned tensor " << i;
  EXPECT_NE(y2.tensor().data(), y1.tensor().data()) << "each call returns a tensor of its own";
  EXPECT_TRUE(BitwiseEqual(y1, y2));
  EXPECT_EQ(y1.tensor().data_as<float>()[0], 5.0f) << "the first result was not overwritten";
}

TEST_F(MemoryPlanRun, SymbolicStorageIsReusedWhileTheDimsRepeat) {
  VirtualMachine vm(CompileToExecutable(ParseModule(Chain("s"))), provider_, externs_);
  vm.Invoke("main", {Value(Ones(2))});
  EXPECT_EQ(vm.num_storage_allocations(), 3);  // two reuse slots and the result
  std::vector<const void*> first = recorder_.outputs;
  EXPECT_EQ(first[0], first[2]);
  recorder_.outputs.clear();
  vm.Invoke("main", {Value(Ones(2))});
  EXPECT_EQ(vm.num_storage_allocations(), 3) << "the dropped result of the first call is recycled";
  for (int i = 0; i < 3; ++i) EXPECT_EQ(recorder_.outputs[i], first[i]) << "planned tensor " << i;
  // New dims: the slots are filled again once, then stay; so does the result's storage.
  Value y = vm.Invoke("main", {Value(Ones(5))});
  EXPECT_EQ(vm.num_storage_allocations(), 6);
  EXPECT_EQ(y.tensor().shape(), (std::vector<int64_t>{5, 4}));
  EXPECT_EQ(y.tensor().data_as<float>()[19], 5.0f);
  vm.Invoke("main", {Value(Ones(5))});
  EXPECT_EQ(vm.num_storage_allocations(), 7) << "y is held: a second result buffer";
  vm.Invoke("main", {Value(Ones(5))});
  EXPECT_EQ(vm.num_storage_allocations(), 7);
  EXPECT_EQ(y.tensor().data_as<float>()[19], 5.0f) << "a held result is never written again";
}

// A view shares its tensor's storage (no copy) and keeps it from being reused while the view
// is read: %b would otherwise take %a's place and overwrite what %v shows.
TEST_F(MemoryPlanRun, AViewSharesStorageAndKeepsItAlive) {
  VirtualMachine vm(CompileToExecutable(ParseModule(R"(
def @main(%x: Tensor((3, 4), float32)) -> Tensor((12,), float32) {
  %a = call_extern("test.plus_one", (%x,), out_sinfo=Tensor((3, 4), float32))
  %v = view(%a, out_sinfo=Tensor((12,), float32))
  %b = call_extern("test.plus_one", (%x,), out_sinfo=Tensor((3, 4), float32))
  %c = call_extern("test.plus_one", (%b,), out_sinfo=Tensor((3, 4), float32))
  %w = view(%c, out_sinfo=Tensor((12,), float32))
  %d = call_extern("test.plus_one", (%v,), out_sinfo=Tensor((12,), float32))
  return %d
})")),
                    provider_, externs_);
  for (int call = 0; call < 3; ++call) {
    recorder_.outputs.clear();
    Value y = vm.Invoke("main", {Value(Ones(3))});
    EXPECT_EQ(y.tensor().shape(), (std::vector<int64_t>{12}));
    for (int64_t i = 0; i < 12; ++i) ASSERT_EQ(y.tensor().data_as<float>()[i], 3.0f) << "call " << call << ", " << i;
    ASSERT_EQ(recorder_.outputs.size(), 4u);
    EXPECT_NE(recorder_.outputs[1], recorder_.outputs[0]) << "b must not take a's storage while v is alive";
    EXPECT_NE(recorder_.outputs[2], recorder_.outputs[0]) << "c must not take a's storage while v is alive";
  }
  EXPECT_EQ(vm.num_storage_allocations(), 2) << "the arena and one result buffer (each result is dropped before the next call)";
}

// A view of a symbolic tensor whose dims do not multiply out to the tensor's elements is an
// error at run time (the struct info could not tell), naming the function.
TEST_F(MemoryPlanRun, AViewOfTheWrongSizeIsAnError) {
  VirtualMachine vm(CompileToExecutable(ParseModule(R"(
def @main(%x: Tensor((n, 4), float32)) -> Tensor((n, 2), float32) {
  %v = view(%x, out_sinfo=Tensor((n, 2), float32))
  return %v
})")),
                    provider_, externs_);
  try {
    vm.Invoke("main", {Value(Ones(3))});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "main: a view of 12 elements cannot have 6");
  }
}

// A returned view escapes with its tensor: each call returns storage of its own, and the
// caller's view is never written again.
TEST_F(MemoryPlanRun, AReturnedViewIsNeverOverwritten) {
  VirtualMachine vm(CompileToExecutable(ParseModule(R"(
def @main(%x: Tensor((3, 4), float32)) -> Tensor((12,), float32) {
  %a = call_extern("test.plus_one", (%x,), out_sinfo=Tensor((3, 4), float32))
  %v = view(%a, out_sinfo=Tensor((12,), float32))
  return %v
})")),
                    provider_, externs_);
  Value first = vm.Invoke("main", {Value(Ones(3))});
  Value second = vm.Invoke("main", {Value(Ones(3))});
  EXPECT_NE(first.tensor().data(), second.tensor().data());
  Tensor held = second.tensor();
  held.data_as<float>()[0] = 9.0f;
  vm.Invoke("main", {Value(Ones(3))});
  EXPECT_EQ(first.tensor().data_as<float>()[0], 2.0f);
  EXPECT_EQ(held.data_as<float>()[0], 9.0f);
}

TEST_F(MemoryPlanRun, WithoutAPlanEveryOutputHasStorageOfItsOwn) {
  VirtualMachine vm(CompileToExecutable(ParseModule(Chain("3")), {.backend = "", .plan_memory = false}), provider_,
                    externs_);
  vm.Invoke("main", {Value(Ones(3))});
  EXPECT_EQ(vm.num_storage_allocations(), 4);
  std::vector<const void*> outputs = recorder_.outputs;
  ASSERT_EQ(outputs.size(), 4u);
  for (size_t i = 0; i < outputs.size(); ++i) {
    for (size_t j = 0; j < i; ++j) EXPECT_NE(outputs[i], outputs[j]) << i << ", " << j;
  }
  // Nothing outside the VM holds them after the call: the next call recycles them.
  vm.Invoke("main", {Value(Ones(3))});
  EXPECT_EQ(vm.num_storage_allocations(), 4);
}

TEST_F(MemoryPlanRun, ResultsAreIdenticalWithAndWithoutThePlan) {
  // The seed MLP at a small size (batch 4, 20-16-16-10), fused and planned or neither.
  const std::string mlp = R"(
def @main(%x: Tensor((4, 20), float32), %w0: Tensor((20, 16), float32), %b0: Tensor((16,), float32),
          %w1: Tensor((16, 16), float32), %b1: Tensor((16,), float32), %w2: Tensor((16, 10), float32),
          %b2: Tensor((10,), float32)) -> Tensor((4, 10), float32) {
  dataflow {
    %lv0 = matmul(%x, %w0)
    %lv1 = add(%lv0, %b0)
    %lv2 = nn.relu(%lv1)
    %lv3 = matmul(%lv2, %w1)
    %lv4 = add(%lv3, %b1)
    %lv5 = nn.relu(%lv4)
    %lv6 = matmul(%lv5, %w2)
    %out = add(%lv6, %b2)
    output %out
  }
  return %out
})";
  std::mt19937 rng(3);
  std::vector<Value> args;
  for (std::vector<int64_t> shape :
       std::vector<std::vector<int64_t>>{{4, 20}, {20, 16}, {16}, {16, 16}, {16}, {16, 10}, {10}}) {
    args.push_back(Value(RandomTensor(shape, rng)));
  }
  IRModule legal = LowerForBuild(ParseModule(mlp), {.backend = "reference", .opt_level = 0});
  VirtualMachine planned(CompileToExecutable(legal, {.backend = "reference", .plan_memory = true}), provider_);
  VirtualMachine unplanned(CompileToExecutable(legal, {.backend = "reference", .plan_memory = false}), provider_);
  VirtualMachine optimized(Build(ParseModule(mlp), {.backend = "reference", .opt_level = 2}), provider_);
  Value expected = unplanned.Invoke("main", args);
  for (int call = 0; call < 2; ++call) {
    EXPECT_TRUE(BitwiseEqual(planned.Invoke("main", args), expected)) << "call " << call;
    EXPECT_TRUE(BitwiseEqual(optimized.Invoke("main", args), expected)) << "call " << call;
  }
  // Unfused: the 7 intermediates fit in an arena of 2 tensors' worth (they die one by one).
  const VMFunction& f = planned.executable().functions[0];
  EXPECT_EQ(f.arena_tensors.size(), 7u);
  EXPECT_EQ(f.arena_bytes, 2 * 4 * 16 * 4);
}

TEST_F(MemoryPlanRun, CalleesPlanTheirOwnFrames) {
  // @layer runs twice at call depth 1, reusing its frame's arena; its result escapes to main.
  VirtualMachine vm(CompileToExecutable(ParseModule(R"(
def @layer(%x: Tensor((3, 4), float32)) -> Tensor((3, 4), float32) {
  %a = call_extern("test.plus_one", (%x,), out_sinfo=Tensor((3, 4), float32))
  %b = call_extern("test.plus_one", (%a,), out_sinfo=Tensor((3, 4), float32))
  return %b
}

def @main(%x: Tensor((3, 4), float32)) -> Tensor((3, 4), float32) {
  %y = @layer(%x)
  %z = @layer(%y)
  return %z
})")),
                    provider_, externs_);
  Value z = vm.Invoke("main", {Value(Ones(3))});
  EXPECT_EQ(z.tensor().data_as<float>()[11], 5.0f);
  // @layer's arena (1) and two results; main's %y is a callee result, main has no arena.
  EXPECT_EQ(vm.num_storage_allocations(), 3);
  ASSERT_EQ(recorder_.outputs.size(), 4u);
  EXPECT_EQ(recorder_.outputs[0], recorder_.outputs[2]) << "%a of both calls";
  // %y's storage is recycled (main dropped it); z is held, so the second @layer call's result
  // takes new storage.
  vm.Invoke("main", {Value(Ones(3))});
  EXPECT_EQ(vm.num_storage_allocations(), 4);
  EXPECT_EQ(z.tensor().data_as<float>()[11], 5.0f);
}

}  // namespace
}  // namespace rxt
