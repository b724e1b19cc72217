#!/usr/bin/env bash
# Builds the benchmarks (Release, with libtorch) in build/bench and runs one:
#   bench/run.sh infer [--threads N] [--backend cpu|reference] [--rounds R] [--iters I]
#                      [--separate [--processes P]]
# By default rxt and libtorch run in one process, timed alternately. --separate times each in a
# process of its own (one after the other, the libtorch one also checking that the outputs
# agree) and prints the merged table: with more than one thread, the idle threads of one side's
# pools otherwise share the cores with the other side's work. --processes P repeats that pair P
# times and reports the median of the per-pair ratios with their range (the machine's speed
# drifts over minutes).
# The peer's BLAS (OpenBLAS, under Debian's torch) gets the same thread count and its best
# kernels: OPENBLAS_CORETYPE is unset (bench/peers/README.md explains why).
# Set-up: scripts/bench-setup.sh installs the packages the benchmarks and their peers need
# (libtorch-dev, python3-torch, libopenblas0-pthread, dataset-fashion-mnist).
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-infer}"
case "$what" in
  -h | --help) sed -n '2,14p' "$0"; exit 0 ;;
  infer | train) ;;
  *) echo "bench/run.sh: unknown benchmark '$what' (known: infer, train; the side-by-side training runs: bench/train.sh)" >&2; exit 1 ;;
esac
shift || true
threads=1
separate=0
processes=1
args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --separate) separate=1; shift ;;
    --processes) processes="$2"; shift 2 ;;
    --threads) threads="$2"; args+=("$1" "$2"); shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
cmake -S . -B build/bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DRXT_BUILD_BENCH=ON -DRXT_BUILD_TESTS=OFF >/dev/null
cmake --build build/bench -j2 --target "rxt_${what}_bench"
bench() {
  env -u OPENBLAS_CORETYPE OPENBLAS_NUM_THREADS="$threads" OMP_NUM_THREADS="$threads" \
    "build/bench/bench/rxt_${what}_bench" "${args[@]}" "$@"
}
if [[ $separate == 0 || "$what" != infer ]]; then
  bench
  exit
fi
pairs=()
for ((p = 0; p < processes; p++)); do
  pairs+=("$(bench --time rxt | grep '^RESULT ' | sed 's/^RESULT //')")
  pairs+=("$(bench --time libtorch | grep '^RESULT ' | sed 's/^RESULT //')")
done
/usr/bin/python3 - "${pairs[@]}" <<'PY'
import json, statistics, sys
runs = [json.loads(a) for a in sys.argv[1:]]
pairs = list(zip(runs[0::2], runs[1::2]))
print(f"separate processes, {runs[0]['threads']} thread(s), {len(pairs)} pair(s)")
print(f"{'workload':<10} {'rxt median us':>14} {'torch median':>14} {'ratio':>9} {'range':>13} {'max |diff|':>12}")
merged = {"backend": runs[0]["backend"], "threads": runs[0]["threads"], "separate": True, "pairs": len(pairs)}
for name in ("mlp_b1", "mlp_b64", "lenet_b64"):
    ours = [o[name]["rxt_median_us"] for o, _ in pairs]
    theirs = [t[name]["libtorch_median_us"] for _, t in pairs]
    ratios = [t / o for o, t in zip(ours, theirs)]
    diff = max(t[name]["max_abs_diff"] for _, t in pairs)
    a, b, r = statistics.median(ours), statistics.median(theirs), statistics.median(ratios)
    print(f"{name:<10} {a:14.1f} {b:14.1f} {r:8.2f}x {min(ratios):6.2f}-{max(ratios):.2f}x {diff:12.2e}")
    merged[name] = {"rxt_median_us": a, "libtorch_median_us": b, "ratio": r, "ratio_min": min(ratios),
                    "ratio_max": max(ratios), "max_abs_diff": diff}
print("RESULT " + json.dumps(merged))
PY
