// host.h (plugin SDK): what the SDK keeps of the host that loaded the plugin — its status
// functions — so that C++ rules, generators, backends and extern functions return real
// statuses (rxt_status_t) with MakeStatus.
//
//   RXT_PLUGIN_EXPORT const rxt_plugin_descriptor_t* rxt_plugin_entry(uint32_t host_abi_version,
//                                                                     const rxt_host_api_t* host) {
//     if (!rxt::plugin_support::ConnectHost(host_abi_version, host, "my_plugin")) return nullptr;
//     return &kDescriptor;
//   }
#pragma once

#include <rxt/plugin.h>

#include <cstdint>
#include <string>

namespace rxt::plugin_support {

/// Checks that the host speaks plugin ABI version 3 or later and keeps its status functions
/// (which outlive any one host). Call it first in rxt_plugin_entry; when it returns false it has
/// logged why (naming |plugin_name|), and the plugin declines by returning NULL.
bool ConnectHost(uint32_t host_abi_version, const rxt_host_api_t* host, const char* plugin_name);

/// A failure to return to the host: |code| and a copy of |message|; NULL for RXT_OK, and NULL
/// before ConnectHost (the Run* functions of rule.h and generator.h also record their failures
/// in the builder, which the host reports then).
rxt_status_t MakeStatus(rxt_code_t code, const std::string& message);

/// The code and message of a status the host returned (RXT_OK and "" for NULL), and freeing it.
rxt_code_t StatusCode(rxt_status_t status);
std::string StatusMessage(rxt_status_t status);
void FreeStatus(rxt_status_t status);

}  // namespace rxt::plugin_support
