#include "core/transform/legalize/numeric/backend_conformance.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>

#include "rxt/plugin/plugin_host.h"
#include "rxt/plugin/plugin_kernel_provider.h"
#include "rxt/runtime/dlpack.h"
#include "rxt/runtime/tensor.h"

namespace rxt::numeric {
namespace {

struct Backends {
  std::vector<std::string> names;
  std::map<std::string, int> checked;
  // Compiled kernels by backend and bytes: tests run one kernel on many inputs.
  std::map<std::pair<std::string, std::vector<uint8_t>>, std::unique_ptr<Kernel>> kernels;
};

Backends& State() {
  static Backends* state = [] {
    auto* s = new Backends();
    // Every backend plugin of this build, except the reference (it is the oracle).
    for (const auto& entry : std::filesystem::directory_iterator(RXT_BUILD_PLUGIN_DIR)) {
      std::string file = entry.path().filename().string();
      if (file.rfind("rxt_backend_", 0) != 0 || file == "rxt_backend_reference.so") continue;
      PluginInfo info = PluginHost::Global().Load(entry.path().string());
      for (const std::string& name : info.items[static_cast<size_t>(PluginItemKind::kBackend)]) s->names.push_back(name);
    }
    return s;
  }();
  return *state;
}

size_t ElementCount(const DLTensor& t) {
  size_t n = 1;
  for (int i = 0; i < t.ndim; ++i) n *= static_cast<size_t>(t.shape[i]);
  return n;
}

double ElementAt(const Tensor& t, size_t i) { return t.GetAsDouble(static_cast<int64_t>(i)); }

}  // namespace

std::vector<std::string> ConformanceBackends() { return State().names; }
const std::map<std::string, int>& KernelsCheckedPerBackend() { return State().checked; }

void CheckKernelOnEveryBackend(const std::string& name, const std::vector<uint8_t>& bytes,
                               const std::vector<DLTensor>& args, size_t num_outputs) {
  Backends& state = State();
  for (const std::string& backend : state.names) {
    std::unique_ptr<Kernel>& kernel = state.kernels[{backend, bytes}];
    if (!kernel) kernel = PluginKernelProvider::Find(backend).Load(KernelRecord{name, bytes, ""});
    // Inputs are shared (kernels do not write them); outputs are fresh, filled with garbage.
    std::vector<DLTensor> mine = args;
    std::vector<Tensor> outputs;
    size_t first_output = args.size() - num_outputs;
    for (size_t i = first_output; i < args.size(); ++i) {
      const DLTensor& ref = args[i];
      Tensor out = Tensor::Empty(std::vector<int64_t>(ref.shape, ref.shape + ref.ndim), FromDLDataType(ref.dtype));
      std::memset(out.data(), 0x7f, out.nbytes());
      outputs.push_back(out);
      mine[i] = ToDLTensorView(outputs.back());
    }
    std::vector<DLTensor*> pointers;
    for (DLTensor& t : mine) pointers.push_back(&t);
    try {
      kernel->Call(pointers.data(), static_cast<int>(pointers.size()));
    } catch (const std::exception& e) {
      ADD_FAILURE() << "backend '" << backend << "' failed on kernel '" << name << "': " << e.what();
      continue;
    }
    for (size_t o = 0; o < num_outputs; ++o) {
      const DLTensor& ref = args[first_output + o];
      Tensor expected = Tensor::FromBytes(std::vector<int64_t>(ref.shape, ref.shape + ref.ndim), FromDLDataType(ref.dtype),
                                          ref.data, outputs[o].nbytes());
      DType dtype = expected.dtype();
      bool is_float = dtype == DType::kFloat16 || dtype == DType::kBFloat16 || dtype == DType::kFloat32 || dtype == DType::kFloat64;
      double rtol = dtype == DType::kFloat16 || dtype == DType::kBFloat16 ? 1e-2 : dtype == DType::kFloat32 ? 2e-5 : 1e-12;
      size_t n = ElementCount(ref);
      int reported = 0;
      for (size_t i = 0; i < n && reported < 5; ++i) {
        double want = ElementAt(expected, i), got = ElementAt(outputs[o], i);
        bool same = is_float ? (std::isnan(want) ? std::isnan(got)
                                                 : (want == got || std::abs(got - want) <= rtol * (1 + std::abs(want))))
                             : want == got;
        if (!same) {
          ADD_FAILURE() << "backend '" << backend << "', kernel '" << name << "', output " << o << ", element " << i
                        << ": " << got << ", reference " << want;
          ++reported;
        }
      }
    }
    state.checked[backend]++;
  }
}

}  // namespace rxt::numeric
