#!/usr/bin/env bash
# Builds the benchmarks (Release, with libtorch) in build/bench and runs one:
#   bench/run.sh infer [--threads N] [--backend cpu|reference] [--rounds R] [--iters I]
# The peer's BLAS (OpenBLAS, under Debian's torch) gets the same thread count and its best
# kernels: OPENBLAS_CORETYPE is unset (../shared/bench/README.md explains why).
# Set-up: scripts/bench-setup.sh installs the packages the benchmarks and their peers need
# (libtorch-dev, python3-torch, libopenblas0-pthread, dataset-fashion-mnist).
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-infer}"
shift || true
threads=1
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  if [[ "${args[$i]}" == "--threads" ]]; then threads="${args[$((i + 1))]}"; fi
done
cmake -S . -B build/bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DRXT_BUILD_BENCH=ON -DRXT_BUILD_TESTS=OFF >/dev/null
cmake --build build/bench -j2 --target "rxt_${what}_bench"
exec env -u OPENBLAS_CORETYPE OPENBLAS_NUM_THREADS="$threads" OMP_NUM_THREADS="$threads" \
  "build/bench/bench/rxt_${what}_bench" "$@"
