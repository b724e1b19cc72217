// An executable whose kernels were compiled ahead of time (`rxt build --emit-library`, run by
// the ctest fixture that produces RXT_AOT_EXECUTABLE) runs in a process that links only the
// runtime library: no compiler, no plugin host, no LLVM. The seed's MyModule equals plain C++,
// and /proc/self/maps shows that no LLVM library was ever mapped.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <string>

#include "rxt/runtime/aot_library.h"
#include "rxt/runtime/vm.h"
#include "test_util/seed_mlp_reference.h"

namespace rxt {
namespace {

std::string MappedFiles() {
  std::ifstream maps("/proc/self/maps");
  return std::string((std::istreambuf_iterator<char>(maps)), std::istreambuf_iterator<char>());
}

TEST(AotRuntimeOnly, MyModuleRunsWithoutLlvm) {
  Executable exec = Executable::Load(RXT_AOT_EXECUTABLE);
  ASSERT_FALSE(exec.aot_library.empty());
  AotKernelProvider kernels = AotKernelProvider::ForExecutable(exec);
  VirtualMachine vm(std::move(exec), kernels);
  for (unsigned seed : {1u, 2u, 3u}) {
    std::mt19937 rng(seed);
    Tensor x = test::RandomTensor({1, 784}, rng), w0 = test::RandomTensor({128, 784}, rng);
    Tensor b0 = test::RandomTensor({128}, rng), w1 = test::RandomTensor({10, 128}, rng), b1 = test::RandomTensor({10}, rng);
    std::vector<float> xs(x.data_as<float>(), x.data_as<float>() + 784);
    std::vector<float> expected = test::Linear(test::Linear(xs, w0, b0, true), w1, b1, false);
    Value y = vm.Invoke("main", {Value(x), Value(w0), Value(b0), Value(w1), Value(b1)});
    ASSERT_EQ(y.tensor().numel(), 10);
    for (int i = 0; i < 10; ++i) EXPECT_NEAR(y.tensor().data_as<float>()[i], expected[i], 1e-5) << i;
  }
  std::string maps = MappedFiles();
  EXPECT_NE(maps.find(kernels.path()), std::string::npos) << "the kernel library is not mapped";
  EXPECT_EQ(maps.find("libLLVM"), std::string::npos) << "LLVM is mapped into this process:\n" << maps;
}

}  // namespace
}  // namespace rxt
