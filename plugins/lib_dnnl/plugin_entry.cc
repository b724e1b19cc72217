// The plugin entry of rxt_lib_dnnl: the dnnl.* extern functions, the kernel library "dnnl" whose
// patterns call them (patterns.h), and oneDNN's OpenMP pool sized like rxt's own
// (RXT_NUM_THREADS, through the host's kernel runtime).
#include <omp.h>
#include <rxt/plugin.h>
#include <rxt/plugin_support/host.h>

#include <array>
#include <atomic>
#include <exception>

#include "externs.h"
#include "host_threads.h"
#include "patterns.h"

namespace {

using rxt::plugin_support::MakeStatus;
using ExternBody = void (*)(void* const* args, int num_args);

// OpenMP keeps the team size per calling thread, and the VM may call from any thread (and from
// contexts of different sizes), so each call follows the calling thread's pool where it differs
// (one compare when it does not).
void FollowHostThreads() {
  if (rxt::lib_dnnl::HostRuntime() == nullptr) return;
  int n = rxt::lib_dnnl::HostThreads();
  if (omp_get_max_threads() != n) omp_set_num_threads(n);
}

// |kBody| as an rxt_extern_fn_t: what it throws becomes a status.
template <ExternBody kBody>
rxt_status_t CallExtern(void* /*state*/, DLTensor* const* args, int num_args) {
  try {
    FollowHostThreads();
    // DLTensor* and void* share their representation: the array is passed as it is.
    kBody(reinterpret_cast<void* const*>(args), num_args);
    return nullptr;
  } catch (const std::exception& e) {
    return MakeStatus(RXT_INVALID_ARGUMENT, e.what());
  } catch (...) {
    return MakeStatus(RXT_INTERNAL, "unknown failure");
  }
}

#define RXT_DNNL_EXTERN(name, summary, body) \
  rxt_extern_t { sizeof(rxt_extern_t), name, summary, nullptr, &CallExtern<body> }

using namespace rxt::lib_dnnl;
const rxt_extern_t kExterns[] = {
    RXT_DNNL_EXTERN("dnnl.matmul", "matmul(a, b, flags, out)", Matmul),
    RXT_DNNL_EXTERN("dnnl.matmul_bias", "matmul(a, b) + bias", MatmulBias),
    RXT_DNNL_EXTERN("dnnl.conv2d", "conv2d (NCHW, OIHW), optionally with ReLU", Conv2d),
    RXT_DNNL_EXTERN("dnnl.conv2d_bias", "conv2d + bias, optionally with ReLU", Conv2dBias),
    RXT_DNNL_EXTERN("dnnl.conv2d_pool", "conv2d, then max pooling", Conv2dPool),
    RXT_DNNL_EXTERN("dnnl.conv2d_bias_pool", "conv2d + bias, then max pooling", Conv2dBiasPool),
    RXT_DNNL_EXTERN("dnnl.conv2d_backward_data", "the gradient of conv2d for its data", Conv2dBackwardData),
    RXT_DNNL_EXTERN("dnnl.conv2d_backward_weights", "the gradient of conv2d for its weights", Conv2dBackwardWeights),
    RXT_DNNL_EXTERN("dnnl.conv2d_backward_weights_bias", "the gradients of conv2d for its weights and bias",
                    Conv2dBackwardWeightsBias),
    RXT_DNNL_EXTERN("dnnl.max_pool2d", "max pooling whose windows tile the input", MaxPool2d),
    RXT_DNNL_EXTERN("dnnl.max_pool2d_strided", "max pooling with any undilated windows", MaxPool2dStrided),
    RXT_DNNL_EXTERN("dnnl.max_pool2d_backward", "the gradient of dnnl.max_pool2d (ReLU folded in)",
                    MaxPool2dBackward),
    RXT_DNNL_EXTERN("dnnl.max_pool2d_backward_strided",
                    "the gradient of a max pooling with any undilated windows (ReLU folded in)",
                    MaxPool2dBackwardStrided),
    RXT_DNNL_EXTERN("dnnl.softmax", "softmax along one axis", Softmax),
};
constexpr size_t kNumExterns = sizeof(kExterns) / sizeof(kExterns[0]);

const rxt_extern_t* const* AllExterns() {
  static const std::array<const rxt_extern_t*, kNumExterns> all = [] {
    std::array<const rxt_extern_t*, kNumExterns> pointers{};
    for (size_t i = 0; i < kNumExterns; ++i) pointers[i] = &kExterns[i];
    return pointers;
  }();
  return all.data();
}

}  // namespace

RXT_PLUGIN_EXPORT const rxt_plugin_descriptor_t* rxt_plugin_entry(uint32_t host_abi_version,
                                                                  const rxt_host_api_t* host) {
  if (!rxt::plugin_support::ConnectHost(host_abi_version, host, "lib_dnnl")) return nullptr;
  if (host->kernel_runtime != nullptr) rxt::lib_dnnl::SetHostRuntime(host->kernel_runtime);
  static const rxt_library_t* const libraries[] = {rxt::lib_dnnl::DnnlLibrary()};
  static const rxt_plugin_descriptor_t descriptor = {
      sizeof(rxt_plugin_descriptor_t), RXT_PLUGIN_ABI_VERSION, "lib_dnnl", "1.0.0",
      "GEMM and convolution from oneDNN: extern functions (dnnl.matmul, dnnl.conv2d, ...) and the library dnnl",
      nullptr, 0,                  // optimizers
      nullptr, 0,                  // losses
      nullptr, 0,                  // gradient rules
      nullptr, 0,                  // backends
      AllExterns(), kNumExterns,   // extern functions
      nullptr, 0,                  // ops
      libraries, 1};               // kernel libraries
  return &descriptor;
}
