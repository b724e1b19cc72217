"""Gradient accumulation and data parallelism from Python (docs/distributed.md): two
micro-batches of 4 accumulated step as one batch of 8 (NumPy's mean MSE, exact to float32); a
data-parallel trainer in a world of one process trains as the plain one; an unknown collective
names itself. Several ranks: tests/abi/distributed (C, under mpirun)."""
import numpy as np
import pytest

import rxt
from rxt.training import SetupTrainer, Trainer
from rxt.training.loss import MSELoss
from rxt.training.optimizer import Adam

BACKBONE = """attributes {{param_num = 2, state_num = 0}}

def @backbone(%x: Tensor(({n}, 4), float32), %w: Tensor((4, 3), float32), %b: Tensor((3,), float32))
    -> Tensor(({n}, 3), float32) {{
  %y = matmul(%x, %w)
  %z = add(%y, %b)
  return %z
}}
"""


def trainer(batch, **options):
    setup = SetupTrainer(MSELoss(reduction="mean"), Adam(0.05))
    t = Trainer(rxt.Module.parse(BACKBONE.format(n=batch)), 2, setup, **options).build(backend="reference")
    t.xavier_uniform_init_params(seed=5)
    return t


def params(t):
    return {k: np.from_dlpack(v).copy() for k, v in t.export_params().items()}


def test_two_micro_batches_step_as_one_batch_of_both():
    rng = np.random.default_rng(0)
    whole, halves = trainer(8), trainer(4, accumulation=True)
    for _ in range(4):
        x, t = rng.standard_normal((8, 4), dtype=np.float32), rng.standard_normal((8, 3), dtype=np.float32)
        loss = whole.update_params(x, t)
        halves.accumulate(x[:4], t[:4])
        halves.accumulate(x[4:], t[4:])
        assert float(halves.apply_accumulated().numpy()) == pytest.approx(float(loss.numpy()), rel=1e-6)
    for name, value in params(whole).items():
        np.testing.assert_allclose(params(halves)[name], value, rtol=1e-5, atol=1e-6)
    with pytest.raises(rxt.Error, match="no micro-batch accumulated"):
        halves.apply_accumulated()
    with pytest.raises(rxt.Error, match="built without gradient accumulation"):
        whole.accumulate(x, t)


def test_a_world_of_one_rank_trains_as_alone():
    with pytest.raises(rxt.Error, match="no collective named 'nccl9'"):
        rxt.Comm("nccl9")
    try:
        world = rxt.Comm("mpi")
    except rxt.Error as e:
        pytest.skip(f"no 'mpi' collective (built without OpenMPI): {e}")
    assert (world.rank, world.size) == (0, 1)
    plain, parallel = trainer(8), trainer(8, data_parallel=True)
    parallel.set_comm(world)
    world.close()  # the trainer keeps its own reference
    rng = np.random.default_rng(1)
    for _ in range(3):
        x, t = rng.standard_normal((8, 4), dtype=np.float32), rng.standard_normal((8, 3), dtype=np.float32)
        assert float(parallel.update_params(x, t).numpy()) == float(plain.update_params(x, t).numpy())
    for name, value in params(plain).items():
        np.testing.assert_array_equal(params(parallel)[name], value)
