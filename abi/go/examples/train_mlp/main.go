//go:build !rxt_runtime

// train_mlp trains the seed MLP (examples/mlp.rxt: 784-128-128-10) on Fashion-MNIST through
// rxt's Go binding and prints each epoch's loss and test accuracy. With -save it writes the
// trained trainer to a trainer file; with -load it goes on from one (no compiler involved);
// with -checkpoint it writes the final values (safetensors) to compare with other runs.
//
//	go run ./examples/train_mlp -model ../../examples/mlp.rxt -epochs 1 -save mlp.rxtt
//	go run ./examples/train_mlp -load mlp.rxtt -epochs 1
package main

import (
	"flag"
	"fmt"
	"os"

	"rxt.dev/rxt"
	"rxt.dev/rxt/examples/internal/mnisttrain"
	"rxt.dev/rxt/internal/fashionmnist"
)

func main() {
	model := flag.String("model", "../../examples/mlp.rxt", "the backbone module (.rxt)")
	load := flag.String("load", "", "go on from this trainer file (.rxtt) instead of building -model")
	save := flag.String("save", "", "save the trainer to this trainer file (.rxtt) at the end")
	checkpoint := flag.String("checkpoint", "", "save the final values to this checkpoint (.safetensors)")
	data := flag.String("data", fashionmnist.DefaultDir, "the Fashion-MNIST directory")
	trainCount := flag.Int("train", 0, "training images (0: all 60000)")
	testCount := flag.Int("test", 0, "test images (0: all 10000)")
	epochs := flag.Int("epochs", 1, "passes over the training images")
	optimizer := flag.String("optimizer", "adam", "the optimizer")
	options := flag.String("optimizer-options", "lr=0.001", "the optimizer's options")
	backend := flag.String("backend", "", "the backend (default: cpu if its plugin is there, else reference)")
	flag.Parse()
	files := outputs{trainer: *save, checkpoint: *checkpoint}
	if err := run(*model, *load, files, *data, *trainCount, *testCount, *epochs, *optimizer, *options, *backend); err != nil {
		fmt.Fprintln(os.Stderr, "train_mlp:", err)
		os.Exit(1)
	}
}

// outputs are the files written at the end ("": none).
type outputs struct{ trainer, checkpoint string }

func run(model, load string, save outputs, data string, trainCount, testCount, epochs int, optimizer, options, backend string) error {
	train, err := fashionmnist.Load(data, "train", trainCount)
	if err != nil {
		return err
	}
	test, err := fashionmnist.Load(data, "t10k", testCount)
	if err != nil {
		return err
	}
	trainer, err := makeTrainer(model, load, optimizer, options, backend)
	if err != nil {
		return err
	}
	defer trainer.Close()
	step, err := trainer.Step()
	if err != nil {
		return err
	}
	fmt.Printf("rxt %s, %d training and %d test images, from step %d\n", rxt.Version(), train.Count, test.Count, step)
	if err := mnisttrain.Run(trainer, train, test, epochs, os.Stdout); err != nil {
		return err
	}
	if save.trainer != "" {
		if err := trainer.Save(save.trainer); err != nil {
			return err
		}
		fmt.Println("saved", save.trainer)
	}
	if save.checkpoint != "" {
		if err := trainer.SaveCheckpoint(save.checkpoint); err != nil {
			return err
		}
		fmt.Println("saved", save.checkpoint)
	}
	return nil
}

// makeTrainer opens a trainer file, or builds the module with cross_entropy and the optimizer
// and starts from Xavier-uniform weights.
func makeTrainer(model, load, optimizer, options, backend string) (*rxt.Trainer, error) {
	if load != "" {
		return rxt.LoadTrainer(load, nil)
	}
	text, err := os.ReadFile(model)
	if err != nil {
		return nil, err
	}
	module, err := rxt.ParseModule(string(text), model)
	if err != nil {
		return nil, err
	}
	defer module.Close()
	trainer, err := rxt.NewTrainer(module, rxt.TrainerOptions{Backend: backend, Loss: "cross_entropy",
		Optimizer: optimizer, OptimizerOptions: options})
	if err != nil {
		return nil, err
	}
	if err := trainer.InitXavierUniform(0); err != nil {
		trainer.Close()
		return nil, err
	}
	return trainer, nil
}
