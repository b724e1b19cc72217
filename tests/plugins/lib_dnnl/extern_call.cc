#include "extern_call.h"

#include <gtest/gtest.h>

#include <cmath>

#include "rxt/plugin/plugin_host.h"
#include "rxt/runtime/dlpack.h"
#include "rxt/runtime/extern.h"
#include "rxt/support/error.h"

namespace rxt::test {

void CallExtern(const std::string& name, const std::vector<Tensor>& args) {
  PluginHost::Global().Load(RXT_LIB_DNNL_PLUGIN);
  ExternFunction f = ExternRegistry::Global().Find(name);
  if (!f) throw std::runtime_error("extern function " + name + " is not registered");
  std::vector<DLTensor> views;
  for (const Tensor& t : args) views.push_back(ToDLTensorView(t));
  std::vector<DLTensor*> pointers;
  for (DLTensor& v : views) pointers.push_back(&v);
  f(pointers.data(), static_cast<int>(pointers.size()));
}

std::string CallExternError(const std::string& name, const std::vector<Tensor>& args) {
  try {
    CallExtern(name, args);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

Tensor IntScalar(int64_t v) { return Tensor::FromVector<int64_t>({}, DType::kInt64, {v}); }

void ExpectClose(const Tensor& got, const std::vector<double>& expected, double tolerance) {
  ASSERT_EQ(got.numel(), static_cast<int64_t>(expected.size()));
  for (size_t i = 0; i < expected.size(); ++i) {
    ASSERT_NEAR(got.data_as<float>()[i], expected[i], tolerance * (1 + std::abs(expected[i]))) << "at " << i;
  }
}

}  // namespace rxt::test
