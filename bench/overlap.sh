#!/usr/bin/env bash
# Overlapping the allreduce with the backward pass (issue 17; docs/distributed.md#overlap): the
# same data-parallel training step at 2 ranks x 1 thread (mpirun), with each bucket's allreduce
# started as soon as the backward pass has computed it (the default) and with every allreduce
# after the backward pass (--overlap 0), beside 1 rank x 1 thread (the base; the same global
# batch in every layout, so steps/s compare directly). Models: resnet18
# (torchvision, random weights, 3x64x64, exported to ONNX by tests/importers/onnx/export_models.py;
# batch 8 per rank, random data) and the seed models (mlp, cnn: Fashion-MNIST, global batch 64).
# Rounds alternate the runs; the table gives medians over the rounds.
#
#   bench/overlap.sh [--models "resnet18 cnn"] [--rounds 3] [--steps 30] [--bucket-mb "0 0.05"]
#
# --bucket-mb: the bucket sizes of the runs (0: the default, 1 MiB with overlap and 25 MiB
# without); each size runs both ways.
set -euo pipefail
cd "$(dirname "$0")/.."
models="resnet18 cnn"
rounds=3
steps=30
buckets="0"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --models) models="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --steps) steps="$2"; shift 2 ;;
    --bucket-mb) buckets="$2"; shift 2 ;;
    *) echo "usage: bench/overlap.sh [--models \"resnet18 cnn\"] [--rounds R] [--steps N] [--bucket-mb \"0 0.05\"]" >&2; exit 2 ;;
  esac
done
build="${RXT_BENCH_BUILD_DIR:-build/bench}"
results="$build/overlap-results"
rm -rf "$results"
mkdir -p "$results"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRXT_BUILD_BENCH=ON -DRXT_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j2 --target rxt_distributed_bench rxt_import_onnx
bench="$build/bench/rxt_distributed_bench"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
unset OPENBLAS_CORETYPE

# The model argument and global batch of each model.
declare -A model_arg global_batch
for model in $models; do
  case "$model" in
    mlp|cnn) model_arg[$model]="$model"; global_batch[$model]=64 ;;
    *)
      out="$(pwd)/$results"
      (cd tests/importers/onnx && /usr/bin/python3 -c "import export_models; export_models.export('$model', '$out', input_shape=(3, 64, 64))") >/dev/null
      model_arg[$model]="$results/$model.onnx"; global_batch[$model]=16 ;;
  esac
done

source bench/run_result.sh  # run NAME COMMAND...

for round in $(seq "$rounds"); do
  echo "round $round/$rounds"
  for model in $models; do
    common=(--model "${model_arg[$model]}" --threads 1 --steps "$steps" --warmup 3 --global-batch "${global_batch[$model]}")
    run "$model-1x1" "$bench" "${common[@]}"
    for mb in $buckets; do
      run "$model-2x1-overlap-$mb" mpirun -np 2 "$bench" "${common[@]}" --distributed mpi --bucket-mb "$mb" --overlap 1
      run "$model-2x1-after-$mb" mpirun -np 2 "$bench" "${common[@]}" --distributed mpi --bucket-mb "$mb" --overlap 0
    done
  done
done

/usr/bin/python3 - "$results" "$buckets" $models <<'PY'
import json, statistics, sys
results, buckets, models = sys.argv[1], sys.argv[2].split(), sys.argv[3:]
def load(name):
    with open(f"{results}/{name}.jsonl") as f:
        return [json.loads(l) for l in f if l.strip()]
def med(rows, key):
    return statistics.median(r[key] for r in rows)
print("\n| model | layout | bucket | ms/step | steps/s (x of 1 rank) | time in ccl externs |")
print("|---|---|---|---|---|---|")
for m in models:
    base = med(load(f"{m}-1x1"), "step_median_ms")
    print(f"| {m} | 1 rank x 1 thread | - | {base:.2f} | {1000 / base:.1f} (1.00x) | - |")
    for mb in buckets:
        for way, label in (("after", "2 ranks x 1, allreduce after the backward pass"),
                           ("overlap", "2 ranks x 1, overlapped with the backward pass")):
            rows = load(f"{m}-2x1-{way}-{mb}")
            ms = med(rows, "step_median_ms")
            size = "default" if float(mb) == 0 else f"{mb} MiB"
            print(f"| {m} | {label} | {size} | {ms:.2f} | {1000 / ms:.1f} ({base / ms:.2f}x) | "
                  f"{100 * med(rows, 'allreduce_share'):.0f}% |")
PY
