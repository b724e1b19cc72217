// The collective plugin "mpi" (rxt/plugin.h's rxt_collective_t): what `rxt train --distributed
// mpi` and a trainer given a communicator use (docs/distributed.md).
#include <rxt/plugin.h>
#include <rxt/plugin_support/host.h>

#include "mpi_collective.h"

namespace {

const rxt_collective_t* const kCollectives[] = {&rxt::ccl_mpi::MpiCollective()};

rxt_plugin_descriptor_t MakeDescriptor() {
  rxt_plugin_descriptor_t d{};
  d.struct_size = sizeof(rxt_plugin_descriptor_t);
  d.abi_version = RXT_PLUGIN_ABI_VERSION;
  d.name = "rxt_ccl_mpi";
  d.version = "0.1.0";
  d.summary = "Collectives over MPI for data-parallel training.";
  d.collectives = kCollectives;
  d.num_collectives = 1;
  return d;
}

}  // namespace

RXT_PLUGIN_EXPORT const rxt_plugin_descriptor_t* rxt_plugin_entry(uint32_t host_abi_version,
                                                                  const rxt_host_api_t* host) {
  if (!rxt::plugin_support::ConnectHost(host_abi_version, host, "rxt_ccl_mpi")) return nullptr;
  if (!RXT_HOST_API_HAS(host, register_collective)) {
    if (host->log != nullptr) host->log(host->host, RXT_LOG_ERROR, "rxt_ccl_mpi needs a host that takes collectives");
    return nullptr;
  }
  static const rxt_plugin_descriptor_t descriptor = MakeDescriptor();
  return &descriptor;
}
