//go:build !rxt_runtime

package rxt_test

import (
	"testing"

	"rxt.dev/rxt"
)

// Helpers of the tests that make trainers with the compiler (librxt); the runtime's tests load
// trainer files instead (runtime_test.go).

// runtimeOnly: this test binary is linked against librxt (runtime_only_test.go says true for
// the build tag rxt_runtime).
const runtimeOnly = false

// The linear backbone of the C ABI's tests (tests/abi/linear_backbone.h): 4 samples, 3
// features, 2 outputs, parameters w and b.
const linearBackbone = `attributes {param_num = 2, state_num = 0}
def @backbone(%x: Tensor((4, 3), float32), %w: Tensor((3, 2), float32), %b: Tensor((2,), float32))
    -> Tensor((4, 2), float32) {
  dataflow {
    %h = matmul(%x, %w)
    %out = add(%h, %b)
    output %out
  }
  return %out
}
`

func parse(t *testing.T, text string) *rxt.Module {
	t.Helper()
	m, err := rxt.ParseModule(text, "test.rxt")
	if err != nil {
		t.Fatalf("ParseModule: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// linearTrainer builds the linear backbone with MSE (sum) on the reference backend, as the C
// ABI's trainer test does.
func linearTrainer(t *testing.T, optimizer, optimizerOptions string) *rxt.Trainer {
	t.Helper()
	trainer, err := rxt.NewTrainer(parse(t, linearBackbone), rxt.TrainerOptions{Backend: "reference",
		Loss: "mse", LossOptions: `reduction="sum"`, Optimizer: optimizer, OptimizerOptions: optimizerOptions})
	if err != nil {
		t.Fatalf("NewTrainer: %v", err)
	}
	t.Cleanup(func() { trainer.Close() })
	return trainer
}

// linearData is the x (4, 3) and y (4, 2) of the C ABI's trainer test.
func linearData() (x, y []float32, inputs, targets []rxt.Arg) {
	x, y = ramp(12, -0.5, 0.1), ramp(8, 0.3, -0.07)
	return x, y, []rxt.Arg{rxt.Borrow(x, 4, 3)}, []rxt.Arg{rxt.Borrow(y, 4, 2)}
}
