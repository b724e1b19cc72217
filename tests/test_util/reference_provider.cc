#include "test_util/reference_provider.h"

#include "reference_interpreter.h"
#include "rxt/support/error.h"

namespace rxt::testing {
namespace {

using backend_reference::KernelArg;
using backend_reference::KernelError;
using backend_reference::ReferenceInterpreter;

class ReferenceKernel : public Kernel {
 public:
  explicit ReferenceKernel(ReferenceInterpreter interpreter) : interpreter_(std::move(interpreter)) {}

  void Call(DLTensor* const* args, int num_args) override {
    const auto& params = interpreter_.kernel().params;
    if (num_args != static_cast<int>(params.size())) {
      Throw(ErrorCode::kInvalidArgument, "expected ", params.size(), " arguments, got ", num_args);
    }
    std::vector<KernelArg> kernel_args(num_args);
    for (int i = 0; i < num_args; ++i) {
      const DLTensor* t = args[i];
      if (params[i].kind == plugin_support::kernel_format::ParamKind::kScalar) {
        if (t->ndim != 0) Throw(ErrorCode::kInvalidArgument, "scalar argument ", i, " is not a 0-d tensor");
        kernel_args[i] = t->dtype.code == kDLFloat ? KernelArg::Float(*static_cast<const double*>(t->data))
                                                   : KernelArg::Int(*static_cast<const int64_t*>(t->data));
      } else {
        kernel_args[i] = KernelArg::Tensor(t);
      }
    }
    try {
      interpreter_.Run(kernel_args);
    } catch (const KernelError& e) {
      Throw(ErrorCode::kInvalidArgument, e.what());
    }
  }

 private:
  ReferenceInterpreter interpreter_;
};

}  // namespace

std::unique_ptr<Kernel> ReferenceKernelProvider::Load(const KernelRecord& record) {
  try {
    return std::make_unique<ReferenceKernel>(
        ReferenceInterpreter::FromBytes(record.portable.data(), record.portable.size()));
  } catch (const KernelError& e) {
    Throw(ErrorCode::kDataLoss, "kernel '", record.name, "': ", e.what());
  }
}

}  // namespace rxt::testing
