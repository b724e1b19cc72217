"""Comm: the processes that train together (docs/distributed.md), a communicator of a collective
plugin ("mpi": plugins/ccl_mpi) for Trainer.set_comm.

    world = rxt.Comm("mpi")                     # every process of the launch (mpirun, srun)
    world = rxt.Comm("mpi", external=addr)      # the program's own: the address of an MPI_Comm
"""
import ctypes

from . import _lib


class Comm:
    def __init__(self, collective="mpi", external=None):
        """|external|: the address (an int) of the program's own communicator handle (for "mpi",
        an MPI_Comm, which rxt duplicates), or None for every process of the launch (MPI
        initialized if the program has not). NotFound names the loaded collectives."""
        handle = _lib.comm_p()
        _lib.check(_lib.lib.rxt_comm_create(None, collective.encode(), None, external, ctypes.byref(handle)))
        self.handle = handle

    @property
    def rank(self):
        value = ctypes.c_int32()
        _lib.check(_lib.lib.rxt_comm_rank(self.handle, ctypes.byref(value)))
        return value.value

    @property
    def size(self):
        value = ctypes.c_int32()
        _lib.check(_lib.lib.rxt_comm_size(self.handle, ctypes.byref(value)))
        return value.value

    def close(self):
        """Releases this reference (a trainer given it keeps its own)."""
        if self.handle:
            _lib.lib.rxt_comm_release(self.handle)
            self.handle = None

    def __del__(self):
        if _lib is not None and getattr(self, "handle", None):
            self.close()
