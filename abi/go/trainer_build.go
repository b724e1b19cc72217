//go:build !rxt_runtime

package rxt

// #include <stdlib.h>
// #include "rxt_go.h"
import "C"

import "unsafe"

// Making trainers: the compiler's half of the Trainer (librxt only; the rest works with
// librxt_runtime too).

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
	// Data-parallel training: gradients combined over the ranks of the trainer's communicator
	// (SetComm) before each optimizer step (docs/distributed.md); BucketBytes 0: 25 MiB.
	DataParallel bool
	BucketBytes  int64
	Accumulation bool // adds gradient accumulation (Accumulate, ApplyAccumulated)
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
	if options.DataParallel {
		o.data_parallel = 1
	}
	if options.Accumulation {
		o.accumulation = 1
	}
	o.bucket_bytes = C.int64_t(options.BucketBytes)
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

// SaveForTarget is Save with the kernels compiled for another machine, where the file is to be
// loaded (docs/deploy.md, "On another architecture"): |target| a target triple
// ("aarch64-linux-gnu"), |cpu| a CPU of it ("x86-64" for a file any x86-64 machine loads,
// "cortex-a72") and |features| ("+sve"), as LLVM names them; "" is this machine's (for cpu: this
// machine's CPU for its own triple, else the architecture's baseline). Another architecture's
// library is linked by its cross compiler (aarch64-linux-gnu-gcc) from PATH; make the trainer
// with Libraries "none" unless that machine has the kernel libraries' plugins. InvalidArgument
// for a target or CPU LLVM does not know, FailedPrecondition for a backend that cannot compile
// ahead of time or a missing cross compiler; nothing is written on an error.
func (t *Trainer) SaveForTarget(path, target, cpu, features string) error {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	// "" goes as NULL, the value rxt.h documents as "this machine's" for all three fields.
	ctarget, ccpu, cfeatures := cstring(target), cstring(cpu), cstring(features)
	defer C.free(unsafe.Pointer(ctarget))
	defer C.free(unsafe.Pointer(ccpu))
	defer C.free(unsafe.Pointer(cfeatures))
	return t.do(func(h *C.rxt_trainer_t) error {
		return statusError(C.rxt_trainer_save_for_target(h, cpath, ctarget, ccpu, cfeatures))
	})
}
