package rxt_test

// What the runtime alone does (librxt_runtime: no compiler), run in both builds: with the build
// tag rxt_runtime these are the package's tests, without it they check that librxt does the
// same. The trainer is the seed MLP's trainer file (examples/mlp.rxt: x (64, 784) float32,
// targets (64,) int64 class indices; cross_entropy, adam lr=0.001), which the ctest fixture
// makes with `rxt build --trainer --library none` and names in RXT_GO_TRAINER_FILE.

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"rxt.dev/rxt"
)

const mlpBatch = 64

// loadMLP loads the fixture's trainer file (skipped, or failed under RXT_GO_STRICT, without it).
func loadMLP(t *testing.T) *rxt.Trainer {
	t.Helper()
	return loadTrainer(t, fromEnv(t, "RXT_GO_TRAINER_FILE", ""))
}

func loadTrainer(t *testing.T, path string) *rxt.Trainer {
	t.Helper()
	trainer, err := rxt.LoadTrainer(path, nil)
	if err != nil {
		t.Fatalf("LoadTrainer: %v", err)
	}
	t.Cleanup(func() { trainer.Close() })
	return trainer
}

// mlpBatchArgs is a fixed batch for the MLP: pixels in [0, 1] and labels 0..9, the same on
// every call (a new slice each time, so goroutines do not share it).
func mlpBatchArgs() (inputs, targets []rxt.Arg) {
	x := make([]float32, mlpBatch*784)
	for i := range x {
		x[i] = float32(i*7919%256) / 255
	}
	y := make([]int64, mlpBatch)
	for i := range y {
		y[i] = int64(i % 10)
	}
	return []rxt.Arg{rxt.Borrow(x, mlpBatch, 784)}, []rxt.Arg{rxt.Borrow(y, mlpBatch)}
}

func equalNames(got []string, want ...string) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}

func TestVersions(t *testing.T) {
	if rxt.ABIVersion() != rxt.HeaderABIVersion {
		t.Fatalf("librxt speaks ABI %d, rxt.h says %d", rxt.ABIVersion(), rxt.HeaderABIVersion)
	}
	if v := rxt.Version(); len(v) < 5 || v[1] != '.' {
		t.Fatalf("version %q", v)
	}
}

func TestTrainerFileLayout(t *testing.T) {
	trainer := loadMLP(t)
	for kind, want := range map[rxt.Kind][]string{rxt.Inputs: {"x"}, rxt.Targets: {"targets"},
		rxt.Params: {"w0", "b0", "w1", "b1", "w2", "b2"}, rxt.States: {}} {
		names, err := trainer.Names(kind)
		ok(t, err)
		if !equalNames(names, want...) {
			t.Errorf("kind %d: names %v, want %v", kind, names, want)
		}
	}
	index, err := trainer.Find(rxt.OptimizerState, "lr")
	ok(t, err)
	lr, err := trainer.LearningRate()
	ok(t, err)
	outputs, err := trainer.NumOutputs()
	ok(t, err)
	step, err := trainer.Step()
	ok(t, err)
	if index != 0 || !near(lr, 0.001, 1e-9) || outputs != 1 || step != 0 {
		t.Fatalf("lr at %d = %v, %d outputs, step %d", index, lr, outputs, step)
	}
	w0, err := trainer.GetByName(rxt.Params, "w0")
	ok(t, err)
	defer w0.Close()
	if shape := w0.Shape(); w0.DType() != rxt.Float32 || len(shape) != 2 || shape[0] != 784 || shape[1] != 128 {
		t.Fatalf("w0: %v %v", w0.DType(), shape)
	}
}

// The file's kernels train: the loss on one batch falls, Evaluate and Predict change nothing.
func TestTrainerFileTrains(t *testing.T) {
	trainer := loadMLP(t)
	inputs, targets := mlpBatchArgs()
	first, err := trainer.Evaluate(inputs, targets)
	ok(t, err)
	before := paramBytes(t, trainer)
	outputs, err := trainer.Predict(inputs...)
	ok(t, err)
	if len(outputs) != 1 || len(outputs[0].Shape()) != 2 || outputs[0].Shape()[0] != mlpBatch ||
		outputs[0].Shape()[1] != 10 {
		t.Fatalf("Predict: %d outputs, the first of shape %v", len(outputs), outputs[0].Shape())
	}
	scores, err := rxt.Copy[float32](outputs[0])
	ok(t, err)
	outputs[0].Close()
	for i, s := range scores {
		if math.IsNaN(float64(s)) || math.IsInf(float64(s), 0) {
			t.Fatalf("score %d is %v", i, s)
		}
	}
	again, err := trainer.Evaluate(inputs, targets)
	ok(t, err)
	if math.Float64bits(again) != math.Float64bits(first) || !sameBytes(before, paramBytes(t, trainer)) {
		t.Fatalf("Evaluate or Predict changed the trainer: loss %v, then %v", first, again)
	}
	var loss float64
	for i := 0; i < 10; i++ {
		loss, err = trainer.Update(inputs, targets)
		ok(t, err)
	}
	if step, _ := trainer.Step(); step != 10 {
		t.Fatalf("step %d after 10 updates", step)
	}
	if !(loss < 0.9*first) {
		t.Fatalf("10 updates on one batch: the loss went from %v to %v", first, loss)
	}
}

func sameBytes(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// Saving a loaded trainer (the same kernels, no compiler) and checkpointing it both go on bit for
// bit: three trainers, the original, its file and a fresh one given its checkpoint, make the same
// updates.
func TestTrainerFileSavedAndCheckpointedGoOnBitForBit(t *testing.T) {
	original := loadMLP(t)
	inputs, targets := mlpBatchArgs()
	for i := 0; i < 2; i++ {
		_, err := original.Update(inputs, targets)
		ok(t, err)
	}
	dir := t.TempDir()
	saved, checkpoint := filepath.Join(dir, "saved.rxtt"), filepath.Join(dir, "checkpoint.safetensors")
	ok(t, original.Save(saved))
	ok(t, original.SaveCheckpoint(checkpoint))
	reloaded := loadTrainer(t, saved)
	resumed := loadMLP(t)
	ok(t, resumed.LoadCheckpoint(checkpoint))
	for _, trainer := range []*rxt.Trainer{reloaded, resumed} {
		if step, _ := trainer.Step(); step != 2 {
			t.Fatalf("a trainer restored after 2 updates is at step %d", step)
		}
	}
	for i := 0; i < 3; i++ {
		want, err := original.Update(inputs, targets)
		ok(t, err)
		for name, trainer := range map[string]*rxt.Trainer{"saved file": reloaded, "checkpoint": resumed} {
			got, err := trainer.Update(inputs, targets)
			ok(t, err)
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("update %d from the %s: loss %v, want %v", i, name, got, want)
			}
		}
	}
	want := paramBytes(t, original)
	if !sameBytes(paramBytes(t, reloaded), want) || !sameBytes(paramBytes(t, resumed), want) {
		t.Fatal("the parameters differ after 3 more updates")
	}
}

// Trainers loaded from one file train side by side in goroutines (the race detector watches)
// and agree bit for bit; one of them shared by goroutines runs their calls one at a time.
func TestTrainerFileInGoroutines(t *testing.T) {
	path := fromEnv(t, "RXT_GO_TRAINER_FILE", "")
	const workers, updates = 3, 4
	results := make([][][]byte, workers)
	errs := make([]error, workers)
	var wait sync.WaitGroup
	for g := 0; g < workers; g++ {
		wait.Add(1)
		go func(g int) {
			defer wait.Done()
			trainer, err := rxt.LoadTrainer(path, nil)
			if err != nil {
				errs[g] = err
				return
			}
			defer trainer.Close()
			inputs, targets := mlpBatchArgs()
			for i := 0; i < updates && err == nil; i++ {
				_, err = trainer.Update(inputs, targets)
			}
			if err == nil {
				results[g], err = params(trainer)
			}
			errs[g] = err
		}(g)
	}
	wait.Wait()
	for g := 0; g < workers; g++ {
		ok(t, errs[g])
		if !sameBytes(results[g], results[0]) {
			t.Fatalf("goroutine %d's parameters differ from goroutine 0's", g)
		}
	}
	shared := loadTrainer(t, path)
	for g := 0; g < workers; g++ {
		wait.Add(1)
		go func(g int) {
			defer wait.Done()
			inputs, targets := mlpBatchArgs()
			for i := 0; i < updates && errs[g] == nil; i++ {
				_, errs[g] = shared.Update(inputs, targets)
			}
		}(g)
	}
	wait.Wait()
	for g := 0; g < workers; g++ {
		ok(t, errs[g])
	}
	if step, _ := shared.Step(); step != workers*updates {
		t.Fatalf("step %d after %d updates", step, workers*updates)
	}
}

func TestTrainerFileErrors(t *testing.T) {
	trainer := loadMLP(t)
	inputs, targets := mlpBatchArgs()
	_, err := trainer.Update([]rxt.Arg{rxt.Borrow(make([]float32, 784), 1, 784)}, targets)
	wantError(t, err, rxt.InvalidArgument, "train_step: argument 0 (%x): expected Tensor((64, 784), float32)")
	_, err = trainer.Update(inputs, []rxt.Arg{rxt.Borrow(make([]float32, mlpBatch), mlpBatch)})
	wantError(t, err, rxt.InvalidArgument, "int64")
	_, err = trainer.Find(rxt.Params, "w9")
	wantError(t, err, rxt.NotFound, "w9")
	wantError(t, trainer.SetSchedule("sawtooth", 0.1), rxt.InvalidArgument, "unknown schedule 'sawtooth'")
	dir := t.TempDir()
	corrupt := filepath.Join(dir, "corrupt.safetensors")
	ok(t, os.WriteFile(corrupt, []byte("not a checkpoint"), 0o644))
	wantError(t, trainer.LoadCheckpoint(filepath.Join(dir, "no_such_checkpoint.safetensors")), rxt.NotFound,
		"no_such_checkpoint")
	wantError(t, trainer.LoadCheckpoint(corrupt), rxt.DataLoss, "corrupt.safetensors")
	wantError(t, trainer.Save(filepath.Join(dir, "no_such_dir", "x.rxtt")), rxt.InvalidArgument,
		"cannot write '"+filepath.Join(dir, "no_such_dir", "x.rxtt")+"'")
	if step, _ := trainer.Step(); step != 0 {
		t.Fatalf("refused calls changed the step count to %d", step)
	}
	ok(t, trainer.Close())
	_, err = trainer.Update(inputs, targets)
	wantError(t, err, rxt.FailedPrecondition, "the trainer is closed")
}

func TestMissingAndCorruptFiles(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no_such_trainer.rxtt")
	_, err := rxt.LoadTrainer(missing, nil)
	wantError(t, err, rxt.NotFound, "no_such_trainer.rxtt")
	corrupt := filepath.Join(dir, "corrupt.rxtt")
	ok(t, os.WriteFile(corrupt, []byte("not a trainer file"), 0o644))
	_, err = rxt.LoadTrainer(corrupt, nil)
	wantError(t, err, rxt.DataLoss, "not an rxt trainer file")
	wantError(t, rxt.LoadPlugin(filepath.Join(dir, "no_such_plugin.so")), rxt.NotFound, "no_such_plugin.so")
	_, err = rxt.NewContext(rxt.ContextOptions{Plugins: []string{filepath.Join(dir, "absent.so")}})
	wantError(t, err, rxt.NotFound, "absent.so")
	context, err := rxt.NewContext(rxt.ContextOptions{NoSearchPath: true})
	ok(t, err)
	ok(t, context.Close())
	_, err = rxt.LoadTrainer(missing, context)
	wantError(t, err, rxt.FailedPrecondition, "the context is closed")
}

func TestPluginOfTheWrongABI(t *testing.T) {
	path := fromEnv(t, "RXT_TEST_PLUGIN_DIR", "bad/test_wrong_abi.so")
	wantError(t, rxt.LoadPlugin(path), rxt.FailedPrecondition, "speaks plugin ABI version 99")
	context, err := rxt.NewContext(rxt.ContextOptions{NoSearchPath: true, NumThreads: 1})
	ok(t, err)
	defer context.Close()
	wantError(t, context.LoadPlugin(path), rxt.FailedPrecondition, "test_wrong_abi.so")
	threads, err := context.NumThreads()
	ok(t, err)
	if threads != 1 {
		t.Fatalf("a context of 1 thread has %d", threads)
	}
}
