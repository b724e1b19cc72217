#!/usr/bin/env bash
# Training benchmark (issue 4): rxt's Trainer (bench/train_bench.cc), libtorch and PyTorch (the
# peers in bench/peers: libtorch_mlp and torch_mlp.py) on the same workloads, one process
# after another in the same run: the seed MLP at 1 and 2 threads, LeNet-5 at 1 and 2 threads.
# Each process preloads Fashion-MNIST as float32 and times only training; OPENBLAS_CORETYPE is
# unset and OpenBLAS/OpenMP get the same thread count (bench/peers/README.md says why).
#
#   bench/train.sh [--epochs N] [--only mlp|cnn] [--threads "1 2"] [--rounds R]
#
# With --rounds R each workload runs R times, the implementations alternating (rxt, libtorch,
# PyTorch, rxt, ...): the table then gives each one's median over the rounds and the median of
# the per-round ratios (with their range), which a machine whose speed drifts over minutes
# skews less than one long process after another (e.g. --rounds 5 --epochs 1).
#
# Prints a table of step time (median of the steady state), epoch time, peak RSS and final test
# accuracy, with the ratios peer / rxt (above 1: rxt is faster or smaller). The RESULT lines are
# kept in <build>/train-results/. RXT_PEER_BENCH_DIR overrides where the peers are (a directory
# laid out like bench/peers), RXT_BENCH_BUILD_DIR the build directory (build/bench).
# Set-up: scripts/bench-setup.sh installs the packages the benchmarks and their peers need
# (libtorch-dev, python3-torch, libopenblas0-pthread, dataset-fashion-mnist).
set -euo pipefail
cd "$(dirname "$0")/.."
epochs=""
rounds=1
only="mlp cnn"
thread_counts="1 2"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --epochs) epochs="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --threads) thread_counts="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    *) echo "usage: bench/train.sh [--epochs N] [--only mlp|cnn] [--threads \"1 2\"] [--rounds R]" >&2; exit 2 ;;
  esac
done
peers="${RXT_PEER_BENCH_DIR:-bench/peers}"
build="${RXT_BENCH_BUILD_DIR:-build/bench}"
results="$build/train-results"
mkdir -p "$results"

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRXT_BUILD_BENCH=ON -DRXT_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j2 --target rxt_train_bench
have_libtorch=0
if [[ -f "$peers/libtorch/CMakeLists.txt" ]]; then
  # A peer build configured from another source (the peers' old place outside the repository,
  # another RXT_PEER_BENCH_DIR) cannot be reconfigured from this one: start it afresh.
  peer_source="$(cd "$peers/libtorch" && pwd)"
  if [[ -f "$build/peers/CMakeCache.txt" ]] &&
    ! grep -qxF "CMAKE_HOME_DIRECTORY:INTERNAL=$peer_source" "$build/peers/CMakeCache.txt"; then
    rm -rf "$build/peers"
  fi
  cmake -S "$peers/libtorch" -B "$build/peers" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build/peers" -j2 && have_libtorch=1
else
  echo "note: no libtorch peer in $peers (set RXT_PEER_BENCH_DIR): rxt and PyTorch only" >&2
fi

# run NAME THREADS COMMAND...: keeps the RESULT line of one process in $results/NAME.json.
run() {
  local name="$1" threads="$2"
  shift 2
  echo "== $name" >&2
  env -u OPENBLAS_CORETYPE OPENBLAS_NUM_THREADS="$threads" OMP_NUM_THREADS="$threads" "$@" |
    tee "$results/$name.log" | grep '^RESULT ' | sed 's/^RESULT //' >"$results/$name.json"
}

summary=()
for model in $only; do
  # The MLP with mean cross entropy and SGD lr 0.1, weight decay 0.01 (stable, unlike the seed's
  # sum); LeNet-5 as the peers run it (SGD lr 0.01, momentum 0.9, mean).
  if [[ "$model" == mlp ]]; then
    args=(--model mlp --reduction mean --lr 0.1 --weight-decay 0.01)
  else
    args=(--model cnn)
  fi
  if [[ -n "$epochs" ]]; then args+=(--epochs "$epochs"); fi
  for threads in $thread_counts; do
    tag="${model}_t${threads}"
    for ((round = 1; round <= rounds; round++)); do
      run "rxt_${tag}_r$round" "$threads" "$build/bench/rxt_train_bench" "${args[@]}" --threads "$threads"
      if [[ $have_libtorch == 1 ]]; then
        run "libtorch_${tag}_r$round" "$threads" "$build/peers/libtorch_mlp" "${args[@]}" --threads "$threads"
      fi
      if [[ -x /usr/bin/python3 && -f "$peers/torch_mlp.py" ]]; then
        run "pytorch_${tag}_r$round" "$threads" /usr/bin/python3 "$peers/torch_mlp.py" "${args[@]}" --threads "$threads"
      fi
    done
    summary+=("$tag")
  done
done

/usr/bin/python3 - "$results" "$rounds" "${summary[@]}" <<'PY'
import json, os, statistics, sys
results, rounds, tags = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def load(name):
    path = os.path.join(results, name + ".json")
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None
def median(values):
    return statistics.median(values) if values else float("nan")
print(f"{'workload':<10} {'impl':<9} {'step ms':>8} {'epoch s':>8} {'RSS MB':>8} {'acc':>7}   ratios peer/rxt (step, epoch, RSS)"
      + ("   step ratio range" if rounds > 1 else ""))
for tag in tags:
    runs = {impl: [load(f"{impl}_{tag}_r{r}") for r in range(1, rounds + 1)] for impl in ("rxt", "libtorch", "pytorch")}
    rxt = runs["rxt"]
    for impl, rs in runs.items():
        if not any(rs):
            continue
        got = [r for r in rs if r]
        step = median([r["step_median_ms"] for r in got])
        epoch = median([r["epoch_median_s"] for r in got])
        rss = median([r["peak_rss_mb"] for r in got])
        line = f"{tag:<10} {impl:<9} {step:8.3f} {epoch:8.2f} {rss:8.0f} {got[0]['final_test_acc']:7.4f}"
        if impl != "rxt" and any(rxt):
            pairs = [(p, q) for p, q in zip(rs, rxt) if p and q]
            ratios = [p["step_median_ms"] / q["step_median_ms"] for p, q in pairs]
            epochs = [p["epoch_median_s"] / q["epoch_median_s"] for p, q in pairs]
            rsses = [p["peak_rss_mb"] / q["peak_rss_mb"] for p, q in pairs]
            line += f"   {median(ratios):5.2f}x {median(epochs):5.2f}x {median(rsses):5.2f}x"
            if rounds > 1:
                line += f"   {min(ratios):.2f}-{max(ratios):.2f}x"
        print(line)
PY
