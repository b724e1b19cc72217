#!/usr/bin/python3
"""The PyTorch peer of rxt's benchmarks (bench/peers/README.md).

The same workloads, defaults and RESULT fields as the libtorch peer (libtorch/) and rxt's
bench/train_bench.cc, so that bench/train.sh passes all three the same flags:

    /usr/bin/python3 torch_mlp.py --model mlp --threads 1 --reduction mean --lr 0.1 --epochs 1
    /usr/bin/python3 torch_mlp.py --model cnn --threads 1
    /usr/bin/python3 torch_mlp.py --model infer --threads 1

Run it with Debian's /usr/bin/python3 (python3-torch is installed for that interpreter only).
Prints progress lines, then one line "RESULT {json}".
"""
import argparse
import gzip
import json
import math
import os
import resource
import statistics
import struct
import time

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

DATA_DIR = "/usr/share/datasets/fashion-mnist"
WARMUP_STEPS = 50      # left out of the step statistics (caches, allocator)
LOSS_EVERY = 100       # reading the loss synchronizes: only every this many steps
EVAL_BATCH = 1000
WARMUP_CALLS = 200     # untimed inference calls before the timed ones


# ---- Data -------------------------------------------------------------------------------------

def read_idx(name):
    """An IDX file (magic number whose low byte is the rank, big-endian dims, uint8 values)."""
    with gzip.open(os.path.join(DATA_DIR, name), "rb") as f:
        raw = f.read()
    rank = raw[3]
    dims = struct.unpack(f">{rank}I", raw[4:4 + 4 * rank])
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * rank).reshape(dims)


def images(name):
    """[N, 784] float32 in [0, 1]."""
    pixels = read_idx(name)
    flat = torch.from_numpy(pixels.reshape(pixels.shape[0], -1).astype(np.float32))
    return flat.div_(255.0)  # in place: no second copy of the training set


def labels(name):
    return torch.from_numpy(read_idx(name).astype(np.int64))


def load_fashion_mnist():
    return (images("train-images-idx3-ubyte.gz"), labels("train-labels-idx1-ubyte.gz"),
            images("t10k-images-idx3-ubyte.gz"), labels("t10k-labels-idx1-ubyte.gz"))


# ---- Models -----------------------------------------------------------------------------------

class Mlp(nn.Module):
    """The seed MLP 784-128-128-10 with ReLU; Xavier-uniform weights, zero biases."""

    def __init__(self):
        super().__init__()
        # Created in this order so that the seeded generator gives every peer the same weights.
        self.fc1 = nn.Linear(784, 128)
        self.fc2 = nn.Linear(128, 128)
        self.fc3 = nn.Linear(128, 10)
        for layer in (self.fc1, self.fc2, self.fc3):
            nn.init.xavier_uniform_(layer.weight)
            nn.init.zeros_(layer.bias)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)

    @staticmethod
    def reshape(flat_images):
        return flat_images


class LeNet5(nn.Module):
    """conv 1->6 5x5 pad 2, ReLU, pool 2, conv 6->16 5x5, ReLU, pool 2, 400->120->84->10."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, padding=2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(400, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)

    @staticmethod
    def reshape(flat_images):
        return flat_images.view(-1, 1, 28, 28)


# ---- Measurements -----------------------------------------------------------------------------

def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB


def current_rss_mb():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


# ---- Workloads --------------------------------------------------------------------------------

def test_accuracy(model, test_images, test_labels):
    model.eval()
    correct = 0
    with torch.no_grad():
        for start in range(0, test_images.shape[0], EVAL_BATCH):
            batch = model.reshape(test_images[start:start + EVAL_BATCH])
            predicted = model(batch).argmax(1)
            correct += (predicted == test_labels[start:start + EVAL_BATCH]).sum().item()
    model.train()
    return correct / test_images.shape[0]


def train(args, train_images, train_labels, test_images, test_labels):
    """Each epoch shuffles (seeded randperm) into a contiguous copy, inside the epoch timer and
    outside the step timer; a step is zero_grad + forward + cross entropy + backward + SGD step
    on the next contiguous batch; the last incomplete batch is dropped."""
    if args.model == "cnn":
        model = LeNet5()
        optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    else:
        model = Mlp()
        optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    batch = args.batch
    steps = train_images.shape[0] // batch
    shuffle = torch.Generator().manual_seed(args.seed)
    step_s, epoch_s, accuracies, logged_losses = [], [], [], []
    for epoch in range(1, args.epochs + 1):
        epoch_start = time.perf_counter()
        order = torch.randperm(train_images.shape[0], generator=shuffle)
        xs = ys = x = y = None  # free the last epoch's copy (and views of it) first
        xs = model.reshape(train_images[order])
        ys = train_labels[order]
        logged = 0.0
        for step in range(steps):
            step_start = time.perf_counter()
            x = xs[step * batch:(step + 1) * batch]
            y = ys[step * batch:(step + 1) * batch]
            optimizer.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(x), y, reduction=args.reduction)
            loss.backward()
            optimizer.step()
            step_s.append(time.perf_counter() - step_start)
            if step % LOSS_EVERY == 0:
                logged = loss.item()
        epoch_s.append(time.perf_counter() - epoch_start)
        accuracies.append(test_accuracy(model, test_images, test_labels))
        logged_losses.append(logged)
        print(f"epoch {epoch}: train_time {epoch_s[-1]:.3f}s  last_logged_loss {logged:.4f}  "
              f"test_acc {accuracies[-1]:.4f}", flush=True)
    steady_ms = [s * 1e3 for s in step_s[WARMUP_STEPS:]]
    return {
        "steps_per_epoch": steps,
        "step_median_ms": statistics.median(steady_ms),
        "step_mean_ms": statistics.fmean(steady_ms),
        "step_p10_ms": float(np.percentile(steady_ms, 10)),
        "step_p90_ms": float(np.percentile(steady_ms, 90)),
        "epoch_s": epoch_s,
        "epoch_median_s": statistics.median(epoch_s),
        "test_acc": accuracies,
        "final_test_acc": accuracies[-1],
        "logged_loss": logged_losses,
        # diverged: a logged loss became inf or NaN; collapsed: the final accuracy fell more than
        # 10 points below the best epoch's.
        "diverged": not all(math.isfinite(l) for l in logged_losses),
        "collapsed": accuracies[-1] < max(accuracies) - 0.10,
    }


def time_inference(args):
    """The freshly initialized MLP on random input, batch 64 then batch 1, call by call."""
    model = Mlp().eval()
    result = {}
    for batch in (64, 1):
        x = torch.rand(batch, 784)
        with torch.inference_mode():
            for _ in range(WARMUP_CALLS):
                model(x)
            us = []
            for _ in range(args.infer_iters):
                start = time.perf_counter()
                model(x)
                us.append((time.perf_counter() - start) * 1e6)
        median, fastest = statistics.median(us), min(us)
        result[f"infer_b{batch}_median_us"] = median
        result[f"infer_b{batch}_min_us"] = fastest
        print(f"inference batch {batch}: median {median:.1f} us  min {fastest:.1f} us", flush=True)
    return result


# ---- Command line -----------------------------------------------------------------------------

def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", choices=["mlp", "cnn", "infer"], default="mlp")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--epochs", type=int, default=None, help="default: 5 for mlp, 1 for cnn")
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--weight-decay", type=float, default=0.01, help="the MLP's SGD only")
    p.add_argument("--reduction", choices=["sum", "mean"], default=None,
                   help="cross entropy's; default: sum for mlp, mean for cnn")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--infer-iters", type=int, default=5000)
    p.add_argument("--flush-denormal", action="store_true", help="flush denormals to zero (FTZ/DAZ)")
    args = p.parse_args()
    if args.epochs is None:
        args.epochs = 1 if args.model == "cnn" else 5
    if args.reduction is None:
        args.reduction = "mean" if args.model == "cnn" else "sum"
    if args.epochs < 1 or args.batch < 1 or args.threads < 1:
        p.error("--epochs, --batch and --threads must be at least 1")
    return args


def main():
    args = parse_args()
    # Threads and seed before anything draws a random number or starts a pool.
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    if args.flush_denormal:
        torch.set_flush_denormal(True)
    result = {"impl": "pytorch-python", "torch": torch.__version__, "model": args.model,
              "rss_at_start_mb": current_rss_mb(), "threads": torch.get_num_threads(),
              "lr": args.lr, "reduction": args.reduction, "flush_denormal": args.flush_denormal,
              "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE", "")}
    if args.model == "infer":
        result.update(time_inference(args))
    else:
        load_start = time.perf_counter()
        data = load_fashion_mnist()
        result["load_s"] = time.perf_counter() - load_start
        result["rss_after_load_mb"] = peak_rss_mb()
        print(f"loaded train {tuple(data[0].shape)} test {tuple(data[2].shape)} in {result['load_s']:.2f}s; "
              f"threads={torch.get_num_threads()}", flush=True)
        result.update(train(args, *data))
    result["peak_rss_mb"] = peak_rss_mb()
    print("RESULT " + json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
