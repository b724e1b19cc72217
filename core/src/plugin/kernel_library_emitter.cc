#include "rxt/plugin/kernel_library_emitter.h"

#include <filesystem>

#include "rxt/plugin.h"
#include "rxt/plugin/plugin_kernel_provider.h"
#include "rxt/support/c_status.h"
#include "rxt/support/error.h"

namespace rxt {

void EmitKernelLibrary(Executable& exec, const std::string& path, PluginHost& host) {
  const std::string backend_name = exec.backend.empty() ? "cpu" : exec.backend;
  if (!host.Find(PluginItemKind::kBackend, backend_name)) host.LoadSearchPath();
  // Find checks the backend's table (and names the loaded backends if it is missing).
  PluginKernelProvider provider = PluginKernelProvider::Find(backend_name, host);
  const rxt_backend_t& backend = *provider.item().backend;
  if (!RXT_VTABLE_HAS(rxt_backend_t, &backend, emit_library) || backend.emit_library == nullptr) {
    Throw(ErrorCode::kFailedPrecondition, "backend '", backend_name,
          "' cannot compile kernels ahead of time (its plugin offers no emit_library); use a backend that can, such "
          "as cpu");
  }
  std::vector<std::string> symbols;
  std::vector<rxt_aot_kernel_t> kernels;
  for (size_t i = 0; i < exec.kernels.size(); ++i) symbols.push_back(StrCat("rxt_aot_kernel_", i));
  for (size_t i = 0; i < exec.kernels.size(); ++i) {
    const KernelRecord& k = exec.kernels[i];
    kernels.push_back({k.name.c_str(), k.portable.data(), k.portable.size(), symbols[i].c_str()});
  }
  std::string absolute = std::filesystem::absolute(path).lexically_normal().string();
  ThrowIfFailed(backend.emit_library(backend.state, kernels.data(), kernels.size(), absolute.c_str()),
                StrCat("backend '", backend_name, "': cannot build the kernel library '", path, "'"));
  for (size_t i = 0; i < exec.kernels.size(); ++i) exec.kernels[i].aot_symbol = symbols[i];
  exec.aot_library = absolute;
}

}  // namespace rxt
