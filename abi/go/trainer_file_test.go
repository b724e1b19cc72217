//go:build !rxt_runtime

package rxt_test

import (
	"bytes"
	"math"
	"path/filepath"
	"testing"

	"rxt.dev/rxt"
)

// A trainer file (Save, LoadTrainer) goes on bit for bit: the same update on the trainer and on
// the one loaded from its file gives the same loss and parameters. The backend is rxt's default
// (cpu, whose kernels go into the file, when its plugin is there).
func TestTrainerFileRoundTrip(t *testing.T) {
	trainer, err := rxt.NewTrainer(parse(t, linearBackbone),
		rxt.TrainerOptions{Loss: "mse", Optimizer: "adam", OptimizerOptions: "lr=0.05"})
	ok(t, err)
	defer trainer.Close()
	_, _, inputs, targets := linearData()
	ok(t, trainer.InitXavierUniform(3))
	_, err = trainer.Update(inputs, targets)
	ok(t, err)
	path := filepath.Join(t.TempDir(), "linear.rxtt")
	ok(t, trainer.Save(path))
	loaded, err := rxt.LoadTrainer(path, nil)
	ok(t, err)
	defer loaded.Close()
	if step, _ := loaded.Step(); step != 1 {
		t.Fatalf("the loaded trainer is at step %d, want 1", step)
	}
	if a, b := paramBytes(t, trainer), paramBytes(t, loaded); !bytes.Equal(a[0], b[0]) || !bytes.Equal(a[1], b[1]) {
		t.Fatalf("the loaded parameters differ")
	}
	for i := 0; i < 3; i++ {
		a, err := trainer.Update(inputs, targets)
		ok(t, err)
		b, err := loaded.Update(inputs, targets)
		ok(t, err)
		if math.Float64bits(a) != math.Float64bits(b) {
			t.Fatalf("update %d: loss %v from the file, %v from the trainer", i, b, a)
		}
	}
	a, b := paramBytes(t, trainer), paramBytes(t, loaded)
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			t.Fatalf("parameter %d differs after 3 more updates", i)
		}
	}
}
