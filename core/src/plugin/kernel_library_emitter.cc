#include "rxt/plugin/kernel_library_emitter.h"

#include <filesystem>

#include "rxt/plugin.h"
#include "rxt/plugin/plugin_kernel_provider.h"
#include "rxt/runtime/shared_object_check.h"
#include "rxt/support/c_status.h"
#include "rxt/support/error.h"

namespace rxt {

std::string AotTarget::Describe() const {
  if (IsThisMachine()) return "this machine";
  std::string details = cpu;
  if (!features.empty()) details += (details.empty() ? "" : ", ") + features;
  return StrCat(triple.empty() ? "this machine's architecture" : triple, details.empty() ? "" : StrCat(" (", details, ")"));
}

bool AotTarget::IsOtherArchitecture() const {
  if (triple.empty()) return false;
  std::string arch = triple.substr(0, triple.find('-'));
  if (arch == "arm64") arch = "aarch64";
  if (arch == "amd64") arch = "x86_64";
  return arch != ElfMachineName(ThisElfMachine());
}

void EmitKernelLibrary(Executable& exec, const std::string& path, PluginHost& host, const AotTarget& target) {
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
  const bool for_this_machine = target.IsThisMachine();
  if (!for_this_machine &&
      (!RXT_VTABLE_HAS(rxt_backend_t, &backend, emit_library_for) || backend.emit_library_for == nullptr)) {
    Throw(ErrorCode::kFailedPrecondition, "backend '", backend_name, "' cannot compile kernels for another machine (",
          target.Describe(), "): its plugin offers no emit_library_for");
  }
  std::vector<std::string> symbols;
  std::vector<rxt_aot_kernel_t> kernels;
  for (size_t i = 0; i < exec.kernels.size(); ++i) symbols.push_back(StrCat("rxt_aot_kernel_", i));
  for (size_t i = 0; i < exec.kernels.size(); ++i) {
    const KernelRecord& k = exec.kernels[i];
    kernels.push_back({k.name.c_str(), k.portable.data(), k.portable.size(), symbols[i].c_str()});
  }
  std::string absolute = std::filesystem::absolute(path).lexically_normal().string();
  const rxt_aot_target_t machine = {sizeof(rxt_aot_target_t), target.triple.c_str(), target.cpu.c_str(),
                                    target.features.c_str()};
  ThrowIfFailed(for_this_machine
                    ? backend.emit_library(backend.state, kernels.data(), kernels.size(), absolute.c_str())
                    : backend.emit_library_for(backend.state, kernels.data(), kernels.size(), &machine, absolute.c_str()),
                StrCat("backend '", backend_name, "': cannot build the kernel library '", path, "'",
                       for_this_machine ? "" : StrCat(" for ", target.Describe())));
  for (size_t i = 0; i < exec.kernels.size(); ++i) exec.kernels[i].aot_symbol = symbols[i];
  exec.aot_library = absolute;
}

}  // namespace rxt
