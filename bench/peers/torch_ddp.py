#!/usr/bin/python3
"""The PyTorch peer of bench/distributed.sh: the seed MLP or LeNet-5 with a global batch of 64,
on --ranks processes of PyTorch DistributedDataParallel (gloo, over loopback; 64 / ranks each)
or, with --ranks 1, in one process without DDP on --threads threads. The same optimizers and
step count as bench/distributed_bench.cc. Prints "RESULT {json}" with the slowest rank's median
step time.

    /usr/bin/python3 torch_ddp.py --model mlp --ranks 2 --threads 1
"""
import argparse
import json
import os
import socket
import statistics
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_mlp  # noqa: E402  (the models and the data loading of the other peer)

GLOBAL_BATCH = 64


def worker(rank, args, port, results):
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    if args.ranks > 1:
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=args.ranks)
    images, labels, _, _ = torch_mlp.load_fashion_mnist()
    model = torch_mlp.LeNet5() if args.model == "cnn" else torch_mlp.Mlp()
    if args.ranks > 1:
        model = torch.nn.parallel.DistributedDataParallel(model, bucket_cap_mb=args.bucket_mb)
    if args.model == "cnn":
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        reduction = "mean"
    else:
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01, weight_decay=0.01)
        reduction = "sum"
    batch = GLOBAL_BATCH // args.ranks
    reshape = torch_mlp.LeNet5.reshape if args.model == "cnn" else torch_mlp.Mlp.reshape
    generator = torch.Generator().manual_seed(args.seed)
    order = torch.randperm(images.shape[0], generator=generator)
    shard = order[rank::args.ranks]  # DistributedSampler's rule (60000 splits evenly)
    xs, ys = reshape(images[shard]), labels[shard]
    step_ms = []
    for step in range(args.warmup + args.steps):
        begin = (step * batch) % (xs.shape[0] - batch)
        x, y = xs[begin:begin + batch], ys[begin:begin + batch]
        start = time.perf_counter()
        optimizer.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y, reduction=reduction)
        if reduction == "sum" and args.ranks > 1:
            loss = loss * args.ranks  # DDP averages gradients; a sum loss's are summed over the ranks
        loss.backward()
        optimizer.step()
        if step >= args.warmup:
            step_ms.append((time.perf_counter() - start) * 1e3)
    median = statistics.median(step_ms)
    if args.ranks > 1:
        slowest = torch.tensor([median])
        dist.all_reduce(slowest, op=dist.ReduceOp.MAX)
        median = float(slowest[0])
        dist.destroy_process_group()
    if rank == 0:
        results.put({"impl": "torch", "model": args.model, "ranks": args.ranks, "threads": args.threads,
                     "batch_per_rank": batch, "steps": args.steps, "step_median_ms": median,
                     "steps_per_s": 1000.0 / median, "last_loss": float(loss)})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", choices=["mlp", "cnn"], default="mlp")
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--steps", type=int, default=400)
    ap.add_argument("--warmup", type=int, default=50)
    ap.add_argument("--bucket-mb", type=float, default=25)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    results = mp.get_context("spawn").SimpleQueue()
    if args.ranks == 1:
        worker(0, args, port, results)
    else:
        mp.spawn(worker, args=(args, port, results), nprocs=args.ranks)
    print("RESULT " + json.dumps(results.get()), flush=True)


if __name__ == "__main__":
    main()
