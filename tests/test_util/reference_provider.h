// A KernelProvider for tests: decodes each kernel record and runs it with the reference
// interpreter (the real reference backend plugin wraps the same interpreter).
#pragma once

#include "rxt/runtime/kernel.h"

namespace rxt::testing {

class ReferenceKernelProvider : public KernelProvider {
 public:
  std::string name() const override { return "reference"; }
  std::unique_ptr<Kernel> Load(const KernelRecord& record) override;
};

}  // namespace rxt::testing
