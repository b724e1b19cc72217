//go:build !rxt_runtime

package rxt_test

import (
	"testing"

	"rxt.dev/rxt"
)

func TestTensorViewsAndCopies(t *testing.T) {
	trainer := linearTrainer(t, "sgd", "lr=0.05")
	w := []float32{1, 2, 3, 4, 5, 6}
	ok(t, trainer.SetByName(rxt.Params, "w", rxt.Borrow(w, 3, 2)))
	tensor, err := trainer.GetByName(rxt.Params, "w")
	ok(t, err)
	if tensor.DType() != rxt.Float32 || tensor.Len() != 6 || tensor.DType().String() != "float32" {
		t.Fatalf("dtype %v len %d", tensor.DType(), tensor.Len())
	}
	view, err := rxt.Data[float32](tensor)
	ok(t, err)
	copied, err := rxt.Copy[float32](tensor)
	ok(t, err)
	raw, err := tensor.Bytes()
	ok(t, err)
	if len(raw) != 24 || view[5] != 6 || copied[5] != 6 {
		t.Fatalf("bytes %d, view %v, copy %v", len(raw), view, copied)
	}
	view[0] = 42 // the view is the tensor's memory itself
	if again, _ := rxt.Copy[float32](tensor); again[0] != 42 {
		t.Fatalf("Data is not a view of the tensor's memory")
	}
	_, err = rxt.Data[float64](tensor)
	wantError(t, err, rxt.InvalidArgument, "the tensor holds float32, not float64")
	_, err = rxt.Copy[int64](tensor)
	wantError(t, err, rxt.InvalidArgument, "not int64")
	ok(t, tensor.Close())
	if copied[0] != 1 {
		t.Fatalf("a copy changed: %v", copied)
	}
	// The snapshot was the tensor's own memory: the trainer kept its value.
	if got := get(t, trainer, rxt.Params, "w"); got[0] != 1 {
		t.Fatalf("writing a snapshot changed the trainer: %v", got)
	}
}

func TestBorrowTakesEveryElementType(t *testing.T) {
	trainer := linearTrainer(t, "sgd", "lr=0.05")
	cases := map[string]rxt.Arg{
		"int8": rxt.Borrow(make([]int8, 6), 3, 2), "int16": rxt.Borrow(make([]int16, 6), 3, 2),
		"int32": rxt.Borrow(make([]int32, 6), 3, 2), "int64": rxt.Borrow(make([]int64, 6), 3, 2),
		"uint8": rxt.Borrow(make([]uint8, 6), 3, 2), "float64": rxt.Borrow(make([]float64, 6), 3, 2),
	}
	for name, arg := range cases { // rxt names the dtype each arrived as
		wantError(t, trainer.Set(rxt.Params, 0, arg), rxt.InvalidArgument, "got "+name+" (3, 2)")
	}
}
