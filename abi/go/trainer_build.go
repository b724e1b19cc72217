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
