"""What rxt's Python binding adds to a training step (issue 15: at most 10 us over the C call).
The seed MLP (batch 64) on the cpu backend: trainer.update_params(x, y) from NumPy arrays, against
the bare C call (rxt_trainer_update through ctypes on tensors converted once), alternating blocks
of 200 steps; prints the medians per step and the difference.

  RXT_LIBRARY=build/release/lib/librxt.so PYTHONPATH=abi/python /usr/bin/python3 bench/python_overhead.py
"""
import ctypes
import pathlib
import statistics
import time

import numpy as np

import rxt
from rxt import _lib
from rxt.training import SetupTrainer, Trainer
from rxt.training.loss import CrossEntropyLoss
from rxt.training.optimizer import SGD
from rxt.tensor import managed_array

root = pathlib.Path(__file__).resolve().parents[1]
trainer = Trainer(rxt.Module.load(root / "examples" / "mlp.rxt"), 6,
                  SetupTrainer(CrossEntropyLoss(), SGD(0.001))).build()
trainer.xavier_uniform_init_params()
rng = np.random.default_rng(0)
x = rng.random((64, 784), dtype=np.float32)
y = rng.integers(0, 10, 64).astype(np.int64)
tx, ty = rxt.Tensor.from_dlpack(x), rxt.Tensor.from_dlpack(y)
inputs, targets = managed_array([tx]), managed_array([ty])
loss = ctypes.c_double()


def python_step():
    trainer.update_params(x, y)


def c_step():
    _lib.check(_lib.lib.rxt_trainer_update(trainer._handle, inputs, 1, targets, 1, ctypes.byref(loss)))


def per_step(step, n=200):
    t = time.perf_counter()
    for _ in range(n):
        step()
    return (time.perf_counter() - t) / n * 1e6


for step in (python_step, c_step):
    per_step(step, 50)  # warm up
py, c = [], []
for _ in range(15):
    py.append(per_step(python_step))
    c.append(per_step(c_step))
mp, mc = statistics.median(py), statistics.median(c)
print(f"RESULT python update_params {mp:.1f} us, C call {mc:.1f} us, binding adds {mp - mc:.1f} us per step")
