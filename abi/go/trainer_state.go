package rxt

// #include <stdlib.h>
// #include "rxt_go.h"
import "C"

import "unsafe"

// Step count, learning rate and checkpoints.

// Step is the number of updates since initialization (or restored from a checkpoint).
func (t *Trainer) Step() (int64, error) {
	var step C.int64_t
	err := t.do(func(h *C.rxt_trainer_t) error { return statusError(C.rxt_trainer_step(h, &step)) })
	return int64(step), err
}

// LearningRate is the optimizer's "lr" (FailedPrecondition if it has none).
func (t *Trainer) LearningRate() (float64, error) {
	var lr C.double
	err := t.do(func(h *C.rxt_trainer_t) error { return statusError(C.rxt_trainer_learning_rate(h, &lr)) })
	return float64(lr), err
}

// SetLearningRate sets "lr" (recompiling nothing) and removes any schedule.
func (t *Trainer) SetLearningRate(lr float64) error {
	return t.do(func(h *C.rxt_trainer_t) error { return statusError(C.rxt_trainer_set_learning_rate(h, C.double(lr))) })
}

// SetSchedule makes update k run with the rate of |schedule| for |baseLR|: "constant",
// "step:step_size=N,gamma=G", "cosine:total_steps=N,min_lr=M", "warmup:steps=N" (docs/training.md).
func (t *Trainer) SetSchedule(schedule string, baseLR float64) error {
	cschedule := C.CString(schedule)
	defer C.free(unsafe.Pointer(cschedule))
	return t.do(func(h *C.rxt_trainer_t) error {
		return statusError(C.rxt_trainer_set_schedule(h, cschedule, C.double(baseLR)))
	})
}

// SaveCheckpoint writes parameters, states, optimizer state and step count (safetensors),
// atomically.
func (t *Trainer) SaveCheckpoint(path string) error {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	return t.do(func(h *C.rxt_trainer_t) error { return statusError(C.rxt_trainer_save_checkpoint(h, cpath)) })
}

// LoadCheckpoint restores a checkpoint of a trainer of the same module: training goes on bit
// for bit. DataLoss (changing nothing) for one that does not fit; NotFound for a missing file.
func (t *Trainer) LoadCheckpoint(path string) error {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	return t.do(func(h *C.rxt_trainer_t) error { return statusError(C.rxt_trainer_load_checkpoint(h, cpath)) })
}
