//go:build !rxt_runtime

package rxt_test

// The Trainer from Go against a plain Go computation, as tests/abi/trainer_test.c does from C.

import (
	"bytes"
	"math"
	"path/filepath"
	"testing"

	"rxt.dev/rxt"
)

// linear is x w + b for x (4, 3), w (3, 2), b (2), in float64.
func linear(x, w, b []float32) []float64 {
	out := make([]float64, 8)
	for i := 0; i < 4; i++ {
		for j := 0; j < 2; j++ {
			acc := float64(b[j])
			for k := 0; k < 3; k++ {
				acc += float64(x[i*3+k]) * float64(w[k*2+j])
			}
			out[i*2+j] = acc
		}
	}
	return out
}

func TestLayoutAndNames(t *testing.T) {
	trainer := linearTrainer(t, "sgd", "lr=0.05")
	counts := map[rxt.Kind]int{rxt.Inputs: 1, rxt.Targets: 1, rxt.Params: 2, rxt.States: 0}
	for kind, want := range counts {
		got, err := trainer.Count(kind)
		ok(t, err)
		if got != want {
			t.Errorf("Count(%d) = %d, want %d", kind, got, want)
		}
	}
	names, err := trainer.Names(rxt.Params)
	ok(t, err)
	if len(names) != 2 || names[0] != "w" || names[1] != "b" {
		t.Fatalf("parameter names %v", names)
	}
	optimizer, err := trainer.Names(rxt.OptimizerState)
	ok(t, err)
	if len(optimizer) < 3 || optimizer[0] != "lr" {
		t.Fatalf("optimizer state names %v", optimizer)
	}
	index, err := trainer.Find(rxt.Params, "b")
	ok(t, err)
	outputs, err := trainer.NumOutputs()
	ok(t, err)
	if index != 1 || outputs != 1 {
		t.Fatalf("Find(b) = %d, NumOutputs = %d", index, outputs)
	}
}

func TestPredictUpdateEvaluateAgainstGo(t *testing.T) {
	trainer := linearTrainer(t, "sgd", "lr=0.05")
	x, y, inputs, targets := linearData()
	ok(t, trainer.InitXavierUniform(3))
	w, b := get(t, trainer, rxt.Params, "w"), get(t, trainer, rxt.Params, "b")
	if w[0] == 0 || math.Abs(float64(w[0])) > math.Sqrt(6.0/5.0) || b[0] != 0 {
		t.Fatalf("not Xavier-uniform weights and zero biases: w %v b %v", w, b)
	}
	prediction := linear(x, w, b)

	outputs, err := trainer.Predict(inputs...)
	ok(t, err)
	if len(outputs) != 1 {
		t.Fatalf("%d outputs", len(outputs))
	}
	if shape := outputs[0].Shape(); len(shape) != 2 || shape[0] != 4 || shape[1] != 2 {
		t.Fatalf("output shape %v", shape)
	}
	got, err := rxt.Data[float32](outputs[0])
	ok(t, err)
	for i := range prediction {
		if !near(float64(got[i]), prediction[i], 1e-5) {
			t.Fatalf("prediction %d: %v, want %v", i, got[i], prediction[i])
		}
	}
	outputs[0].Close()

	// The sum of squares and its gradient with respect to w.
	loss, dw := 0.0, make([]float64, 6)
	for i, p := range prediction {
		e := p - float64(y[i])
		loss += e * e
		for k := 0; k < 3; k++ {
			dw[k*2+i%2] += float64(x[(i/2)*3+k]) * 2 * e
		}
	}
	evaluated, err := trainer.Evaluate(inputs, targets)
	ok(t, err)
	updated, err := trainer.Update(inputs, targets)
	ok(t, err)
	if !near(evaluated, loss, 1e-4) || !near(updated, loss, 1e-4) {
		t.Fatalf("Evaluate %v, Update %v, want %v", evaluated, updated, loss)
	}
	after := get(t, trainer, rxt.Params, "w")
	for i := range after {
		if want := float64(w[i]) - 0.05*dw[i]; !near(float64(after[i]), want, 1e-5) {
			t.Fatalf("w[%d] after SGD: %v, want %v", i, after[i], want)
		}
	}
	step, err := trainer.Step()
	ok(t, err)
	if step != 1 {
		t.Fatalf("step %d", step)
	}
}

func TestSetGetAndSnapshots(t *testing.T) {
	trainer := linearTrainer(t, "sgd", "lr=0.05")
	before, err := trainer.Get(rxt.Params, 0)
	ok(t, err)
	defer before.Close()
	ok(t, trainer.InitXavierUniform(7))
	if values, _ := rxt.Data[float32](before); values[0] != 0 {
		t.Fatalf("a snapshot changed with the initialization: %v", values)
	}
	b := []float32{0.5, 1.5}
	ok(t, trainer.SetByName(rxt.Params, "b", rxt.Borrow(b, 2)))
	b[0] = 9 // copied in: the trainer does not see this
	if got := get(t, trainer, rxt.Params, "b"); got[0] != 0.5 || got[1] != 1.5 {
		t.Fatalf("b = %v", got)
	}
	// A Tensor goes back in as it is: w from another trainer.
	other := linearTrainer(t, "sgd", "lr=0.05")
	ok(t, other.InitXavierUniform(11))
	w, err := other.GetByName(rxt.Params, "w")
	ok(t, err)
	defer w.Close()
	ok(t, trainer.Set(rxt.Params, 0, w))
	want, _ := w.Bytes()
	if got := paramBytes(t, trainer)[0]; !bytes.Equal(got, want) {
		t.Fatalf("Set from a Tensor: %v, want %v", got, want)
	}
	ok(t, trainer.InitZero(rxt.Params))
	if got := get(t, trainer, rxt.Params, "w"); got[0] != 0 {
		t.Fatalf("InitZero left %v", got)
	}
}

func TestLearningRateAndSchedule(t *testing.T) {
	trainer := linearTrainer(t, "sgd", "lr=0.05")
	_, _, inputs, targets := linearData()
	ok(t, trainer.InitXavierUniform(2))
	lr, err := trainer.LearningRate()
	ok(t, err)
	if !near(lr, 0.05, 1e-7) {
		t.Fatalf("lr %v", lr)
	}
	ok(t, trainer.SetLearningRate(0))
	before := paramBytes(t, trainer)
	_, err = trainer.Update(inputs, targets)
	ok(t, err)
	if after := paramBytes(t, trainer); !bytes.Equal(before[0], after[0]) {
		t.Fatalf("an update at lr 0 changed w")
	}
	ok(t, trainer.SetSchedule("warmup:steps=4", 0.2))
	_, err = trainer.Update(inputs, targets)
	ok(t, err)
	lr, err = trainer.LearningRate()
	ok(t, err)
	if !near(lr, 0.1, 1e-7) { // the second update since initialization: 0.2 * 2 / 4
		t.Fatalf("lr after warmup step 2: %v", lr)
	}
}

func TestCheckpointResumeIsBitIdentical(t *testing.T) {
	first, second := linearTrainer(t, "adam", "lr=0.05"), linearTrainer(t, "adam", "lr=0.05")
	_, _, inputs, targets := linearData()
	path := filepath.Join(t.TempDir(), "checkpoint.safetensors")
	ok(t, first.InitXavierUniform(5))
	for i := 0; i < 2; i++ {
		_, err := first.Update(inputs, targets)
		ok(t, err)
	}
	ok(t, first.SaveCheckpoint(path))
	ok(t, second.LoadCheckpoint(path))
	for i := 0; i < 3; i++ {
		a, err := first.Update(inputs, targets)
		ok(t, err)
		b, err := second.Update(inputs, targets)
		ok(t, err)
		if math.Float64bits(a) != math.Float64bits(b) {
			t.Fatalf("update %d after resuming: loss %v, want %v", i, b, a)
		}
	}
	a, b := paramBytes(t, first), paramBytes(t, second)
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			t.Fatalf("parameter %d differs after resuming", i)
		}
	}
	sgd := linearTrainer(t, "sgd", "lr=0.05")
	wantError(t, sgd.LoadCheckpoint(path), rxt.DataLoss, "another optimizer")
}

func TestProfileStepChangesNothing(t *testing.T) {
	trainer := linearTrainer(t, "sgd", "lr=0.05")
	_, _, inputs, targets := linearData()
	text, err := trainer.ProfileStep(inputs, targets)
	ok(t, err)
	if !bytes.Contains([]byte(text), []byte("kernel")) {
		t.Fatalf("profile without kernels: %q", text)
	}
	if step, _ := trainer.Step(); step != 0 {
		t.Fatalf("profiling counted as a step: %d", step)
	}
}
