#!/usr/bin/env bash
# Installs what the benchmarks (bench/run.sh, bench/train.sh) need beyond rxt's own build: the
# peers they compare against — libtorch (C++) and PyTorch (Python), bench/peers — and the data.
# Debian 12 (bookworm) packages with apt-get, and ONNX Runtime from the npm registry
# (scripts/onnxruntime-setup.sh)
# (bench/peers/README.md says how to run the peers fairly with them).
#
# Runs scripts/bootstrap.sh first (the packages that build rxt). Idempotent: when every package
# is installed already it does nothing (no apt-get, not even `apt-get update`). Runs as root, or
# through sudo otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/bootstrap.sh

packages=(
  libtorch-dev          # PyTorch's C++ library: the libtorch peer (bench/peers/libtorch)
  python3-torch         # PyTorch for Debian's /usr/bin/python3: the torch_mlp.py peer
  libopenblas0-pthread  # OpenBLAS with its thread pool: the BLAS Debian's torch runs its fp32 GEMMs on
                        # (without it, the reference BLAS: a peer many times slower than it should be)
  dataset-fashion-mnist # the data every benchmark trains on (gzip IDX in /usr/share/datasets/fashion-mnist)
  nodejs                # Node.js: runs ONNX Runtime (npm's onnxruntime-node), the inference peer of bench/onnx
)

# shellcheck source=apt_install.sh
source scripts/apt_install.sh  # the working directory is the repository (cd above)
apt_install bench-setup "${packages[@]}"
# npm (Debian's package; a nodejs from elsewhere may bring its own) installs ONNX Runtime from the
# npm registry: the one peer Debian lacks. Without the registry, bench/onnx runs without it.
command -v npm >/dev/null || apt_install bench-setup npm
./scripts/onnxruntime-setup.sh || echo "bench-setup: ONNX Runtime not installed (is the npm registry reachable?)" >&2
