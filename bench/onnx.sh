#!/usr/bin/env bash
# ONNX benchmark (issue 14): imported ONNX models (bench/onnx_models.py: the fixtures of
# tests/importers/onnx, resnet18 and the transformer encoder by default) in rxt beside their
# peers, one process after another in the same run, on the same random batch:
#   - a training step (batch 32; mean cross entropy, SGD with momentum 0.9): rxt
#     (bench/onnx_bench.cc) and libtorch running the same PyTorch module as TorchScript
#     (bench/peers/libtorch/script_main.cc), at each thread count;
#   - inference (the same batch): rxt, ONNX Runtime (npm's onnxruntime-node on the same .onnx
#     file, tests/exporters/onnx/ort_run.js) and libtorch;
#   - the training step again in rxt's deployed form: the compiled trainer saved as a trainer
#     file (its kernels compiled ahead of time), then loaded and run by a process that maps no
#     compiler and no LLVM — as libtorch runs a module that Python scripted beforehand;
#   - peak RSS of each process, rxt's import and compile times (with an empty kernel cache, then
#     a warm one), and each step time as a multiple
#     of this machine's fp32 FMA limit (the step's FLOPs over rxt_fma_peak's GFLOP/s x threads;
#     a training step counted as 3 forward passes).
#
#   bench/onnx.sh [--models "resnet18 encoder"] [--threads "1 2"] [--batch 32] [--steps 30]
#
# Prints a table; the RESULT lines are kept in <build>/onnx-results/. Set-up: scripts/bench-setup.sh
# (libtorch, PyTorch, ONNX Runtime). Without ONNX Runtime its column is left out.
set -euo pipefail
cd "$(dirname "$0")/.."
models="resnet18 encoder"
thread_counts="1 2"
batch=32
steps=30
while [[ $# -gt 0 ]]; do
  case "$1" in
    --models) models="$2"; shift 2 ;;
    --threads) thread_counts="$2"; shift 2 ;;
    --batch) batch="$2"; shift 2 ;;
    --steps) steps="$2"; shift 2 ;;
    *) echo "usage: bench/onnx.sh [--models \"resnet18 encoder\"] [--threads \"1 2\"] [--batch 32] [--steps 30]" >&2; exit 2 ;;
  esac
done
peers="${RXT_PEER_BENCH_DIR:-bench/peers}"
build="${RXT_BENCH_BUILD_DIR:-build/bench}"
results="$build/onnx-results"
mkdir -p "$results"

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRXT_BUILD_BENCH=ON -DRXT_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j2 --target rxt_onnx_bench rxt_fma_peak
cmake -S "$peers/libtorch" -B "$build/peers" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build/peers" -j2 --target libtorch_script
ort_path=$(/usr/bin/python3 -c "import sys; sys.path.insert(0, 'tests/exporters/onnx'); import ort; print(ort.find() or '')")
[[ -n "$ort_path" ]] || echo "note: ONNX Runtime is not installed (scripts/onnxruntime-setup.sh): no ONNX Runtime column" >&2

/usr/bin/python3 bench/onnx_models.py "$results/models" $models >"$results/models.jsonl"
# rxt's kernel cache (docs/backend_cpu.md) starts empty: each model's first rxt run compiles
# every kernel (the cold compile time); the runs after it load them (the warm one).
export RXT_KERNEL_CACHE="$results/kernel-cache"
rm -rf "$RXT_KERNEL_CACHE" "$results"/*.rxtt
"$build/bench/rxt_fma_peak" | tee "$results/fma_peak.txt"

# run NAME THREADS COMMAND...: keeps the RESULT line (or ORT's JSON line) of one process.
run() {
  local name="$1" threads="$2"
  shift 2
  echo "== $name" >&2
  env -u OPENBLAS_CORETYPE OPENBLAS_NUM_THREADS="$threads" OMP_NUM_THREADS="$threads" "$@" |
    tee "$results/$name.log" | grep -E '^(RESULT |\{)' | sed 's/^RESULT //' >"$results/$name.json"
}

for model in $models; do
  shape=$(/usr/bin/python3 -c "import json,sys; [print(','.join(map(str, m['input_shape']))) for m in map(json.loads, open(sys.argv[1])) if m['name'] == sys.argv[2]]" "$results/models.jsonl" "$model")
  /usr/bin/python3 -c "import numpy as np, sys; np.save(sys.argv[1], np.random.default_rng(0).standard_normal([int(sys.argv[2])] + [int(d) for d in sys.argv[3].split(',')]).astype(np.float32))" \
    "$results/${model}_x.npy" "$batch" "$shape"
  # The deployed trainer (after the first rxt run below has filled the kernel cache, so that
  # its cold compile time stays the one measured there).
  trainer_file="$results/$model.rxtt"
  for threads in $thread_counts; do
    for mode in train infer; do
      run "rxt_${mode}_${model}_t$threads" "$threads" "$build/bench/rxt_onnx_bench" --model "$results/models/$model.onnx" \
        --mode "$mode" --batch "$batch" --threads "$threads" --steps "$steps"
      run "libtorch_${mode}_${model}_t$threads" "$threads" "$build/peers/libtorch_script" --script "$results/models/$model.pt" \
        --input-shape "$shape" --mode "$mode" --batch "$batch" --threads "$threads" --steps "$steps"
    done
    run "rxt_infer-bound_${model}_t$threads" "$threads" "$build/bench/rxt_onnx_bench" --model "$results/models/$model.onnx" \
      --mode infer-bound --batch "$batch" --threads "$threads" --steps "$steps"
    if [[ ! -f "$trainer_file" ]]; then
      "$build/bench/rxt_onnx_bench" --model "$results/models/$model.onnx" --batch "$batch" --save-trainer "$trainer_file"
    fi
    run "rxt_deployed_train_${model}_t$threads" "$threads" "$build/bench/rxt_onnx_bench" --trainer "$trainer_file" \
      --mode train --threads "$threads" --steps "$steps"
    if [[ -n "$ort_path" ]]; then
      run "ort_infer_${model}_t$threads" "$threads" env NODE_PATH="$ort_path" node tests/exporters/onnx/ort_run.js \
        "$results/models/$model.onnx" "$threads" "$results/ort_out" "input=$results/${model}_x.npy" --repeat "$steps"
    fi
  done
done

/usr/bin/python3 - "$results" "$batch" "$models" "$thread_counts" <<'PY'
import json, os, re, sys
results, batch, models, thread_counts = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4].split()
def load(name):
    try:
        with open(os.path.join(results, name + ".json")) as f:
            return json.loads(f.read().strip().splitlines()[-1])
    except (OSError, ValueError, IndexError):
        return None
peak = float(re.search(r"([0-9.]+) GFLOP/s", open(os.path.join(results, "fma_peak.txt")).read()).group(1))
print(f"\nbatch {batch}; FMA peak {peak:.1f} GFLOP/s per core; times are medians in ms; ratio = peer / rxt (above 1: rxt is faster or smaller)")
print("\n| model | threads | rxt step | libtorch step | ratio | rxt x FMA limit | rxt peak RSS | libtorch peak RSS | RSS ratio |")
print("|---|---|---|---|---|---|---|---|---|")
for model in models:
    for t in thread_counts:
        r, l = load(f"rxt_train_{model}_t{t}"), load(f"libtorch_train_{model}_t{t}")
        if not r:
            continue
        bound_ms = 3 * r["forward_flops"] / (peak * 1e9 * int(t)) * 1e3
        lt = l["step_ms_median"] if l else float("nan")
        lr = l["peak_rss_mb"] if l else float("nan")
        print(f"| {model} | {t} | {r['step_ms_median']:.2f} | {lt:.2f} | {lt / r['step_ms_median']:.2f}x | "
              f"{r['step_ms_median'] / bound_ms:.1f} (limit {bound_ms:.2f}) | {r['peak_rss_mb']:.0f} MB | {lr:.0f} MB | {lr / r['peak_rss_mb']:.2f}x |")
print("\nDeployed: the trainer file loaded by a process without compiler or LLVM (same batch, same step)")
print("\n| model | threads | rxt step | libtorch step | ratio | load (s) | LLVM mapped | rxt peak RSS | libtorch peak RSS | RSS ratio | file size |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for model in models:
    for t in thread_counts:
        d, l = load(f"rxt_deployed_train_{model}_t{t}"), load(f"libtorch_train_{model}_t{t}")
        if not d:
            continue
        lt = l["step_ms_median"] if l else float("nan")
        lr = l["peak_rss_mb"] if l else float("nan")
        size = os.path.getsize(os.path.join(results, model + ".rxtt")) / 2**20
        print(f"| {model} | {t} | {d['step_ms_median']:.2f} | {lt:.2f} | {lt / d['step_ms_median']:.2f}x | {d['load_s']:.2f} | "
              f"{'yes' if d['llvm_mapped'] else 'no'} | {d['peak_rss_mb']:.0f} MB | {lr:.0f} MB | {lr / d['peak_rss_mb']:.2f}x | {size:.1f} MiB |")
print("\nrxt infer: Trainer::Predict (the weights are arguments); rxt bound: the backbone imported for inference with its weights bound as constants")
print("\n| model | threads | rxt infer | rxt bound | ONNX Runtime | libtorch | ORT / rxt | ORT / rxt bound | libtorch / rxt | rxt x FMA limit | rxt RSS | ORT RSS | libtorch RSS |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for model in models:
    for t in thread_counts:
        r, o, l = load(f"rxt_infer_{model}_t{t}"), load(f"ort_infer_{model}_t{t}"), load(f"libtorch_infer_{model}_t{t}")
        b = load(f"rxt_infer-bound_{model}_t{t}")
        if not r:
            continue
        bound_ms = r["forward_flops"] / (peak * 1e9 * int(t)) * 1e3
        om = o["seconds_per_run"] * 1e3 if o else float("nan")
        orss = o["peak_rss_mb"] if o else float("nan")
        lm = l["step_ms_median"] if l else float("nan")
        lrss = l["peak_rss_mb"] if l else float("nan")
        bm = b["step_ms_median"] if b else float("nan")
        print(f"| {model} | {t} | {r['step_ms_median']:.2f} | {bm:.2f} | {om:.2f} | {lm:.2f} | {om / r['step_ms_median']:.2f}x | {om / bm:.2f}x | "
              f"{lm / r['step_ms_median']:.2f}x | {r['step_ms_median'] / bound_ms:.1f} | {r['peak_rss_mb']:.0f} MB | {orss:.0f} MB | {lrss:.0f} MB |")
print("\n| model | import (s) | compile, empty kernel cache (s) | compile, warm kernel cache (s) | forward GFLOP |")
print("|---|---|---|---|---|")
for model in models:
    r = load(f"rxt_train_{model}_t{thread_counts[0]}")
    warm = load(f"rxt_train_{model}_t{thread_counts[1]}") if len(thread_counts) > 1 else None
    if r:
        w = f"{warm['compile_s']:.2f}" if warm else "-"
        print(f"| {model} | {r['import_s']:.2f} | {r['compile_s']:.2f} | {w} | {r['forward_flops'] / 1e9:.3f} |")
PY
