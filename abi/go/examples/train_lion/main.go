//go:build !rxt_runtime

// train_lion loads the Lion optimizer plugin (examples/plugins/lion, built against an rxt
// installation) and trains the seed MLP on Fashion-MNIST with optimizer "lion".
//
//	go run ./examples/train_lion -plugin build/lion/lion.so -epochs 1
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
	plugin := flag.String("plugin", "", "the Lion plugin (lion.so)")
	model := flag.String("model", "../../examples/mlp.rxt", "the backbone module (.rxt)")
	data := flag.String("data", fashionmnist.DefaultDir, "the Fashion-MNIST directory")
	trainCount := flag.Int("train", 0, "training images (0: all 60000)")
	testCount := flag.Int("test", 0, "test images (0: all 10000)")
	epochs := flag.Int("epochs", 1, "passes over the training images")
	options := flag.String("optimizer-options", "lr=0.0003", "Lion's options (lr, betas, weight_decay)")
	flag.Parse()
	if *plugin == "" {
		fmt.Fprintln(os.Stderr, "train_lion: -plugin lion.so is required")
		os.Exit(2)
	}
	if err := run(*plugin, *model, *data, *trainCount, *testCount, *epochs, *options); err != nil {
		fmt.Fprintln(os.Stderr, "train_lion:", err)
		os.Exit(1)
	}
}

func run(plugin, model, data string, trainCount, testCount, epochs int, options string) error {
	// Into the default context, where NewTrainer looks for the optimizer.
	if err := rxt.LoadPlugin(plugin); err != nil {
		return err
	}
	train, err := fashionmnist.Load(data, "train", trainCount)
	if err != nil {
		return err
	}
	test, err := fashionmnist.Load(data, "t10k", testCount)
	if err != nil {
		return err
	}
	text, err := os.ReadFile(model)
	if err != nil {
		return err
	}
	module, err := rxt.ParseModule(string(text), model)
	if err != nil {
		return err
	}
	defer module.Close()
	trainer, err := rxt.NewTrainer(module, rxt.TrainerOptions{Loss: "cross_entropy", Optimizer: "lion",
		OptimizerOptions: options})
	if err != nil {
		return err
	}
	defer trainer.Close()
	if err := trainer.InitXavierUniform(0); err != nil {
		return err
	}
	state, err := trainer.Names(rxt.OptimizerState)
	if err != nil {
		return err
	}
	fmt.Printf("optimizer lion (%s), its state: %v\n", options, state)
	return mnisttrain.Run(trainer, train, test, epochs, os.Stdout)
}
