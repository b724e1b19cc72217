#!/usr/bin/python3
"""The cost model of docs/distributed.md: ring allreduce of a step's gradients at N ranks,

    T(N, B, k) = k * 2(N-1) * alpha  +  2(N-1)/N * B / beta

(B gradient bytes in k buckets; alpha the latency of one message, beta the link's bandwidth),
against the step time t measured on one core here (weak scaling: every rank keeps its batch).
Without overlap the step takes t + T; overlapping the allreduce with the backward pass (about
2/3 of t) hides what fits in it, and the last bucket, which only starts when the backward pass
ends, is never hidden:

    exposed(b) = max(T(k) - t_bwd * (k - 1) / k,  T(N, b, 1)),   k = ceil(B / b)

The best bucket b minimizes it. Prints the table of docs/distributed.md.

    /usr/bin/python3 bench/allreduce_model.py [--alpha-us 5]
"""
import argparse
import math

# name: (gradient bytes (float32 parameters x 4), step ms on one core here, what the step is)
MODELS = {
    "seed MLP": (118_282 * 4, 0.26, "batch 64"),
    "LeNet-5": (61_706 * 4, 2.42, "batch 64"),
    "resnet18": (11_181_642 * 4, 103.0, "batch 8, 64x64"),
    "encoder layer": (34_122 * 4, 4.03, "batch 32, seq 32"),
}
RANKS = (8, 64, 512)
LINKS_GBIT = (25, 100)
BUCKETS = [2 ** p for p in range(10, 27)]  # 1 KiB .. 64 MiB


def allreduce_s(n, nbytes, buckets, alpha, beta):
    return buckets * 2 * (n - 1) * alpha + 2 * (n - 1) / n * nbytes / beta


def halving_doubling_s(n, nbytes, alpha, beta):
    """Rabenseifner's allreduce (reduce-scatter by recursive halving, allgather by doubling):
    the same bytes as the ring, 2 log2(N) messages instead of 2(N-1). MPI libraries switch to it
    (or to recursive doubling) for small messages."""
    return 2 * math.ceil(math.log2(n)) * alpha + 2 * (n - 1) / n * nbytes / beta


def exposed_s(n, nbytes, bucket, alpha, beta, backward_s):
    k = max(1, math.ceil(nbytes / bucket))
    total = allreduce_s(n, nbytes, k, alpha, beta)
    last = allreduce_s(n, min(bucket, nbytes), 1, alpha, beta)
    return max(total - backward_s * (k - 1) / k, last)


def human(nbytes):
    for unit, size in (("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if nbytes >= size:
            return f"{nbytes / size:.{0 if nbytes % size == 0 else 1}f} {unit}"
    return f"{nbytes} B"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--alpha-us", type=float, default=5.0, help="latency of one message (MPI over RDMA: 2-5 us; TCP: 10-30 us)")
    args = ap.parse_args()
    alpha = args.alpha_us * 1e-6
    print(f"alpha = {args.alpha_us:g} us per message; efficiency = t / (t + communication not hidden)\n")
    print("| model (gradients, step here) | link | ranks | ring allreduce, 1 bucket | efficiency, no overlap | "
          "best bucket | efficiency, overlapped | halving-doubling, no overlap |")
    print("|---|---|---|---|---|---|---|---|")
    for name, (nbytes, step_ms, what) in MODELS.items():
        t = step_ms * 1e-3
        for gbit in LINKS_GBIT:
            beta = gbit * 1e9 / 8
            for n in RANKS:
                one = allreduce_s(n, nbytes, 1, alpha, beta)
                plain = t / (t + one)
                best = min(BUCKETS, key=lambda b: exposed_s(n, nbytes, b, alpha, beta, 2 * t / 3))
                hidden = t / (t + exposed_s(n, nbytes, best, alpha, beta, 2 * t / 3))
                rd = halving_doubling_s(n, nbytes, alpha, beta)
                print(f"| {name} ({human(nbytes)}, {step_ms:g} ms, {what}) | {gbit} Gbit/s | {n} | "
                      f"{one * 1e3:.3f} ms | {100 * plain:.0f}% | {human(best)} | {100 * hidden:.0f}% | "
                      f"{rd * 1e3:.3f} ms, {100 * t / (t + rd):.0f}% |")


if __name__ == "__main__":
    main()
