// The collective "mpi": communicators are duplicates of MPI_COMM_WORLD (MPI initialized by the
// plugin when the program has not) or of the caller's MPI_Comm, with MPI's errors returned
// rather than fatal, so that each becomes a status naming the call. allreduce_start hands the
// allreduce (an MPI_Iallreduce, polled) to the communicator's own thread (MPI_THREAD_SERIALIZED:
// one thread calls MPI at a time) and returns; an MPI initialized without thread support
// combines at once.
#pragma once

#include <rxt/plugin.h>

namespace rxt::ccl_mpi {

/// The vtable the plugin registers.
const rxt_collective_t& MpiCollective();

}  // namespace rxt::ccl_mpi
