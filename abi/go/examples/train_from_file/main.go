//go:build rxt_runtime

// train_from_file goes on training from a trainer file (.rxtt: `rxt build --trainer`, or Save)
// with librxt_runtime alone: no compiler, no LLVM, no backend plugin where it runs. It trains
// -steps batches of Fashion-MNIST in order, printing every loss ("loss STEP VALUE", as
// tests/abi/runtime/train_from_file.c --losses does), saves the trainer with -save, and fails
// if the process maps libLLVM, librxt.so or a backend plugin.
//
// It is built only with the build tag rxt_runtime, which links librxt_runtime:
//
//	rxt build ../../examples/mlp.rxt --trainer --library none -o mlp.rxtt
//	go run -tags rxt_runtime ./examples/train_from_file -trainer mlp.rxtt -steps 20 -save trained.rxtt
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strings"

	"rxt.dev/rxt"
	"rxt.dev/rxt/internal/fashionmnist"
)

func main() {
	trainerFile := flag.String("trainer", "", "the trainer file to go on from (.rxtt)")
	save := flag.String("save", "", "save the trained trainer to this trainer file (.rxtt)")
	data := flag.String("data", fashionmnist.DefaultDir, "the Fashion-MNIST directory")
	steps := flag.Int("steps", 20, "updates, one batch each, from the first training image on")
	batch := flag.Int("batch", 64, "the batch size the trainer file was compiled for (examples/mlp.rxt: 64)")
	flag.Parse()
	if *trainerFile == "" || *steps <= 0 || *batch <= 0 {
		fmt.Fprintln(os.Stderr, "usage: train_from_file -trainer FILE.rxtt [-save OUT.rxtt] [-data DIR] [-steps N] [-batch B]")
		os.Exit(2)
	}
	if err := run(*trainerFile, *save, *data, *steps, *batch); err != nil {
		fmt.Fprintln(os.Stderr, "train_from_file:", err)
		os.Exit(1)
	}
}

func run(trainerFile, save, data string, steps, batch int) error {
	trainer, err := rxt.LoadTrainer(trainerFile, nil)
	if err != nil {
		return err
	}
	defer trainer.Close()
	train, err := fashionmnist.Load(data, "train", steps*batch)
	if err != nil {
		return err
	}
	if train.Count < steps*batch {
		return fmt.Errorf("%d steps of %d images need %d images; %s has %d", steps, batch, steps*batch, data, train.Count)
	}
	start, err := trainer.Step()
	if err != nil {
		return err
	}
	fmt.Printf("rxt %s, %s from step %d: %d steps of %d images\n", rxt.Version(), trainerFile, start, steps, batch)
	var first, last float64
	for s := 0; s < steps; s++ {
		images := train.Images[s*batch*fashionmnist.ImageSize : (s+1)*batch*fashionmnist.ImageSize]
		x := rxt.Borrow(images, int64(batch), fashionmnist.ImageSize)
		y := rxt.Borrow(train.Labels[s*batch:(s+1)*batch], int64(batch))
		loss, err := trainer.Update([]rxt.Arg{x}, []rxt.Arg{y})
		if err != nil {
			return err
		}
		fmt.Printf("loss %d %.9g\n", s, loss)
		if s == 0 {
			first = loss
		}
		last = loss
	}
	fmt.Printf("steps %d, loss %.6f -> %.6f\n", steps, first, last)
	if save != "" {
		if err := trainer.Save(save); err != nil {
			return err
		}
		fmt.Println("saved", save)
	}
	// Checked last, when everything the run needed has been loaded.
	if line, err := mapsCompiler(); err != nil {
		return err
	} else if line != "" {
		return fmt.Errorf("the process maps the compiler or LLVM: %s", line)
	}
	fmt.Println("the process maps neither libLLVM, librxt.so nor a backend plugin")
	return nil
}

// mapsCompiler is the first line of /proc/self/maps naming libLLVM, librxt.so or a backend
// plugin ("" if none), as train_from_file.c --no-compiler looks for them.
func mapsCompiler() (string, error) {
	maps, err := os.Open("/proc/self/maps")
	if err != nil {
		return "", err
	}
	defer maps.Close()
	scanner := bufio.NewScanner(maps)
	for scanner.Scan() {
		for _, name := range []string{"libLLVM", "/librxt.so", "rxt_backend_"} {
			if strings.Contains(scanner.Text(), name) {
				return scanner.Text(), nil
			}
		}
	}
	return "", scanner.Err()
}
