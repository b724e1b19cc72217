package rxt

// #include <stdlib.h>
// #include "rxt_go.h"
import "C"

import (
	"runtime"
	"sync"
	"unsafe"
)

// Comm is the set of processes that train together (docs/distributed.md): a communicator of a
// collective plugin ("mpi": plugins/ccl_mpi). A trainer given one (SetComm) keeps its own
// reference: Close the Comm when you no longer need it yourself.
type Comm struct {
	mu     sync.Mutex
	handle *C.rxt_comm_t
}

// World makes a communicator of |collective| over every process of the launch (mpirun, srun;
// MPI initialized if the program has not), from |ctx|'s plugins (nil: the default context).
// NotFound names the loaded collectives.
func World(collective string, ctx *Context) (*Comm, error) {
	return NewComm(collective, ctx, nil)
}

// NewComm makes a communicator over the program's own, |external| (for "mpi": a pointer to an
// MPI_Comm, which rxt duplicates; nil: every process of the launch).
func NewComm(collective string, ctx *Context, external unsafe.Pointer) (*Comm, error) {
	name := C.CString(collective)
	defer C.free(unsafe.Pointer(name))
	var handle *C.rxt_comm_t
	err := ctx.use(func(context *C.rxt_context_t) error {
		return statusError(C.rxt_comm_create(context, name, nil, external, &handle))
	})
	if err != nil {
		return nil, err
	}
	c := &Comm{handle: handle}
	runtime.SetFinalizer(c, (*Comm).Close)
	return c, nil
}

// Rank is this process's rank.
func (c *Comm) Rank() (int, error) {
	var rank C.int32_t
	err := c.do(func(h *C.rxt_comm_t) error { return statusError(C.rxt_comm_rank(h, &rank)) })
	return int(rank), err
}

// Size is the number of ranks.
func (c *Comm) Size() (int, error) {
	var size C.int32_t
	err := c.do(func(h *C.rxt_comm_t) error { return statusError(C.rxt_comm_size(h, &size)) })
	return int(size), err
}

// Close releases this reference (a trainer's own stays).
func (c *Comm) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.handle != nil {
		C.rxt_comm_release(c.handle)
		c.handle = nil
		runtime.SetFinalizer(c, nil)
	}
	return nil
}

func (c *Comm) do(f func(*C.rxt_comm_t) error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.handle == nil {
		return closedError("communicator")
	}
	return f(c.handle)
}

// SetComm trains |t| together with the other ranks of |c| (every rank calls it at the same
// point): all must run the same trainer program, and each takes rank 0's values. nil: alone.
func (t *Trainer) SetComm(c *Comm) error {
	if c == nil {
		return t.do(func(h *C.rxt_trainer_t) error { return statusError(C.rxt_trainer_set_comm(h, nil)) })
	}
	return c.do(func(comm *C.rxt_comm_t) error {
		return t.do(func(h *C.rxt_trainer_t) error { return statusError(C.rxt_trainer_set_comm(h, comm)) })
	})
}
