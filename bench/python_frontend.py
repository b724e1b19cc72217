"""Training from Python: a torch.nn.Module imported with rxt.frontend.from_torch and trained by
rxt's Trainer, against the same module trained by torch's own loop (forward, cross entropy,
backward, SGD with momentum) in the same process, alternating blocks of steps; the medians per
step and their ratio. The threads: RXT_NUM_THREADS for rxt, torch.set_num_threads for torch,
both from --threads. Models: LeNet-5 (batch 64, 1x28x28), resnet18 (batch 8, 3x64x64) and the
transformer encoder layer (batch 32, 32x64) of the importers' tests.

  RXT_LIBRARY=build/bench/lib/librxt.so PYTHONPATH=abi/python /usr/bin/python3 bench/python_frontend.py --threads 1

At two threads set OMP_WAIT_POLICY=PASSIVE: in one process libgomp's idle threads spin and take
the cores from rxt's pool (and from torch's next step too).
"""
import argparse
import os
import pathlib
import statistics
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("--threads", type=int, default=1)
parser.add_argument("--rounds", type=int, default=7)
parser.add_argument("models", nargs="*", default=["lenet", "resnet18", "encoder"])
args = parser.parse_args()
os.environ["RXT_NUM_THREADS"] = str(args.threads)

import numpy as np  # noqa: E402
import torch  # noqa: E402

root = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(root / "tests" / "importers" / "onnx"), str(root / "tests" / "abi" / "python" / "frontend")]
import rxt  # noqa: E402
from models import make  # noqa: E402
from rxt import frontend  # noqa: E402
from rxt.training import SetupTrainer, Trainer  # noqa: E402
from rxt.training.loss import CrossEntropyLoss  # noqa: E402
from rxt.training.optimizer import MomentumSGD  # noqa: E402

torch.set_num_threads(args.threads)
SHAPES = {"lenet": (64, 1, 28, 28), "resnet18": (8, 3, 64, 64), "encoder": (32, 32, 64)}
STEPS = {"lenet": 20, "resnet18": 3, "encoder": 10}


def per_step(step, n):
    t = time.perf_counter()
    for _ in range(n):
        step()
    return (time.perf_counter() - t) / n * 1e3


for name in args.models:
    model = make(name).train()
    rng = np.random.default_rng(0)
    x = rxt.aligned(rng.standard_normal(SHAPES[name]).astype(np.float32))
    y = rxt.aligned(np.arange(SHAPES[name][0], dtype=np.int64) % 10)
    start = time.perf_counter()
    backbone = frontend.from_torch(model, torch.from_numpy(x))
    trainer = Trainer(backbone, backbone.param_num, SetupTrainer(CrossEntropyLoss(), MomentumSGD(0.01, 0.9))).build()
    trainer.load_params(backbone.params)
    if backbone.states:
        trainer.load_states(backbone.states)
    ready = time.perf_counter() - start
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    tx, ty = torch.from_numpy(x), torch.from_numpy(y)

    def torch_step():
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(tx), ty).backward()
        optimizer.step()

    def rxt_step():
        trainer.update_params(x, y)

    n = STEPS[name]
    per_step(torch_step, 2)
    per_step(rxt_step, 2)
    times = {"rxt": [], "torch": []}
    for _ in range(args.rounds):
        times["torch"].append(per_step(torch_step, n))
        times["rxt"].append(per_step(rxt_step, n))
    r, t = statistics.median(times["rxt"]), statistics.median(times["torch"])
    print(f"RESULT {name} threads={args.threads}: rxt {r:.2f} ms/step, torch {t:.2f} ms/step, "
          f"{t / r:.2f}x (import + compile {ready:.1f} s)")
