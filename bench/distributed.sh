#!/usr/bin/env bash
# Data-parallel benchmark (issue 17; docs/distributed.md): on this machine's cores, the same
# global batch of 64 trained as 2 ranks x 1 thread (mpirun, rxt_distributed_bench --distributed
# mpi: 32 samples each, gradients averaged by ccl.allreduce) and as 1 rank x 2 threads, and as
# 1 rank x 1 thread (the base of the speedups); PyTorch beside it, the same ways (DDP over gloo
# for its 2 ranks: bench/peers/torch_ddp.py). Rounds alternate the runs; the table gives
# medians over the rounds: step time, steps/s, the share of rxt's step in the allreduce, and
# PyTorch / rxt.
#
#   bench/distributed.sh [--models "mlp cnn"] [--rounds 3] [--steps 400]
set -euo pipefail
cd "$(dirname "$0")/.."
models="mlp cnn"
rounds=3
steps=400
while [[ $# -gt 0 ]]; do
  case "$1" in
    --models) models="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --steps) steps="$2"; shift 2 ;;
    *) echo "usage: bench/distributed.sh [--models \"mlp cnn\"] [--rounds R] [--steps N]" >&2; exit 2 ;;
  esac
done
build="${RXT_BENCH_BUILD_DIR:-build/bench}"
results="$build/distributed-results"
rm -rf "$results"
mkdir -p "$results"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRXT_BUILD_BENCH=ON -DRXT_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j2 --target rxt_distributed_bench
bench="$build/bench/rxt_distributed_bench"
# mpirun refuses root unless told (containers run as root); 2 ranks on 2 cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
unset OPENBLAS_CORETYPE

# run NAME COMMAND...: keeps the RESULT line in $results/NAME.jsonl.
source bench/run_result.sh

for round in $(seq "$rounds"); do
  echo "round $round/$rounds"
  for model in $models; do
    run "rxt-$model-1x1" "$bench" --model "$model" --threads 1 --steps "$steps"
    run "rxt-$model-1x2" "$bench" --model "$model" --threads 2 --steps "$steps"
    run "rxt-$model-2x1" mpirun -np 2 "$bench" --model "$model" --threads 1 --steps "$steps" --distributed mpi
    run "torch-$model-1x2" /usr/bin/python3 bench/peers/torch_ddp.py --model "$model" --ranks 1 --threads 2 --steps "$steps"
    run "torch-$model-2x1" /usr/bin/python3 bench/peers/torch_ddp.py --model "$model" --ranks 2 --threads 1 --steps "$steps"
  done
done

/usr/bin/python3 - "$results" $models <<'PY'
import json, statistics, sys
results, models = sys.argv[1], sys.argv[2:]
def load(name):
    with open(f"{results}/{name}.jsonl") as f:
        return [json.loads(l) for l in f if l.strip()]
def med(rows, key):
    return statistics.median(r[key] for r in rows)
print("\n| model | layout | rxt ms/step | rxt steps/s | rxt allreduce share | torch ms/step | torch / rxt |")
print("|---|---|---|---|---|---|---|")
for m in models:
    base = med(load(f"rxt-{m}-1x1"), "step_median_ms")
    for layout in ("1x1", "1x2", "2x1"):
        rxt = load(f"rxt-{m}-{layout}")
        ms = med(rxt, "step_median_ms")
        share = med(rxt, "allreduce_share") if layout == "2x1" else 0.0
        torch = f"{m}-{layout}"
        try:
            t = med(load(f"torch-{torch}"), "step_median_ms")
            peer, ratio = f"{t:.3f}", f"{t / ms:.2f}x"
        except FileNotFoundError:
            peer, ratio = "-", "-"
        ranks, threads = layout.split("x")
        print(f"| {m} | {ranks} rank{'s' if ranks != '1' else ''} x {threads} thread{'s' if threads != '1' else ''} "
              f"| {ms:.3f} | {1000 / ms:.0f} ({base / ms:.2f}x of 1x1) | {100 * share:.0f}% | {peer} | {ratio} |")
PY
