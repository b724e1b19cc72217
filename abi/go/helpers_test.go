package rxt_test

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rxt.dev/rxt"
)

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

// ramp is start, start + step, ... (count elements), as tests/abi/trainer_test.c's tensor_ramp.
func ramp(count int, start, step float32) []float32 {
	out := make([]float32, count)
	for i := range out {
		out[i] = start + float32(i)*step
	}
	return out
}

// linearData is the x (4, 3) and y (4, 2) of the C ABI's trainer test.
func linearData() (x, y []float32, inputs, targets []rxt.Arg) {
	x, y = ramp(12, -0.5, 0.1), ramp(8, 0.3, -0.07)
	return x, y, []rxt.Arg{rxt.Borrow(x, 4, 3)}, []rxt.Arg{rxt.Borrow(y, 4, 2)}
}

// wantError checks that |err| is an *rxt.Error with |code| whose message contains |text|.
func wantError(t *testing.T, err error, code rxt.Code, text string) {
	t.Helper()
	var e *rxt.Error
	if !errors.As(err, &e) {
		t.Fatalf("want an *rxt.Error (%v: ...%s...), got %v", code, text, err)
	}
	if e.Code != code || !strings.Contains(e.Message, text) {
		t.Fatalf("want %v containing %q, got %v: %q", code, text, e.Code, e.Message)
	}
}

func ok(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// get returns a copy of a trainer tensor's float32 values.
func get(t *testing.T, trainer *rxt.Trainer, kind rxt.Kind, name string) []float32 {
	t.Helper()
	tensor, err := trainer.GetByName(kind, name)
	ok(t, err)
	defer tensor.Close()
	values, err := rxt.Copy[float32](tensor)
	ok(t, err)
	return values
}

// paramBytes is every parameter's bytes, in order: what "bit-identical" compares.
func paramBytes(t *testing.T, trainer *rxt.Trainer) [][]byte {
	t.Helper()
	count, err := trainer.Count(rxt.Params)
	ok(t, err)
	out := make([][]byte, count)
	for i := range out {
		tensor, err := trainer.Get(rxt.Params, i)
		ok(t, err)
		view, err := tensor.Bytes()
		ok(t, err)
		out[i] = append([]byte(nil), view...)
		tensor.Close()
	}
	return out
}

func near(a, b, tolerance float64) bool { return math.Abs(a-b) <= tolerance }

// fromEnv is a directory or file the ctest registration names in environment variable |name|;
// without it the test is skipped (saying why), or fails under RXT_GO_STRICT=1 (as in ctest).
func fromEnv(t *testing.T, name, relative string) string {
	t.Helper()
	dir := os.Getenv(name)
	if dir == "" {
		if os.Getenv("RXT_GO_STRICT") != "" {
			t.Fatalf("%s is not set", name)
		}
		t.Skipf("%s is not set (tests/abi/go/CMakeLists.txt sets it)", name)
	}
	return filepath.Join(dir, relative)
}
