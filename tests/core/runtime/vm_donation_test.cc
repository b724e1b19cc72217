// Donated inputs (docs/vm.md): an escaping kernel output may take the storage of an argument
// the kernel can overwrite element by element, when the caller gave the VM the only reference
// and nothing reads the argument after the call.
#include <gtest/gtest.h>

#include "rxt/exec/vm_compiler.h"
#include "rxt/ir/parser.h"
#include "rxt/runtime/vm.h"
#include "rxt/support/c_status.h"
#include "test_util/reference_provider.h"

namespace rxt {
namespace {

const char* kKernel = R"(
kernel @step(x: Buffer((3, 4), float32), g: Buffer((3, 4), float32), y: Buffer((3, 4), float32)) {
  for i in range(3) {
    for j in range(4) {
      block y(vi = i, vj = j) {
        y[vi, vj] = x[vi, vj] - g[vi, vj]
      }
    }
  }
}
)";

Executable Compile(const std::string& function) { return CompileToExecutable(ParseModule(kKernel + function)); }

Tensor Filled(float value) {
  Tensor t = Tensor::Empty({3, 4}, DType::kFloat32);
  for (int64_t i = 0; i < t.numel(); ++i) t.data_as<float>()[i] = value + static_cast<float>(i);
  return t;
}

const char* kReturnsTheStep = R"(
def @main(%x: Tensor((3, 4), float32), %g: Tensor((3, 4), float32)) -> Tensor((3, 4), float32) {
  %y = call_kernel(@step, (%x, %g), out_sinfo=Tensor((3, 4), float32))
  return %y
}
)";

TEST(Donation, TheOutputTakesAnArgumentOnlyTheVmHolds) {
  Executable exec = Compile(kReturnsTheStep);
  EXPECT_NE(exec.Disassemble().find("donor r0"), std::string::npos) << exec.Disassemble();
  testing::ReferenceKernelProvider provider;
  VirtualMachine vm(exec, provider);

  Tensor x = Filled(10), g = Filled(1);
  const void* storage = x.data();
  std::vector<Value> args = {Value(std::move(x)), Value(g)};
  Tensor y = vm.InvokeTakingArguments("main", args).tensor();
  EXPECT_TRUE(args.empty());
  EXPECT_EQ(y.data(), storage) << "written over x";
  EXPECT_EQ(y.data_as<float>()[5], 9.0f);
  EXPECT_EQ(vm.num_donated(), 1);
  EXPECT_EQ(vm.num_storage_allocations(), 0);

  // A caller that keeps x (its Value, or a tensor sharing the storage) keeps its values; so
  // does one calling Invoke, which never hands its arguments' storage over.
  Tensor kept = Filled(10);
  std::vector<Value> held = {Value(kept), Value(g)};
  Tensor y2 = vm.InvokeTakingArguments("main", held).tensor();
  Tensor y3 = vm.Invoke("main", {Value(Filled(10)), Value(g)}).tensor();
  EXPECT_NE(y3.data(), nullptr);
  EXPECT_NE(y2.data(), kept.data());
  EXPECT_EQ(kept.data_as<float>()[5], 15.0f);
  EXPECT_EQ(y2.data_as<float>()[5], 9.0f);
  EXPECT_EQ(vm.num_donated(), 1);
}

TEST(Donation, NoDonorWhereTheArgumentIsReadAfterOrNotAnArgument) {
  // x is returned too: the step must not overwrite it.
  Executable reread = Compile(R"(
def @main(%x: Tensor((3, 4), float32), %g: Tensor((3, 4), float32)) -> Tuple(Tensor((3, 4), float32), Tensor((3, 4), float32)) {
  %y = call_kernel(@step, (%x, %g), out_sinfo=Tensor((3, 4), float32))
  %r = (%y, %x)
  return %r
}
)");
  EXPECT_EQ(reread.Disassemble().find("donor"), std::string::npos) << reread.Disassemble();
  // The first step's result is an intermediate (planned), the second's input: no donor for
  // either (a planned tensor's memory is the arena's), but g is an argument read once.
  Executable chained = Compile(R"(
def @main(%x: Tensor((3, 4), float32), %g: Tensor((3, 4), float32)) -> Tensor((3, 4), float32) {
  %y = call_kernel(@step, (%x, %g), out_sinfo=Tensor((3, 4), float32))
  %z = call_kernel(@step, (%y, %g), out_sinfo=Tensor((3, 4), float32))
  return %z
}
)");
  std::string listing = chained.Disassemble();
  EXPECT_EQ(listing.find("donor"), listing.rfind("donor")) << "one donor: " << listing;
  EXPECT_NE(listing.find("donor r1"), std::string::npos) << listing;
  testing::ReferenceKernelProvider provider;
  VirtualMachine vm(chained, provider);
  Tensor g = Filled(1);
  const void* storage = g.data();
  std::vector<Value> args = {Value(Filled(10)), Value(std::move(g))};
  Tensor z = vm.InvokeTakingArguments("main", args).tensor();
  EXPECT_EQ(z.data(), storage);
  EXPECT_EQ(z.data_as<float>()[5], 15.0f - 6.0f - 6.0f);  // (x - g) - g at element 5
}

TEST(Donation, TheLoaderRefusesADonorThatIsNotAnArgumentOfAnUnplannedTensor) {
  Executable exec = Compile(kReturnsTheStep);
  VMFunction& f = exec.functions[0];
  for (Instruction& ins : f.code) {
    if (ins.op == Opcode::kAllocTensor) ins.arg = f.num_registers - 1;  // not an argument
  }
  try {
    exec.Validate();
    FAIL() << "validated";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("storage to a tensor, but only an argument's can go to an unplanned one"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace rxt
