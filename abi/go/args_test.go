//go:build !rxt_runtime

package rxt_test

// Calls with more Go slices than the C helpers take in place (RXT_GO_DIRECT, 8): the rest are
// copied to C memory, and the results must not tell the difference.

import (
	"fmt"
	"strings"
	"testing"

	"rxt.dev/rxt"
)

// sumBackbone returns x0 + ... + x<n-1> + w for n inputs of shape (2,).
func sumBackbone(n int) string {
	var params, body strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&params, "%%x%d: Tensor((2,), float32), ", i)
	}
	previous := "%w"
	for i := 0; i < n; i++ {
		fmt.Fprintf(&body, "    %%s%d = add(%s, %%x%d)\n", i, previous, i)
		previous = fmt.Sprintf("%%s%d", i)
	}
	return fmt.Sprintf(`attributes {param_num = 1, state_num = 0}
def @backbone(%s%%w: Tensor((2,), float32)) -> Tensor((2,), float32) {
  dataflow {
%s    output %s
  }
  return %s
}
`, params.String(), body.String(), previous, previous)
}

func TestMoreGoSlicesThanTakenInPlace(t *testing.T) {
	const n = 11
	trainer, err := rxt.NewTrainer(parse(t, sumBackbone(n)),
		rxt.TrainerOptions{Backend: "reference", Loss: "mse", LossOptions: `reduction="sum"`, Optimizer: "sgd",
			OptimizerOptions: "lr=0.25"})
	ok(t, err)
	defer trainer.Close()
	ok(t, trainer.SetByName(rxt.Params, "w", rxt.Borrow([]float32{100, 200}, 2)))
	inputs := make([]rxt.Arg, n)
	want := []float32{100, 200}
	for i := range inputs {
		x := []float32{float32(i + 1), float32(10 * (i + 1))}
		inputs[i] = rxt.Borrow(x, 2)
		want[0] += x[0]
		want[1] += x[1]
	}
	for round := 0; round < 2; round++ { // the slots are reused by the second call
		outputs, err := trainer.Predict(inputs...)
		ok(t, err)
		got, err := rxt.Copy[float32](outputs[0])
		ok(t, err)
		outputs[0].Close()
		if got[0] != want[0] || got[1] != want[1] {
			t.Fatalf("round %d: %v, want %v (every input, the copied ones too)", round, got, want)
		}
	}
	// The target is argument n: past the in-place ones too. MSE(sum) = sum (p - y)^2.
	target := []float32{want[0] - 1, want[1] + 2}
	loss, err := trainer.Evaluate(inputs, []rxt.Arg{rxt.Borrow(target, 2)})
	ok(t, err)
	if loss != 5 {
		t.Fatalf("loss %v, want 5", loss)
	}
	_, err = trainer.Update(inputs, []rxt.Arg{rxt.Borrow(target, 2)})
	ok(t, err)
	// w -= 0.25 * 2 (p - y): 100 - 0.5, 200 + 1.
	if w := get(t, trainer, rxt.Params, "w"); w[0] != 99.5 || w[1] != 201 {
		t.Fatalf("w after the update: %v", w)
	}
	// A wrong slice past the in-place ones is named by its position.
	inputs[n-1] = rxt.Borrow([]float32{1}, 2)
	_, err = trainer.Predict(inputs...)
	wantError(t, err, rxt.InvalidArgument, fmt.Sprintf("inputs %d: 1 elements do not fill shape (2,)", n-1))
}
