// A KernelProvider backed by a backend that a loaded plugin registered (rxt_backend_t in
// rxt/plugin.h): the VM's kernels are the plugin's handles, called through its C callbacks.
//
//   PluginHost::Global().Load(".../rxt_backend_reference.so");
//   PluginKernelProvider provider = PluginKernelProvider::Find("reference");
//   VirtualMachine vm(Executable::Load("model.rxtx"), provider);
#pragma once

#include <string>

#include "rxt/plugin/plugin_host.h"
#include "rxt/runtime/kernel.h"

namespace rxt {

class PluginKernelProvider : public KernelProvider {
 public:
  /// The backend called |name| among the plugins |host| has loaded. Throws kNotFound naming it
  /// and listing the loaded backends, kFailedPrecondition for a backend known by name only (no
  /// rxt_backend_t) and kInvalidArgument for a malformed rxt_backend_t.
  static PluginKernelProvider Find(const std::string& name, const PluginHost& host = PluginHost::Global());
  /// |item| is a backend item; checked as in Find.
  explicit PluginKernelProvider(PluginItem item);

  std::string name() const override { return item_.name; }
  /// Throws kDataLoss ("backend 'reference': kernel 'relu0': <the plugin's message>") if the
  /// plugin cannot load the kernel. The kernel keeps the plugin loaded; calling it throws
  /// kInvalidArgument naming the backend and kernel if the plugin reports an error.
  std::unique_ptr<Kernel> Load(const KernelRecord& record) override;
  /// The backend's RXT_BACKEND_CONCURRENT_LOAD flag.
  bool ConcurrentLoads() const override;

  const PluginItem& item() const { return item_; }

 private:
  PluginItem item_;
  const rxt_backend_t* backend_ = nullptr;
};

}  // namespace rxt
