#include "rxt/plugin/plugin_kernel_provider.h"

#include <cstddef>
#include <cstring>
#include <utility>
#include <vector>

#include "rxt/support/error.h"
#include "rxt/support/message_text.h"

namespace rxt {
namespace {

// Room for a plugin's error message; longer ones are cut.
constexpr size_t kErrorCapacity = 1024;

std::string Message(const char* buffer) {
  std::string message(buffer, strnlen(buffer, kErrorCapacity));
  return message.empty() ? "failed without a message" : message;
}

const rxt_backend_t& CheckedBackend(const PluginItem& item) {
  std::string where = StrCat("backend '", item.name, "' (plugin '", item.plugin, "')");
  if (item.kind != PluginItemKind::kBackend) {
    Throw(ErrorCode::kInvalidArgument, "'", item.name, "' is a ", PluginItemKindName(item.kind), ", not a backend");
  }
  if (item.user_data == nullptr) {
    Throw(ErrorCode::kFailedPrecondition, where, " cannot run kernels: the plugin gives no rxt_backend_t");
  }
  const auto& backend = *static_cast<const rxt_backend_t*>(item.user_data);
  if (backend.struct_size < offsetof(rxt_backend_t, free_kernel) + sizeof(backend.free_kernel)) {
    Throw(ErrorCode::kInvalidArgument, where, ": its rxt_backend_t is too small (struct_size ", backend.struct_size,
          ")");
  }
  if (backend.name == nullptr || item.name != backend.name) {
    Throw(ErrorCode::kInvalidArgument, where, ": its rxt_backend_t is named '",
          backend.name == nullptr ? "" : backend.name, "'");
  }
  if (backend.load_kernel == nullptr || backend.call_kernel == nullptr || backend.free_kernel == nullptr) {
    Throw(ErrorCode::kInvalidArgument, where, ": its rxt_backend_t lacks a callback");
  }
  return backend;
}

class PluginKernel : public Kernel {
 public:
  PluginKernel(PluginItem item, const rxt_backend_t* backend, std::string name, void* handle)
      : item_(std::move(item)), backend_(backend), name_(std::move(name)), handle_(handle) {}
  ~PluginKernel() override { backend_->free_kernel(backend_->state, handle_); }
  PluginKernel(const PluginKernel&) = delete;
  PluginKernel& operator=(const PluginKernel&) = delete;

  void Call(DLTensor* const* args, int num_args) override {
    // DLTensor* and void* share their representation: the array is passed as it is (a call
    // allocates nothing). The message buffer is only read when the call fails.
    char error[kErrorCapacity];
    error[0] = '\0';
    rxt_code_t code = backend_->call_kernel(backend_->state, handle_, reinterpret_cast<void* const*>(args), num_args,
                                            error, sizeof(error));
    if (code != RXT_OK) {
      Throw(static_cast<ErrorCode>(code), "backend '", item_.name, "': kernel ", Quoted(name_), ": ", MessageText(Message(error), 1000));
    }
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

std::unique_ptr<Kernel> PluginKernelProvider::Load(const KernelRecord& record) {
  char error[kErrorCapacity] = {};
  void* handle = backend_->load_kernel(backend_->state, record.name.c_str(), record.portable.data(),
                                       record.portable.size(), error, sizeof(error));
  if (handle == nullptr) {
    Throw(ErrorCode::kDataLoss, "backend '", item_.name, "': kernel ", Quoted(record.name), ": ", MessageText(Message(error), 1000));
  }
  return std::make_unique<PluginKernel>(item_, backend_, record.name, handle);
}

}  // namespace rxt
