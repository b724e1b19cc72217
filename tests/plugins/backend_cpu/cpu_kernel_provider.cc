#include "cpu_kernel_provider.h"

#include "rxt/support/error.h"

namespace rxt::backend_cpu::testing {
namespace {

class TestCpuKernel : public Kernel {
 public:
  TestCpuKernel(std::unique_ptr<CpuKernel> kernel, const rxt_kernel_runtime_t* runtime)
      : kernel_(std::move(kernel)), runtime_(runtime) {}
  void Call(DLTensor* const* args, int num_args) override {
    if (kernel_->Call(args, num_args, runtime_, error_) != RXT_OK) Throw(ErrorCode::kInvalidArgument, error_);
  }

 private:
  std::unique_ptr<CpuKernel> kernel_;
  const rxt_kernel_runtime_t* runtime_;
  std::string error_;
};

}  // namespace

std::unique_ptr<Kernel> CpuKernelProvider::Load(const KernelRecord& record) {
  try {
    std::unique_ptr<CpuKernel> kernel = CpuKernel::Load(TestJit(), record.portable.data(), record.portable.size());
    const CompileTimes& t = kernel->compile_times();
    compile_ms_ += t.codegen_ms + t.optimize_ms + t.machine_ms;
    return std::make_unique<TestCpuKernel>(std::move(kernel), runtime_);
  } catch (const std::exception& e) {
    Throw(ErrorCode::kDataLoss, "kernel '", record.name, "': ", e.what());
  }
}

}  // namespace rxt::backend_cpu::testing
