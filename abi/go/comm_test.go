//go:build !rxt_runtime

package rxt_test

import (
	"math"
	"testing"

	"rxt.dev/rxt"
)

// Gradient accumulation and data parallelism through the Go binding (docs/distributed.md): one
// accumulated micro-batch steps exactly as Update; a data-parallel trainer in a world of one
// process (the "mpi" collective, when built) trains as the plain one; an unknown collective is
// NotFound. Several ranks: tests/abi/distributed (C, under mpirun).
func TestAccumulationAndComm(t *testing.T) {
	build := func(dataParallel, accumulation bool) *rxt.Trainer {
		trainer, err := rxt.NewTrainer(parse(t, linearBackbone), rxt.TrainerOptions{Backend: "reference",
			Loss: "mse", Optimizer: "adam", OptimizerOptions: "lr=0.05", DataParallel: dataParallel,
			Accumulation: accumulation})
		ok(t, err)
		t.Cleanup(func() { trainer.Close() })
		ok(t, trainer.InitXavierUniform(3))
		return trainer
	}
	_, _, inputs, targets := linearData()
	plain, accumulating := build(false, false), build(false, true)
	for i := 0; i < 3; i++ {
		loss, err := plain.Update(inputs, targets)
		ok(t, err)
		_, err = accumulating.Accumulate(inputs, targets)
		ok(t, err)
		applied, err := accumulating.ApplyAccumulated()
		ok(t, err)
		if math.Float64bits(applied) != math.Float64bits(loss) {
			t.Fatalf("step %d: applied loss %v, update %v", i, applied, loss)
		}
	}
	_, err := accumulating.ApplyAccumulated()
	wantError(t, err, rxt.FailedPrecondition, "no micro-batch accumulated")
	_, err = plain.Accumulate(inputs, targets)
	wantError(t, err, rxt.FailedPrecondition, "built without gradient accumulation")

	_, err = rxt.World("nccl9", nil)
	wantError(t, err, rxt.NotFound, "no collective named 'nccl9'")
	world, err := rxt.World("mpi", nil)
	if err != nil {
		t.Skipf("no \"mpi\" collective (built without OpenMPI): %v", err)
	}
	rank, err := world.Rank()
	ok(t, err)
	size, err := world.Size()
	ok(t, err)
	if rank != 0 || size != 1 {
		t.Fatalf("rank %d of %d without mpirun", rank, size)
	}
	parallel, alone := build(true, false), build(false, false)
	ok(t, parallel.SetComm(world))
	ok(t, world.Close()) // the trainer keeps its own reference
	for i := 0; i < 3; i++ {
		a, err := parallel.Update(inputs, targets)
		ok(t, err)
		b, err := alone.Update(inputs, targets)
		ok(t, err)
		if math.Float64bits(a) != math.Float64bits(b) {
			t.Fatalf("step %d: data-parallel loss %v, plain %v", i, a, b)
		}
	}
	_, err = world.Rank()
	wantError(t, err, rxt.FailedPrecondition, "closed")
	ok(t, parallel.SetComm(nil))
}
