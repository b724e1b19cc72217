#!/usr/bin/env bash
# Builds the benchmarks (Release, with libtorch) in build/bench and runs one:
#   bench/run.sh infer [--threads N] [--backend cpu|reference] [--rounds R] [--iters I] [--separate]
# By default rxt and libtorch run in one process, timed alternately. --separate times each in a
# process of its own (one after the other, the libtorch one also checking that the outputs
# agree) and prints the merged table: with more than one thread, the idle threads of one side's
# pools otherwise share the cores with the other side's work.
# The peer's BLAS (OpenBLAS, under Debian's torch) gets the same thread count and its best
# kernels: OPENBLAS_CORETYPE is unset (../shared/bench/README.md explains why).
# Set-up: scripts/bench-setup.sh installs the packages the benchmarks and their peers need
# (libtorch-dev, python3-torch, libopenblas0-pthread, dataset-fashion-mnist).
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-infer}"
shift || true
threads=1
separate=0
args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --separate) separate=1; shift ;;
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
ours=$(bench --time rxt | grep '^RESULT ' | sed 's/^RESULT //')
theirs=$(bench --time libtorch | grep '^RESULT ' | sed 's/^RESULT //')
/usr/bin/python3 - "$ours" "$theirs" <<'PY'
import json, sys
ours, theirs = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print(f"separate processes, {ours['threads']} thread(s)")
print(f"{'workload':<10} {'rxt median us':>14} {'torch median':>14} {'ratio':>9} {'max |diff|':>12}")
merged = {"backend": ours["backend"], "threads": ours["threads"], "separate": True}
for name in ("mlp_b1", "mlp_b64", "lenet_b64"):
    a, b = ours[name]["rxt_median_us"], theirs[name]["libtorch_median_us"]
    diff = theirs[name]["max_abs_diff"]
    print(f"{name:<10} {a:14.1f} {b:14.1f} {b / a:8.2f}x {diff:12.2e}")
    merged[name] = {"rxt_median_us": a, "libtorch_median_us": b, "ratio": b / a, "max_abs_diff": diff}
print("RESULT " + json.dumps(merged))
PY
