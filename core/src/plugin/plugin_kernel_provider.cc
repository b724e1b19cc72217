#include "rxt/plugin/plugin_kernel_provider.h"

#include <cstddef>
#include <cstring>
#include <utility>
#include <vector>

#include "rxt/support/c_status.h"
#include "rxt/support/error.h"
#include "rxt/support/message_text.h"

namespace rxt {
namespace {

// Longer messages from a backend are cut.
constexpr size_t kMessageLimit = 1000;

/// Takes a backend's status; throws its code and message after |context| when it is a failure.
void CheckBackendStatus(rxt_status_t status, const std::string& context) {
  CStatusPtr failure(status);
  if (failure == nullptr) return;
  ErrorCode code = ErrorCodeFromC(failure->code);
  const std::string& message = failure->message.empty() ? "failed without a message" : failure->message;
  Throw(code == ErrorCode::kOk ? ErrorCode::kUnknown : code, context, ": ", MessageText(message, kMessageLimit));
}

const rxt_backend_t& CheckedBackend(const PluginItem& item) {
  if (item.kind != PluginItemKind::kBackend) {
    Throw(ErrorCode::kInvalidArgument, "'", item.name, "' is a ", PluginItemKindName(item.kind), ", not a backend");
  }
  if (item.unusable) throw *item.unusable;
  if (item.backend == nullptr) {
    Throw(ErrorCode::kFailedPrecondition, "backend '", item.name, "' (plugin '", item.plugin,
          "') cannot run kernels: the plugin gives no rxt_backend_t");
  }
  return *item.backend;  // the host checked its struct_size and functions when it was registered
}

class PluginKernel : public Kernel {
 public:
  PluginKernel(PluginItem item, const rxt_backend_t* backend, std::string name, void* handle)
      : item_(std::move(item)), backend_(backend), name_(std::move(name)), handle_(handle) {}
  ~PluginKernel() override { backend_->free_kernel(backend_->state, handle_); }
  PluginKernel(const PluginKernel&) = delete;
  PluginKernel& operator=(const PluginKernel&) = delete;

  void Call(DLTensor* const* args, int num_args) override {
    rxt_status_t status = backend_->call_kernel(backend_->state, handle_, args, num_args);
    if (status != nullptr) CheckBackendStatus(status, StrCat("backend '", item_.name, "': kernel ", Quoted(name_)));
  }

 private:
  PluginItem item_;  // keeps the plugin's library loaded
  const rxt_backend_t* backend_;
  std::string name_;
  void* handle_;
};

}  // namespace

PluginKernelProvider PluginKernelProvider::Find(const std::string& name, const PluginHost& host) {
  std::optional<PluginItem> item = host.Find(PluginItemKind::kBackend, name);
  if (!item) {
    std::string loaded;
    for (const PluginItem& backend : host.Items(PluginItemKind::kBackend)) {
      loaded += StrCat(loaded.empty() ? "" : ", ", backend.name);
    }
    Throw(ErrorCode::kNotFound, "no backend ", Quoted(name), " is loaded (loaded backends: ",
          loaded.empty() ? "none" : loaded, "); load the plugin that provides it");
  }
  return PluginKernelProvider(std::move(*item));
}

PluginKernelProvider::PluginKernelProvider(PluginItem item) : item_(std::move(item)) {
  backend_ = &CheckedBackend(item_);
}

bool PluginKernelProvider::ConcurrentLoads() const {
  return RXT_VTABLE_HAS(rxt_backend_t, backend_, flags) && (backend_->flags & RXT_BACKEND_CONCURRENT_LOAD) != 0;
}

std::unique_ptr<Kernel> PluginKernelProvider::Load(const KernelRecord& record) {
  void* handle = nullptr;
  rxt_status_t status = backend_->load_kernel(backend_->state, record.name.c_str(), record.portable.data(),
                                              record.portable.size(), &handle);
  std::string context = StrCat("backend '", item_.name, "': kernel ", Quoted(record.name));
  CheckBackendStatus(status, context);
  if (handle == nullptr) Throw(ErrorCode::kInternal, context, ": load_kernel succeeded without a kernel");
  return std::make_unique<PluginKernel>(item_, backend_, record.name, handle);
}

}  // namespace rxt
