"""What rxt's Python binding adds to a training step (issue 15: at most 10 us over the C call).
trainer.update_params(x, y) from NumPy arrays against the bare C call (rxt_trainer_update through
ctypes on tensors converted once), step by step in alternation (each step timed on its own, so a
busy phase of the machine hits both sides alike), medians per step and their difference:
on the seed MLP (batch 64, where the step's own time varies by more than the difference on a
busy machine) and on a tiny linear model (a step of a few microseconds: the binding's cost
alone). The arrays are 64-byte aligned (rxt.empty), so neither side copies them; the cost of
a ctypes call itself (to rxt_abi_version) is printed too.

  RXT_NUM_THREADS=1 RXT_LIBRARY=build/bench/lib/librxt.so PYTHONPATH=abi/python /usr/bin/python3 bench/python_overhead.py
"""
import ctypes
import pathlib
import statistics
import time

import numpy as np

import rxt
from rxt import _lib
from rxt.tensor import managed_array
from rxt.training import SetupTrainer, Trainer
from rxt.training.loss import CrossEntropyLoss, MSELoss
from rxt.training.optimizer import SGD

root = pathlib.Path(__file__).resolve().parents[1]
rng = np.random.default_rng(0)

TINY = """attributes {param_num = 2, state_num = 0}

def @backbone(%x: Tensor((8, 4), float32), %w: Tensor((4, 3), float32), %b: Tensor((3,), float32))
    -> Tensor((8, 3), float32) {
  %y = matmul(%x, %w)
  %z = add(%y, %b)
  return %z
}
"""


def aligned(values):
    out = rxt.empty(values.shape, values.dtype)
    out[...] = values
    return out


def per_step(step, n):
    t = time.perf_counter()
    for _ in range(n):
        step()
    return (time.perf_counter() - t) / n * 1e6


def measure(name, trainer, x, y, n, rounds):
    tx, ty = rxt.Tensor.from_dlpack(x), rxt.Tensor.from_dlpack(y)
    inputs, targets = managed_array([tx]), managed_array([ty])
    loss = ctypes.c_double()

    def python_step():
        trainer.update_params(x, y)

    def c_step():
        _lib.check(_lib.lib.rxt_trainer_update(trainer._handle, inputs, 1, targets, 1, ctypes.byref(loss)))

    for step in (python_step, c_step):
        per_step(step, n // 4)  # warm up
    py, c = [], []
    clock = time.perf_counter_ns
    for _ in range(rounds * n):
        t0 = clock()
        python_step()
        t1 = clock()
        c_step()
        t2 = clock()
        py.append((t1 - t0) / 1e3)
        c.append((t2 - t1) / 1e3)
    mp, mc = statistics.median(py), statistics.median(c)
    print(f"RESULT {name}: python update_params {mp:.1f} us, C call {mc:.1f} us, binding adds {mp - mc:.1f} us per step")


mlp = Trainer(rxt.Module.load(root / "examples" / "mlp.rxt"), 6, SetupTrainer(CrossEntropyLoss(), SGD(0.001))).build()
mlp.xavier_uniform_init_params()
measure("seed MLP, batch 64", mlp, aligned(rng.random((64, 784), dtype=np.float32)),
        aligned(rng.integers(0, 10, 64).astype(np.int64)), 200, 15)
tiny = Trainer(rxt.Module.parse(TINY), 2, SetupTrainer(MSELoss(), SGD(0.001))).build()
tiny.zero_init_params()
measure("tiny linear, 8x4", tiny, aligned(rng.random((8, 4), dtype=np.float32)),
        aligned(rng.random((8, 3), dtype=np.float32)), 2000, 21)
n = 200000
t = time.perf_counter()
for _ in range(n):
    _lib.lib.rxt_abi_version()
print(f"RESULT a ctypes call (rxt_abi_version): {(time.perf_counter() - t) / n * 1e6:.2f} us")
