//go:build !rxt_runtime

package rxt_test

// Goroutines where docs/abi.md allows threads: separate trainers side by side (in one context),
// one module read by many, and one Trainer shared (the binding runs its calls one at a time).

import (
	"bytes"
	"errors"
	"sync"
	"testing"

	"rxt.dev/rxt"
)

func TestTrainersInGoroutinesAgree(t *testing.T) {
	module := parse(t, linearBackbone)
	context, err := rxt.NewContext(rxt.ContextOptions{NumThreads: 1})
	ok(t, err)
	defer context.Close()
	const workers = 4
	results := make([][][]byte, workers)
	errs := make([]error, workers)
	var wait sync.WaitGroup
	for g := 0; g < workers; g++ {
		wait.Add(1)
		go func(g int) {
			defer wait.Done()
			results[g], errs[g] = trainIndependently(module, context)
		}(g)
	}
	wait.Wait()
	for g := 0; g < workers; g++ {
		ok(t, errs[g])
		for i := range results[0] {
			if !bytes.Equal(results[g][i], results[0][i]) {
				t.Fatalf("goroutine %d's parameter %d differs from goroutine 0's", g, i)
			}
		}
	}
}

// trainIndependently makes its own trainer from the shared module and context, trains 5 steps
// and returns the parameters' bytes.
func trainIndependently(module *rxt.Module, context *rxt.Context) ([][]byte, error) {
	trainer, err := rxt.NewTrainer(module, rxt.TrainerOptions{Backend: "reference", Loss: "mse",
		Optimizer: "adam", OptimizerOptions: "lr=0.05", Context: context})
	if err != nil {
		return nil, err
	}
	defer trainer.Close()
	if err := trainer.InitXavierUniform(9); err != nil {
		return nil, err
	}
	_, _, inputs, targets := linearData()
	for i := 0; i < 5; i++ {
		if _, err := trainer.Update(inputs, targets); err != nil {
			return nil, err
		}
	}
	var out [][]byte
	for i := 0; i < 2; i++ {
		tensor, err := trainer.Get(rxt.Params, i)
		if err != nil {
			return nil, err
		}
		raw, err := tensor.Bytes()
		if err != nil {
			return nil, err
		}
		out = append(out, append([]byte(nil), raw...))
		tensor.Close()
	}
	return out, nil
}

func TestOneTrainerSharedByGoroutines(t *testing.T) {
	trainer := linearTrainer(t, "sgd", "lr=0.01")
	ok(t, trainer.InitXavierUniform(1))
	const workers, updates = 4, 10
	var wait sync.WaitGroup
	errs := make(chan error, workers*updates)
	for g := 0; g < workers; g++ {
		wait.Add(1)
		go func() {
			defer wait.Done()
			_, _, inputs, targets := linearData() // each goroutine's own slices
			for i := 0; i < updates; i++ {
				if _, err := trainer.Update(inputs, targets); err != nil {
					errs <- err
				}
				if _, err := trainer.Evaluate(inputs, targets); err != nil {
					errs <- err
				}
			}
		}()
	}
	wait.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	step, err := trainer.Step()
	ok(t, err)
	if step != workers*updates {
		t.Fatalf("step %d after %d updates", step, workers*updates)
	}
}

func TestModuleReadWhileAttributesChange(t *testing.T) {
	module := parse(t, linearBackbone)
	var wait sync.WaitGroup
	errs := make(chan error, 64)
	for g := 0; g < 4; g++ {
		wait.Add(1)
		go func(g int) {
			defer wait.Done()
			for i := 0; i < 20; i++ {
				if _, err := module.Print(); err != nil {
					errs <- err
				}
				if g == 0 {
					if err := module.SetAttrInt("round", int64(i)); err != nil {
						errs <- err
					}
				} else if _, err := module.AttrInt("param_num"); err != nil {
					errs <- err
				}
			}
		}(g)
	}
	wait.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if round, err := module.AttrInt("round"); err != nil || round != 19 {
		t.Fatalf("round %d, %v", round, err)
	}
}

// Closing a trainer while goroutines use it: each call either runs or says the trainer is
// closed; none crashes.
func TestCloseWhileInUse(t *testing.T) {
	trainer := linearTrainer(t, "sgd", "lr=0.01")
	var wait sync.WaitGroup
	failures := make(chan error, 8)
	for g := 0; g < 4; g++ {
		wait.Add(1)
		go func() {
			defer wait.Done()
			_, _, inputs, targets := linearData()
			for {
				_, err := trainer.Update(inputs, targets)
				var e *rxt.Error
				if err != nil && (!errors.As(err, &e) || e.Code != rxt.FailedPrecondition) {
					failures <- err
					return
				}
				if err != nil {
					return // closed
				}
			}
		}()
	}
	ok(t, trainer.Close())
	wait.Wait()
	close(failures)
	for err := range failures {
		t.Fatal(err)
	}
}
