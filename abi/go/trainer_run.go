package rxt

// #include "rxt_go.h"
import "C"

// Running the compiled step. Inputs and targets are Borrowed Go slices (read in place) or
// Tensors; rxt checks their count, dtype and shape (InvalidArgument naming the function and the
// argument: "train_step: argument 0 (%x): expected ...") and changes nothing on an error.

// Update runs one training step and returns the loss before it.
func (t *Trainer) Update(inputs, targets []Arg) (float64, error) {
	var loss C.double
	err := t.run(inputs, targets, func(h *C.rxt_trainer_t, b *boundArgs) error {
		d := &b.data
		return statusError(C.rxt_go_trainer_update(h, b.args(), C.size_t(len(inputs)), C.size_t(len(targets)), &loss,
			d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]))
	})
	return float64(loss), err
}

// Accumulate runs forward and backward of one micro-batch and adds its gradients to the
// trainer's sums (a trainer built with Accumulation); returns the micro-batch's loss.
func (t *Trainer) Accumulate(inputs, targets []Arg) (float64, error) {
	var loss C.double
	err := t.run(inputs, targets, func(h *C.rxt_trainer_t, b *boundArgs) error {
		d := &b.data
		return statusError(C.rxt_go_trainer_accumulate(h, b.args(), C.size_t(len(inputs)), C.size_t(len(targets)), &loss,
			d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]))
	})
	return float64(loss), err
}

// ApplyAccumulated takes one optimizer step with the accumulated gradients (combined over the
// ranks first under data parallelism) and returns the step's loss; FailedPrecondition when
// nothing was accumulated.
func (t *Trainer) ApplyAccumulated() (float64, error) {
	if err := t.lock(); err != nil {
		return 0, err
	}
	defer t.mu.Unlock()
	var loss C.double
	err := statusError(C.rxt_trainer_apply_accumulated(t.handle, &loss))
	return float64(loss), err
}

// Evaluate computes the loss and changes nothing.
func (t *Trainer) Evaluate(inputs, targets []Arg) (float64, error) {
	var loss C.double
	err := t.run(inputs, targets, func(h *C.rxt_trainer_t, b *boundArgs) error {
		d := &b.data
		return statusError(C.rxt_go_trainer_evaluate(h, b.args(), C.size_t(len(inputs)), C.size_t(len(targets)), &loss,
			d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]))
	})
	return float64(loss), err
}

// Predict returns the backbone's outputs for |inputs| (new tensors: close them).
func (t *Trainer) Predict(inputs ...Arg) ([]*Tensor, error) {
	var outputs []*C.DLManagedTensor
	var count C.size_t
	err := t.run(inputs, nil, func(h *C.rxt_trainer_t, b *boundArgs) error {
		n, err := t.outputs(h)
		if err != nil {
			return err
		}
		// Go memory that C fills with C pointers: allowed (no Go pointer in it).
		outputs = make([]*C.DLManagedTensor, n+1)
		d := &b.data
		return statusError(C.rxt_go_trainer_predict(h, b.args(), C.size_t(len(inputs)), &outputs[0], C.size_t(n), &count,
			d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]))
	})
	if err != nil {
		return nil, err
	}
	tensors := make([]*Tensor, count)
	for i := range tensors {
		tensors[i] = newTensor(outputs[i])
	}
	return tensors, nil
}

// ProfileStep runs one step with profiling and returns the time per kernel as a text table;
// the step's results are dropped.
func (t *Trainer) ProfileStep(inputs, targets []Arg) (string, error) {
	var text *C.char
	err := t.run(inputs, targets, func(h *C.rxt_trainer_t, b *boundArgs) error {
		d := &b.data
		return statusError(C.rxt_go_trainer_profile_step(h, b.args(), C.size_t(len(inputs)), C.size_t(len(targets)), &text,
			d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]))
	})
	if err != nil {
		return "", err
	}
	return takeString(text), nil
}

// run binds the arguments and makes one call under the trainer's lock.
func (t *Trainer) run(inputs, targets []Arg, call func(*C.rxt_trainer_t, *boundArgs) error) error {
	if err := t.lock(); err != nil {
		return err
	}
	defer t.mu.Unlock()
	bound, err := t.args.bind([]string{"inputs", "targets"}, inputs, targets)
	if err != nil {
		return err
	}
	defer bound.release()
	return call(t.handle, bound)
}
