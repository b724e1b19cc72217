//go:build !rxt_runtime

package rxt_test

import (
	"os"
	"testing"

	"rxt.dev/rxt"
	"rxt.dev/rxt/internal/fashionmnist"
)

// The seed MLP (examples/mlp.rxt) learns from a small slice of Fashion-MNIST: after 2 passes over
// 640 images the loss on them has fallen well below its start. Needs Debian's
// dataset-fashion-mnist (RXT_FASHION_MNIST overrides the directory).
func TestSeedMLPLearns(t *testing.T) {
	dir := os.Getenv("RXT_FASHION_MNIST")
	if dir == "" {
		dir = fashionmnist.DefaultDir
	}
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("RXT_GO_STRICT") != "" {
			t.Fatalf("no Fashion-MNIST: %v", err)
		}
		t.Skipf("no Fashion-MNIST in %s (Debian's dataset-fashion-mnist)", dir)
	}
	const batch, batches = 64, 10
	data, err := fashionmnist.Load(dir, "train", batch*batches)
	ok(t, err)
	text, err := os.ReadFile("../../examples/mlp.rxt")
	ok(t, err)
	trainer, err := rxt.NewTrainer(parse(t, string(text)), rxt.TrainerOptions{Loss: "cross_entropy",
		Optimizer: "sgd", OptimizerOptions: "lr=0.1"})
	ok(t, err)
	defer trainer.Close()
	ok(t, trainer.InitXavierUniform(0))
	meanLoss := func(update bool) float64 {
		total := 0.0
		for b := 0; b < batches; b++ {
			x := rxt.Borrow(data.Images[b*batch*784:(b+1)*batch*784], batch, 784)
			y := rxt.Borrow(data.Labels[b*batch:(b+1)*batch], batch)
			call := trainer.Evaluate
			if update {
				call = trainer.Update
			}
			loss, err := call([]rxt.Arg{x}, []rxt.Arg{y})
			ok(t, err)
			total += loss
		}
		return total / batches
	}
	before := meanLoss(false)
	meanLoss(true)
	meanLoss(true)
	after := meanLoss(false)
	t.Logf("mean loss on %d images: %.4f before, %.4f after 2 passes", batch*batches, before, after)
	if !(after < 0.6*before) {
		t.Fatalf("the loss went from %v to %v", before, after)
	}
}
