// The communicator of the ccl_mpi tests: one for the whole program (the plugin, loaded once,
// initializes MPI), over every process mpirun started (or this one alone).
#pragma once

#include <memory>

#include "rxt/plugin/plugin_host.h"
#include "rxt/runtime/communicator.h"

namespace rxt::test {

inline std::shared_ptr<Communicator> World() {
  static PluginHost* host = [] {
    auto* h = new PluginHost;
    h->Load(RXT_CCL_MPI_PLUGIN);
    return h;
  }();
  static std::shared_ptr<Communicator> world = [] {
    PluginItem mpi = *host->Find(PluginItemKind::kCollective, "mpi");
    return Communicator::Create(*mpi.collective, mpi.keep_alive);
  }();
  return world;
}

}  // namespace rxt::test
