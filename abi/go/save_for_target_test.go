//go:build !rxt_runtime

package rxt_test

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"rxt.dev/rxt"
)

// SaveForTarget, as tests/abi/trainer_test.c checks rxt_trainer_save_for_target: a file for the
// baseline x86-64 CPU (one any x86-64 machine loads) goes on bit for bit; a target or CPU LLVM
// does not know is InvalidArgument and writes nothing; a file for aarch64 (when its cross
// compiler is on PATH) is made, and refused here naming the architecture.
func TestSaveForTarget(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skipf("the x86-64 file and the refusal of the aarch64 one are for an x86-64 machine, not %s", runtime.GOARCH)
	}
	trainer, err := rxt.NewTrainer(parse(t, linearBackbone), rxt.TrainerOptions{Backend: "cpu", Libraries: "none",
		Loss: "mse", Optimizer: "adam", OptimizerOptions: "lr=0.05"})
	ok(t, err)
	defer trainer.Close()
	ok(t, trainer.InitXavierUniform(3))
	_, _, inputs, targets := linearData()
	dir := t.TempDir()
	portable := filepath.Join(dir, "x86-64.rxtt")
	ok(t, trainer.SaveForTarget(portable, "", "x86-64", ""))
	loaded, err := rxt.LoadTrainer(portable, nil)
	ok(t, err)
	defer loaded.Close()
	for i := 0; i < 3; i++ {
		want, err := trainer.Update(inputs, targets)
		ok(t, err)
		got, err := loaded.Update(inputs, targets)
		ok(t, err)
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("update %d from the x86-64 file: loss %v, the trainer's %v", i, got, want)
		}
	}
	if !sameBytes(paramBytes(t, loaded), paramBytes(t, trainer)) {
		t.Fatal("the parameters differ after 3 updates")
	}

	unwritten := filepath.Join(dir, "unwritten.rxtt")
	wantError(t, trainer.SaveForTarget(unwritten, "nonsense-arch-linux", "", ""), rxt.InvalidArgument,
		"cannot compile for 'nonsense-arch-linux'")
	wantError(t, trainer.SaveForTarget(unwritten, "", "pentium9000", ""), rxt.InvalidArgument,
		"'pentium9000' is not a CPU LLVM knows")
	if _, err := os.Stat(unwritten); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a failed SaveForTarget left %s (%v)", unwritten, err)
	}

	if _, err := exec.LookPath("aarch64-linux-gnu-gcc"); err != nil {
		t.Log("no aarch64-linux-gnu-gcc on PATH: the aarch64 file is not made")
		return
	}
	arm := filepath.Join(dir, "arm.rxtt")
	ok(t, trainer.SaveForTarget(arm, "aarch64-linux-gnu", "", ""))
	refused, err := rxt.LoadTrainer(arm, nil)
	wantError(t, err, rxt.FailedPrecondition, "kernel library: built for aarch64, and this machine is x86_64")
	if refused != nil {
		t.Fatal("a refused trainer file returned a trainer")
	}
}
