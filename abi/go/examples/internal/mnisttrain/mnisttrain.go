// Package mnisttrain is the loop both examples run: epochs over Fashion-MNIST in batches of the
// seed MLP's size, each batch borrowed in place from the data set's slices (no copy), then the
// test accuracy from the trainer's predictions.
package mnisttrain

import (
	"fmt"
	"io"
	"time"

	"rxt.dev/rxt"
	"rxt.dev/rxt/internal/fashionmnist"
)

// Batch is the batch size examples/mlp.rxt is compiled for.
const Batch = 64

// batch is batch |b| of |data| as the trainer's input and target.
func batch(data *fashionmnist.Set, b int) (x, y rxt.Arg) {
	images := data.Images[b*Batch*fashionmnist.ImageSize : (b+1)*Batch*fashionmnist.ImageSize]
	return rxt.Borrow(images, Batch, fashionmnist.ImageSize), rxt.Borrow(data.Labels[b*Batch:(b+1)*Batch], Batch)
}

// Epoch runs one update per whole batch of |data| (a last partial batch is dropped) and
// returns the mean loss.
func Epoch(trainer *rxt.Trainer, data *fashionmnist.Set) (float64, error) {
	batches := data.Count / Batch
	if batches == 0 {
		return 0, fmt.Errorf("fewer than %d training images", Batch)
	}
	total := 0.0
	for b := 0; b < batches; b++ {
		x, y := batch(data, b)
		loss, err := trainer.Update([]rxt.Arg{x}, []rxt.Arg{y})
		if err != nil {
			return 0, err
		}
		total += loss
	}
	return total / float64(batches), nil
}

// Accuracy is the fraction of whole batches of |data| whose highest score is the label.
func Accuracy(trainer *rxt.Trainer, data *fashionmnist.Set) (float64, error) {
	batches, correct := data.Count/Batch, 0
	if batches == 0 {
		return 0, fmt.Errorf("fewer than %d test images", Batch)
	}
	for b := 0; b < batches; b++ {
		x, _ := batch(data, b)
		outputs, err := trainer.Predict(x)
		if err != nil {
			return 0, err
		}
		scores, err := rxt.Data[float32](outputs[0]) // (64, 10), rxt's memory: read before Close
		if err != nil {
			return 0, err
		}
		for i := 0; i < Batch; i++ {
			best := 0
			for c := 1; c < 10; c++ {
				if scores[i*10+c] > scores[i*10+best] {
					best = c
				}
			}
			if int64(best) == data.Labels[b*Batch+i] {
				correct++
			}
		}
		outputs[0].Close()
	}
	return float64(correct) / float64(batches*Batch), nil
}

// Run trains |epochs| epochs, printing each one's mean loss, test accuracy and time.
func Run(trainer *rxt.Trainer, train, test *fashionmnist.Set, epochs int, out io.Writer) error {
	for e := 1; e <= epochs; e++ {
		start := time.Now()
		loss, err := Epoch(trainer, train)
		if err != nil {
			return err
		}
		seconds := time.Since(start).Seconds()
		accuracy, err := Accuracy(trainer, test)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "epoch %d: loss %.4f, test accuracy: %.2f%% (%d images), %.2f s\n", e, loss,
			100*accuracy, test.Count/Batch*Batch, seconds)
	}
	return nil
}
