#!/usr/bin/env bash
# Installs what the benchmarks (bench/run.sh, bench/train.sh) need beyond rxt's own build: the
# peers they compare against — libtorch (C++) and PyTorch (Python) from ../shared/bench — and
# the data. Debian 12 (bookworm) packages with apt-get, nothing downloaded from elsewhere
# (../shared/DEPENDENCIES.md lists them with their traps).
#
# Runs scripts/bootstrap.sh first (the packages that build rxt). Idempotent: when every package
# is installed already it does nothing (no apt-get, not even `apt-get update`). Runs as root, or
# through sudo otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/bootstrap.sh

packages=(
  libtorch-dev          # PyTorch's C++ library: the libtorch peer (../shared/bench/libtorch)
  python3-torch         # PyTorch for Debian's /usr/bin/python3: the torch_mlp.py peer
  libopenblas0-pthread  # OpenBLAS with its thread pool: the BLAS Debian's torch runs its fp32 GEMMs on
                        # (without it, the reference BLAS: a peer many times slower than it should be)
  dataset-fashion-mnist # the data every benchmark trains on (gzip IDX in /usr/share/datasets/fashion-mnist)
)

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  if [[ "$status" != "install ok installed" ]]; then
    missing+=("$package")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "bench-setup: all ${#packages[@]} benchmark packages are installed"
  exit 0
fi

if ((EUID == 0)); then
  as_root=()
elif command -v sudo >/dev/null; then
  as_root=(sudo)
else
  echo "bench-setup: run as root or install sudo; missing packages: ${missing[*]}" >&2
  exit 1
fi

echo "bench-setup: installing ${missing[*]}"
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
