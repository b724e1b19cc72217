#!/usr/bin/env python3
"""`rxt train --distributed mpi` under mpirun (docs/distributed.md), end to end:

1. Equivalence: 2 ranks x batch 8 train the seed MLP for an epoch to the parameters of 1 rank x
   batch 16, and so does 1 rank x 2 accumulated micro-batches of 8 (float32 tolerance).
2. A rank killed with SIGKILL mid-epoch: the job ends within seconds with an error, the newest
   checkpoint is intact, and a resumed run ends bit-identically to an uninterrupted one.
3. A resume with another number of ranks is refused, naming both; a rank that cannot start
   (missing data on every rank) ends the job with an error, not a hang.

    train_distributed.py --rxt BIN/rxt --mpirun /usr/bin/mpirun --data DIR --work DIR
"""
import argparse
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import time

import numpy as np

MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_rmaps_base_oversubscribe": "1"}


def read_safetensors(path):
    """{name: numpy array} of a safetensors file (8-byte header length, JSON header, data)."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    dtypes = {"F32": np.float32, "F64": np.float64, "I64": np.int64, "I32": np.int32}
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        out[name] = np.frombuffer(data[8 + n + begin:8 + n + end], dtype=dtypes[info["dtype"]]).reshape(info["shape"])
    return out


def run(cmd, expect=0, timeout=300):
    env = dict(os.environ, **MPI_ENV)
    start = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    if expect is not None and p.returncode != expect:
        sys.exit(f"FAIL: {' '.join(cmd)}\nexit {p.returncode} (expected {expect})\n--- stdout\n{p.stdout}\n--- stderr\n{p.stderr}")
    return p, time.monotonic() - start


def params_of(checkpoint):
    return {k: v for k, v in read_safetensors(checkpoint).items() if k.startswith("param/")}


def check_close(a, b, what, tolerance=1e-4):
    assert a.keys() == b.keys(), f"{what}: {sorted(a)} vs {sorted(b)}"
    worst = max(float(np.max(np.abs(a[k].astype(np.float64) - b[k]))) for k in a)
    if worst > tolerance:
        sys.exit(f"FAIL: {what}: parameters differ by up to {worst:g} (tolerance {tolerance:g})")
    print(f"ok: {what} (largest difference {worst:.3g})")


def rank_pids(mpirun_pid):
    """The pids under |mpirun_pid| that are ranks, by OMPI_COMM_WORLD_RANK."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(entry))
        except OSError:
            continue
    ranks, todo = {}, [mpirun_pid]
    while todo:
        pid = todo.pop()
        for child in children.get(pid, []):
            todo.append(child)
            try:
                with open(f"/proc/{child}/environ", "rb") as f:
                    env = dict(kv.split(b"=", 1) for kv in f.read().split(b"\0") if b"=" in kv)
                if b"OMPI_COMM_WORLD_RANK" in env:
                    ranks[int(env[b"OMPI_COMM_WORLD_RANK"])] = child
            except OSError:
                continue
    return ranks


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rxt", required=True)
    ap.add_argument("--mpirun", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    w = lambda *p: os.path.join(args.work, *p)
    common = [args.rxt, "train", "--data", args.data, "--optimizer", "sgd", "--lr", "0.05",
              "--schedule", "constant", "--seed", "3", "--threads", "1"]
    two = [args.mpirun, "-np", "2"]

    # 1. One epoch three ways.
    run(common + ["--batch-size", "16", "--epochs", "1", "--checkpoint-dir", w("one")])
    # --profile: a step profiled is a collective call too (every rank runs it, rank 0 prints).
    p, _ = run(two + common + ["--distributed", "mpi", "--batch-size", "8", "--epochs", "1", "--checkpoint-dir", w("two"),
                               "--profile"], timeout=120)
    assert "distributed: 2 ranks (mpi)" in p.stdout and p.stdout.count("epoch 1/1") == 1, p.stdout
    assert "gradients combined after the backward pass" in p.stdout, p.stdout
    assert p.stdout.count("profile of one training step") == 1 and "extern ccl.allreduce" in p.stdout, p.stdout
    run(common + ["--batch-size", "8", "--accumulate", "2", "--epochs", "1", "--checkpoint-dir", w("acc")])
    one = params_of(w("one", "epoch-1.safetensors"))
    check_close(params_of(w("two", "epoch-1.safetensors")), one, "2 ranks x 8 == 1 rank x 16 after an epoch")
    check_close(params_of(w("acc", "epoch-1.safetensors")), one, "2 micro-batches x 8 == 1 x 16 after an epoch")
    # The allreduce after the backward pass (the default) or overlapped with it (--overlap: here
    # one bucket of 1 MiB; with --bucket-mb 0.01 many, in flight together): the same bits (a sum
    # of two).
    overlapped = params_of(w("two", "epoch-1.safetensors"))
    for variant in (["--bucket-mb", "0.01"], ["--overlap"], ["--overlap", "--bucket-mb", "0.01"]):
        name = "two" + "".join(variant).replace("-", "_").replace(".", "_")
        p, _ = run(two + common + ["--distributed", "mpi", "--batch-size", "8", "--epochs", "1",
                                   "--checkpoint-dir", w(name)] + variant, timeout=120)
        when = "during" if "--overlap" in variant else "after"
        assert f"gradients combined {when} the backward pass" in p.stdout, p.stdout
        other = params_of(w(name, "epoch-1.safetensors"))
        if any(not np.array_equal(other[k], overlapped[k]) for k in overlapped):
            sys.exit(f"FAIL: {' '.join(variant)} trained other parameters than the default")
        print(f"ok: {' '.join(variant)}: the same bits as the default")

    # 2. SIGKILL of rank 1 mid-run, then resume.
    long_run = common + ["--distributed", "mpi", "--batch-size", "8", "--epochs", "6"]
    run(two + long_run + ["--checkpoint-dir", w("whole")], timeout=600)
    env = dict(os.environ, **MPI_ENV)
    job = subprocess.Popen(two + long_run + ["--checkpoint-dir", w("cut")], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 120
    while not os.path.exists(w("cut", "epoch-2.safetensors")):
        if time.monotonic() > deadline or job.poll() is not None:
            job.kill()
            sys.exit(f"FAIL: the run to kill wrote no second checkpoint\n{job.communicate()}")
        time.sleep(0.005)
    time.sleep(0.05)  # into the third epoch
    ranks = rank_pids(job.pid)
    if 1 not in ranks:
        job.kill()
        sys.exit(f"FAIL: no rank 1 under mpirun {job.pid}: {ranks}")
    os.kill(ranks[1], signal.SIGKILL)
    killed = time.monotonic()
    try:
        out, err = job.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        job.kill()
        sys.exit("FAIL: the job still runs 30 s after a rank was killed")
    ended = time.monotonic() - killed
    if job.returncode == 0:
        sys.exit(f"FAIL: the job with a killed rank exited 0\n{out}\n{err}")
    said = [l.strip() for l in err.splitlines() if "signal 9" in l or "Killed" in l]
    if not said:
        sys.exit(f"FAIL: nothing says a rank was killed:\n{err}")
    print(f"ok: rank 1 killed: the job ended in {ended:.2f} s with exit {job.returncode}: {said[0]}")
    if os.path.exists(w("cut", "epoch-6.safetensors")):
        sys.exit("FAIL: the killed run finished anyway (kill it earlier)")
    checkpoints = sorted((int(f[6:-12]), f) for f in os.listdir(w("cut")) if f.startswith("epoch-") and f.endswith(".safetensors"))
    newest = checkpoints[-1][1]
    read_safetensors(w("cut", newest))  # intact: it parses (written to a temporary name, then renamed)
    leftovers = [f for f in os.listdir(w("cut")) if not (f.startswith("epoch-") and f.endswith(".safetensors"))]
    print(f"ok: newest checkpoint {newest} reads back; other files: {leftovers}")
    p, _ = run(two + long_run + ["--checkpoint-dir", w("cut"), "--resume"], timeout=600)
    assert f"resumed from" in p.stdout, p.stdout
    a, b = read_safetensors(w("whole", "epoch-6.safetensors")), read_safetensors(w("cut", "epoch-6.safetensors"))
    for k in a:
        if a[k].tobytes() != b[k].tobytes():
            sys.exit(f"FAIL: {k} differs between the uninterrupted and the resumed run")
    print(f"ok: resumed after the kill, the run ends bit-identically ({len(a)} tensors)")

    # 3. Refusals.
    p, _ = run(common + ["--batch-size", "8", "--epochs", "7", "--checkpoint-dir", w("whole"), "--resume"], expect=1)
    assert "ranks: 2 in the checkpoint, 1 now" in p.stderr, p.stderr
    print("ok: a resume on 1 rank of a 2-rank checkpoint is refused")
    p, took = run(two + common + ["--distributed", "mpi", "--data", w("nowhere"), "--epochs", "1"], expect=None, timeout=60)
    assert p.returncode != 0 and "rank 0 of 2" in p.stderr and "Fashion-MNIST not found" in p.stderr, p.stderr
    print(f"ok: no data on any rank: the job ends with their errors in {took:.2f} s")
    p, _ = run(common + ["--distributed", "nccl9", "--epochs", "1"], expect=1)
    assert "no collective named 'nccl9'" in p.stderr, p.stderr
    print("ok: an unknown collective is named")


if __name__ == "__main__":
    main()
