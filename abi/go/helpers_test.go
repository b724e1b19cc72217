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

// ramp is start, start + step, ... (count elements), as tests/abi/trainer_test.c's tensor_ramp.
func ramp(count int, start, step float32) []float32 {
	out := make([]float32, count)
	for i := range out {
		out[i] = start + float32(i)*step
	}
	return out
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
	out, err := params(trainer)
	ok(t, err)
	return out
}

// params is paramBytes for goroutines other than the test's, which may not call t.Fatal.
func params(trainer *rxt.Trainer) ([][]byte, error) {
	count, err := trainer.Count(rxt.Params)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, count)
	for i := range out {
		tensor, err := trainer.Get(rxt.Params, i)
		if err != nil {
			return nil, err
		}
		view, err := tensor.Bytes()
		if err == nil {
			out[i] = append([]byte(nil), view...)
		}
		tensor.Close()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
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
