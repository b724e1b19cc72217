// The plugin entry of rxt_lib_dnnl: registers the dnnl.* extern functions and sizes oneDNN's
// OpenMP pool like rxt's own (RXT_NUM_THREADS, through the host's kernel runtime).
#include <omp.h>

#include <atomic>
#include <cstdio>
#include <exception>

#include "host_threads.h"
#include "externs.h"
#include "rxt/plugin.h"

namespace {

using ExternBody = void (*)(void* const* args, int num_args);

// rxt's thread count (0: not known). OpenMP keeps the team size per calling thread, and the VM
// may call from any thread, so each call sets it where it differs (one compare when it does not).
std::atomic<int> g_num_threads{0};

void FollowHostThreads() {
  int n = g_num_threads.load(std::memory_order_relaxed);
  if (n > 0 && omp_get_max_threads() != n) omp_set_num_threads(n);
}

template <ExternBody kBody>
int CallExtern(void* const* args, int num_args, void* /*user_data*/, char* error, size_t error_size) {
  try {
    FollowHostThreads();
    kBody(args, num_args);
    return 0;
  } catch (const std::exception& e) {
    std::snprintf(error, error_size, "%s", e.what());
  } catch (...) {
    std::snprintf(error, error_size, "unknown failure");
  }
  return 1;
}

struct ExternEntry {
  const char* name;
  int (*function)(void* const*, int, void*, char*, size_t);
};

constexpr ExternEntry kExterns[] = {
    {"dnnl.matmul", CallExtern<rxt::lib_dnnl::Matmul>},
    {"dnnl.matmul_bias", CallExtern<rxt::lib_dnnl::MatmulBias>},
    {"dnnl.conv2d", CallExtern<rxt::lib_dnnl::Conv2d>},
    {"dnnl.conv2d_bias", CallExtern<rxt::lib_dnnl::Conv2dBias>},
    {"dnnl.conv2d_pool", CallExtern<rxt::lib_dnnl::Conv2dPool>},
    {"dnnl.conv2d_bias_pool", CallExtern<rxt::lib_dnnl::Conv2dBiasPool>},
    {"dnnl.conv2d_backward_data", CallExtern<rxt::lib_dnnl::Conv2dBackwardData>},
    {"dnnl.conv2d_backward_weights", CallExtern<rxt::lib_dnnl::Conv2dBackwardWeights>},
    {"dnnl.conv2d_backward_weights_bias", CallExtern<rxt::lib_dnnl::Conv2dBackwardWeightsBias>},
    {"dnnl.max_pool2d", CallExtern<rxt::lib_dnnl::MaxPool2d>},
    {"dnnl.max_pool2d_backward", CallExtern<rxt::lib_dnnl::MaxPool2dBackward>},
};

const rxt_plugin_descriptor_t kPlugin = {
    sizeof(rxt_plugin_descriptor_t), RXT_PLUGIN_ABI_VERSION, "lib_dnnl", "1.0.0",
    "GEMM and convolution from oneDNN as extern functions (dnnl.matmul, dnnl.conv2d, ...)",
    nullptr, 0, nullptr, 0, nullptr, 0, nullptr, 0};

}  // namespace

RXT_PLUGIN_EXPORT const rxt_plugin_descriptor_t* rxt_plugin_entry(uint32_t host_abi_version,
                                                                  const rxt_host_api_t* host) {
  if (host_abi_version < RXT_PLUGIN_ABI_VERSION || host == nullptr) return nullptr;
  if (!RXT_HOST_API_HAS(host, register_extern)) {
    if (host->log) host->log(host->host, RXT_LOG_ERROR, "this host cannot register extern functions (too old)");
    return nullptr;
  }
  for (const ExternEntry& e : kExterns) {
    if (host->register_extern(host->host, e.name, e.function, nullptr) != RXT_OK) return &kPlugin;  // host reports it
  }
  if (RXT_HOST_API_HAS(host, kernel_runtime) && host->kernel_runtime != nullptr) {
    g_num_threads.store(host->kernel_runtime->num_threads, std::memory_order_relaxed);
    rxt::lib_dnnl::SetHostRuntime(host->kernel_runtime);
  }
  return &kPlugin;
}
