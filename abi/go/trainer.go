package rxt

// #include <stdlib.h>
// #include "rxt_go.h"
import "C"

import (
	"runtime"
	"sync"
	"unsafe"
)

// Trainer is a compiled training step with its parameters, model states and optimizer state
// (rxt_trainer_t). rxt runs one call at a time per trainer; this type serializes its methods
// with a mutex, so goroutines may share a Trainer (their calls run one after another).
type Trainer struct {
	mu         sync.Mutex
	handle     *C.rxt_trainer_t
	args       argSlots // C memory for the arguments of a call, reused under mu
	numOutputs int      // what Predict returns (-1: not asked yet)
}

// Kind selects a trainer's tensors (rxt_trainer_tensors_t).
type Kind int

const (
	Inputs         Kind = C.RXT_TRAINER_INPUTS          // what Predict, Update, Evaluate take first
	Targets        Kind = C.RXT_TRAINER_TARGETS         // what Update and Evaluate take after the inputs
	Params         Kind = C.RXT_TRAINER_PARAMS          // trained parameters
	States         Kind = C.RXT_TRAINER_STATES          // model states (batch-norm statistics)
	OptimizerState Kind = C.RXT_TRAINER_OPTIMIZER_STATE // "lr", "weight_decay", "step", per-parameter buffers
)

func newTrainer(handle *C.rxt_trainer_t) *Trainer {
	t := &Trainer{handle: handle, numOutputs: -1}
	runtime.SetFinalizer(t, (*Trainer).Close)
	return t
}

// LoadTrainer opens a trainer file (.rxtt, written by Save, `rxt build --trainer` or `rxt train
// --save-trainer`): it goes on bit for bit from where it was saved, with no compiler involved.
// |context| nil: the default context. NotFound for a missing file, DataLoss for a malformed one
// (naming it).
func LoadTrainer(path string, context *Context) (*Trainer, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var handle *C.rxt_trainer_t
	err := context.use(func(c *C.rxt_context_t) error { return statusError(C.rxt_trainer_load(cpath, c, &handle)) })
	if err != nil {
		return nil, err
	}
	return newTrainer(handle), nil
}

// takeString returns a string rxt returned through char** and frees it.
func takeString(text *C.char) string {
	defer C.rxt_string_free(text)
	return C.GoString(text)
}

// withName runs |f| with |name| as a C string.
func withName(name string, f func(*C.char) error) error {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	return f(cname)
}

// Close releases the trainer and the C memory of its call arguments. Closing again does
// nothing; every other method of a closed Trainer returns FailedPrecondition.
func (t *Trainer) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.handle != nil {
		C.rxt_trainer_release(t.handle)
		t.handle = nil
		t.args.free()
		runtime.SetFinalizer(t, nil)
	}
	return nil
}

// lock locks the trainer for one call; the caller unlocks t.mu.
func (t *Trainer) lock() error {
	t.mu.Lock()
	if t.handle == nil {
		t.mu.Unlock()
		return closedError("trainer")
	}
	return nil
}

// do runs |f| with the live handle, alone.
func (t *Trainer) do(f func(*C.rxt_trainer_t) error) error {
	if err := t.lock(); err != nil {
		return err
	}
	defer t.mu.Unlock()
	return f(t.handle)
}

// Save writes the whole trainer (program, kernels compiled ahead of time, values, step count,
// schedule) to one file, atomically. Linked with librxt_runtime, which compiles nothing, it
// writes the kernels the trainer was loaded with; SaveForTarget compiles them for another machine.
func (t *Trainer) Save(path string) error {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	return t.do(func(h *C.rxt_trainer_t) error { return statusError(C.rxt_trainer_save(h, cpath)) })
}
