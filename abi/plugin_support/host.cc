#include "rxt/plugin_support/host.h"

#include <atomic>

namespace rxt::plugin_support {
namespace {

// The host's status functions: plain functions of the host process, the same for every host.
std::atomic<rxt_status_t (*)(rxt_code_t, const char*)> g_status_create{nullptr};
std::atomic<rxt_code_t (*)(rxt_status_t)> g_status_code{nullptr};
std::atomic<const char* (*)(rxt_status_t)> g_status_message{nullptr};
std::atomic<void (*)(rxt_status_t)> g_status_free{nullptr};

}  // namespace

bool ConnectHost(uint32_t host_abi_version, const rxt_host_api_t* host, const char* plugin_name) {
  if (host == nullptr) return false;
  if (host_abi_version < 3 || !RXT_HOST_API_HAS(host, register_extern) || host->status_create == nullptr ||
      host->status_code == nullptr || host->status_message == nullptr || host->status_free == nullptr) {
    std::string message = std::string(plugin_name != nullptr ? plugin_name : "this plugin") +
                          " needs plugin ABI version 3 (rxt_status_t and typed vtables); this host speaks version " +
                          std::to_string(host_abi_version);
    if (host->log != nullptr) host->log(host->host, RXT_LOG_ERROR, message.c_str());
    return false;
  }
  g_status_create.store(host->status_create);
  g_status_code.store(host->status_code);
  g_status_message.store(host->status_message);
  g_status_free.store(host->status_free);
  return true;
}

rxt_status_t MakeStatus(rxt_code_t code, const std::string& message) {
  auto create = g_status_create.load();
  return create != nullptr ? create(code, message.c_str()) : nullptr;
}

rxt_code_t StatusCode(rxt_status_t status) {
  auto code = g_status_code.load();
  if (status == nullptr) return RXT_OK;
  return code != nullptr ? code(status) : RXT_UNKNOWN;
}

std::string StatusMessage(rxt_status_t status) {
  auto message = g_status_message.load();
  return status == nullptr || message == nullptr ? std::string() : std::string(message(status));
}

void FreeStatus(rxt_status_t status) {
  auto free = g_status_free.load();
  if (status != nullptr && free != nullptr) free(status);
}

}  // namespace rxt::plugin_support
