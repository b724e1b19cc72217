// A planned function's second call allocates nothing on the heap: this binary replaces the
// global operator new with one that counts while a call runs (tensor storage is counted by
// the VM itself: VirtualMachine::num_storage_allocations). A binary of its own, so that the
// replacement touches no other test.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "rxt/exec/vm_compiler.h"
#include "rxt/ir/parser.h"
#include "rxt/runtime/vm.h"
#include "rxt/support/c_status.h"

namespace {
std::atomic<bool> counting{false};
std::atomic<long> allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  if (counting.load(std::memory_order_relaxed)) allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
// The nothrow form too (std::stable_sort's temporary buffer uses it): every form of new must
// come from malloc, since every form of delete frees (AddressSanitizer checks the pairs).
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  if (counting.load(std::memory_order_relaxed)) allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size == 0 ? 1 : size);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace rxt {
namespace {

class NoKernels : public KernelProvider {
 public:
  std::string name() const override { return "none"; }
  std::unique_ptr<Kernel> Load(const KernelRecord& record) override {
    Throw(ErrorCode::kUnimplemented, "no kernel ", record.name);
  }
};

rxt_status_t PlusOne(void*, DLTensor* const* args, int) {
  int64_t n = 1;
  for (int i = 0; i < args[1]->ndim; ++i) n *= args[1]->shape[i];
  for (int64_t i = 0; i < n; ++i) {
    static_cast<float*>(args[1]->data)[i] = static_cast<const float*>(args[0]->data)[i] + 1;
  }
  return nullptr;
}

/// Heap allocations (operator new) during one call of |vm|'s main.
long CountedCall(VirtualMachine& vm, const std::vector<Value>& args) {
  allocations = 0;
  counting = true;
  Value result = vm.Invoke("main", args);
  counting = false;
  return allocations;
}

// The chain's intermediates are planned, one of them seen through a view (kept between
// calls); the function returns its parameter, so nothing escapes and nothing needs new storage
// or a new view after the first call.
void ExpectNoAllocationInSteadyState(const std::string& dims) {
  std::string text = R"(
def @main(%x: Tensor(DIMS, float32)) -> Tensor(DIMS, float32) {
  %a = call_extern("test.plus_one", (%x,), out_sinfo=Tensor(DIMS, float32))
  %b = call_extern("test.plus_one", (%a,), out_sinfo=Tensor(DIMS, float32))
  %c = call_extern("test.plus_one", (%b,), out_sinfo=Tensor(DIMS, float32))
  %v = view(%c, out_sinfo=Tensor(FLAT, float32))
  %d = call_extern("test.plus_one", (%v,), out_sinfo=Tensor(FLAT, float32))
  return %x
})";
  std::string flat = dims == "(3, 4)" ? "(12,)" : "(n * 4,)";
  for (size_t at; (at = text.find("DIMS")) != std::string::npos;) text.replace(at, 4, dims);
  for (size_t at; (at = text.find("FLAT")) != std::string::npos;) text.replace(at, 4, flat);
  ExternRegistry externs;
  externs.Register("test.plus_one", PlusOne, nullptr);
  NoKernels provider;
  VirtualMachine vm(CompileToExecutable(ParseModule(text)), provider, externs);
  std::vector<Value> args = {Value(Tensor::Empty({3, 4}, DType::kFloat32))};
  EXPECT_GT(CountedCall(vm, args), 0) << "the first call builds the frame";
  int64_t storage = vm.num_storage_allocations();
  EXPECT_EQ(CountedCall(vm, args), 0) << dims;
  EXPECT_EQ(CountedCall(vm, args), 0) << dims;
  EXPECT_EQ(vm.num_storage_allocations(), storage) << dims;
}

TEST(SteadyState, AStaticPlanAllocatesNothing) { ExpectNoAllocationInSteadyState("(3, 4)"); }

TEST(SteadyState, ReuseSlotsAllocateNothingWhileTheDimsRepeat) { ExpectNoAllocationInSteadyState("(n, 4)"); }

// An update step, the way the Trainer runs @train_step: the result replaces the argument of
// the next call. The escaping result is recycled: two buffers alternate, none is allocated
// in steady state, and a result the caller still holds is never written again.
TEST(SteadyState, ReturnedTensorsAreRecycledOnceTheCallerDropsThem) {
  ExternRegistry externs;
  externs.Register("test.plus_one", PlusOne, nullptr);
  NoKernels provider;
  VirtualMachine vm(CompileToExecutable(ParseModule(R"(
def @main(%x: Tensor((3, 4), float32)) -> Tensor((3, 4), float32) {
  %y = call_extern("test.plus_one", (%x,), out_sinfo=Tensor((3, 4), float32))
  return %y
})")),
                    provider, externs);
  std::vector<Value> args = {Value(Tensor::Empty({3, 4}, DType::kFloat32))};
  for (int step = 0; step < 3; ++step) args[0] = vm.Invoke("main", args);
  int64_t storage = vm.num_storage_allocations();
  EXPECT_EQ(storage, 2) << "two buffers alternate";
  const void* previous = args[0].tensor().data();
  for (int step = 3; step < 10; ++step) {
    args[0] = vm.Invoke("main", args);
    EXPECT_NE(args[0].tensor().data(), previous) << "the argument is not the output";
    previous = args[0].tensor().data();
  }
  EXPECT_EQ(vm.num_storage_allocations(), storage);
  EXPECT_EQ(args[0].tensor().data_as<float>()[5], 10.0f);

  // Held results (a Value, or a Tensor sharing the storage) are not recycled.
  Value held_value = args[0];
  Tensor held_tensor = vm.Invoke("main", args).tensor();
  for (int step = 0; step < 4; ++step) args[0] = vm.Invoke("main", args);
  EXPECT_EQ(held_value.tensor().data_as<float>()[5], 10.0f);
  EXPECT_EQ(held_tensor.data_as<float>()[5], 11.0f);
  EXPECT_EQ(args[0].tensor().data_as<float>()[5], 14.0f);
  EXPECT_GT(vm.num_storage_allocations(), storage) << "held tensors forced new storage";
}

TEST(SteadyState, TheCounterSeesAllocations) {
  counting = true;
  auto* p = new std::vector<int>(3);
  counting = false;
  EXPECT_GE(allocations.load(), 1);
  delete p;
}

}  // namespace
}  // namespace rxt
