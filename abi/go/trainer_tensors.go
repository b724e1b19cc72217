package rxt

// #include <stdlib.h>
// #include "rxt_go.h"
import "C"

// The trainer's tensors by kind, index and name.

// Count is how many tensors of |kind| there are.
func (t *Trainer) Count(kind Kind) (int, error) {
	var n C.size_t
	err := t.do(func(h *C.rxt_trainer_t) error {
		return statusError(C.rxt_trainer_count(h, C.rxt_trainer_tensors_t(kind), &n))
	})
	return int(n), err
}

// Name is the name of tensor |index| of |kind| (OutOfRange past the end).
func (t *Trainer) Name(kind Kind, index int) (string, error) {
	var name string
	err := t.do(func(h *C.rxt_trainer_t) error {
		if index < 0 {
			return errorf(OutOfRange, "index %d", index)
		}
		var out *C.char
		if err := statusError(C.rxt_trainer_name(h, C.rxt_trainer_tensors_t(kind), C.size_t(index), &out)); err != nil {
			return err
		}
		name = takeString(out)
		return nil
	})
	return name, err
}

// Names lists the names of the tensors of |kind|, in order.
func (t *Trainer) Names(kind Kind) ([]string, error) {
	count, err := t.Count(kind)
	if err != nil {
		return nil, err
	}
	names := make([]string, count)
	for i := range names {
		if names[i], err = t.Name(kind, i); err != nil {
			return nil, err
		}
	}
	return names, nil
}

// Find is the index of the tensor of |kind| called |name| (NotFound listing the names).
func (t *Trainer) Find(kind Kind, name string) (int, error) {
	var index C.size_t
	err := withName(name, func(n *C.char) error {
		return t.do(func(h *C.rxt_trainer_t) error {
			return statusError(C.rxt_trainer_find(h, C.rxt_trainer_tensors_t(kind), n, &index))
		})
	})
	return int(index), err
}

// NumOutputs is how many tensors Predict returns.
func (t *Trainer) NumOutputs() (int, error) {
	var n int
	err := t.do(func(h *C.rxt_trainer_t) error {
		var err error
		n, err = t.outputs(h)
		return err
	})
	return n, err
}

// outputs asks rxt once (the layout never changes); the caller holds t.mu.
func (t *Trainer) outputs(h *C.rxt_trainer_t) (int, error) {
	if t.numOutputs < 0 {
		var n C.size_t
		if err := statusError(C.rxt_trainer_num_outputs(h, &n)); err != nil {
			return 0, err
		}
		t.numOutputs = int(n)
	}
	return t.numOutputs, nil
}

// Get is a snapshot of parameter, state or optimizer-state tensor |index|: later updates do
// not change it. Close it when done.
func (t *Trainer) Get(kind Kind, index int) (*Tensor, error) {
	var out *C.DLManagedTensor
	err := t.do(func(h *C.rxt_trainer_t) error {
		if index < 0 {
			return errorf(OutOfRange, "index %d", index)
		}
		return statusError(C.rxt_trainer_get(h, C.rxt_trainer_tensors_t(kind), C.size_t(index), &out))
	})
	if err != nil {
		return nil, err
	}
	return newTensor(out), nil
}

// GetByName is Get by name.
func (t *Trainer) GetByName(kind Kind, name string) (*Tensor, error) {
	var out *C.DLManagedTensor
	err := withName(name, func(n *C.char) error {
		return t.do(func(h *C.rxt_trainer_t) error {
			return statusError(C.rxt_trainer_get_by_name(h, C.rxt_trainer_tensors_t(kind), n, &out))
		})
	})
	if err != nil {
		return nil, err
	}
	return newTensor(out), nil
}

// Set copies |value| into parameter or state |index|. InvalidArgument naming the tensor and
// both types for a wrong dtype or shape; OutOfRange for a bad index.
func (t *Trainer) Set(kind Kind, index int, value Arg) error {
	if index < 0 {
		return errorf(OutOfRange, "index %d", index)
	}
	return t.set(kind, index, nil, value)
}

// SetByName is Set by name.
func (t *Trainer) SetByName(kind Kind, name string, value Arg) error {
	return withName(name, func(n *C.char) error { return t.set(kind, 0, n, value) })
}

func (t *Trainer) set(kind Kind, index int, name *C.char, value Arg) error {
	if err := t.lock(); err != nil {
		return err
	}
	defer t.mu.Unlock()
	bound, err := t.args.bind([]string{"value"}, []Arg{value})
	if err != nil {
		return err
	}
	defer bound.release()
	tensor := *bound.args()
	return statusError(C.rxt_go_trainer_set(t.handle, C.rxt_trainer_tensors_t(kind), C.size_t(index), name, tensor,
		bound.data[0]))
}

// InitXavierUniform sets Xavier-uniform weights and zero biases from |seed| (the same values on
// every machine).
func (t *Trainer) InitXavierUniform(seed uint64) error {
	return t.do(func(h *C.rxt_trainer_t) error {
		return statusError(C.rxt_trainer_init_xavier_uniform(h, C.uint64_t(seed)))
	})
}

// InitZero zeroes the parameters or states; for OptimizerState, it restores the optimizer's
// initial state and a step count of 0.
func (t *Trainer) InitZero(kind Kind) error {
	return t.do(func(h *C.rxt_trainer_t) error {
		return statusError(C.rxt_trainer_init_zero(h, C.rxt_trainer_tensors_t(kind)))
	})
}
