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

// TrainerOptions are rxt_trainer_options_t's fields; "" and nil mean rxt's default.
type TrainerOptions struct {
	Backend          string // "": cpu when a plugin provides it, else reference
	Loss             string // e.g. "cross_entropy"
	LossOptions      string // e.g. `reduction="sum"`
	Optimizer        string // e.g. "sgd", or one a plugin adds ("lion")
	OptimizerOptions string // e.g. "lr=0.01, weight_decay=0.01"
	OptLevel         *int   // nil: 2 (fusion, memory planning); 0: legalize only
	Libraries        string // kernel libraries ("dnnl", "none"); "": the backend's defaults
	Context          *Context
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

// cstring is C.CString, with "" as NULL (rxt's default).
func cstring(s string) *C.char {
	if s == "" {
		return nil
	}
	return C.CString(s)
}

// NewTrainer builds |module| (a backbone: @backbone with param_num and state_num) with the
// options' loss and optimizer, or a trainer module made by SetupTrainer. Parameters and states
// start at zero. Errors: InvalidArgument for an invalid backbone ("SetupTrainer: ...") or bad
// options, NotFound for an unknown loss, optimizer or backend, Unimplemented for an op without
// a gradient rule.
func NewTrainer(module *Module, options TrainerOptions) (*Trainer, error) {
	if module == nil {
		return nil, errorf(InvalidArgument, "NewTrainer: the module is nil")
	}
	var o C.rxt_trainer_options_t
	C.rxt_trainer_options_init(&o)
	fields := []**C.char{&o.backend, &o.loss, &o.loss_options, &o.optimizer, &o.optimizer_options, &o.libraries}
	values := []string{options.Backend, options.Loss, options.LossOptions, options.Optimizer,
		options.OptimizerOptions, options.Libraries}
	for i, field := range fields {
		*field = cstring(values[i]) // C memory in a Go struct: allowed (no Go pointer)
		defer C.free(unsafe.Pointer(*field))
	}
	if options.OptLevel != nil {
		o.opt_level = C.int32_t(*options.OptLevel)
	}
	var handle *C.rxt_trainer_t
	err := options.Context.use(func(context *C.rxt_context_t) error {
		o.context = context
		return module.read(func(m *C.rxt_module_t) error { return statusError(C.rxt_trainer_create(m, &o, &handle)) })
	})
	if err != nil {
		return nil, err
	}
	return newTrainer(handle), nil
}

// LoadTrainer opens a trainer file (.rxtt, written by Save or `rxt train --save-trainer`): it
// goes on bit for bit from where it was saved, with no compiler involved. |context| nil: the
// default context. NotFound for a missing file, DataLoss for a malformed one (naming it).
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
// schedule) to one file, atomically.
func (t *Trainer) Save(path string) error {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	return t.do(func(h *C.rxt_trainer_t) error { return statusError(C.rxt_trainer_save(h, cpath)) })
}
