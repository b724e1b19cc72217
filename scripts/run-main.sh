#!/usr/bin/env bash
# Set-up command (1): install the packages, build rxt (Release) and run the main job:
# `rxt train`, the seed tutorial's MLP (784-128-128-10) trained on Fashion-MNIST for 5 epochs
# with the CPU backend, printing the test accuracy after each epoch and writing the metrics and
# the loss/accuracy plot into the build directory. Extra arguments go to `rxt train`
# (e.g. --optimizer sgd --lr 0.01 --weight-decay 0.01 --reduction sum --schedule constant: the
# seed's settings).
#
# Environment: RXT_BUILD_DIR (default build/release).
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/bootstrap.sh

build_dir=${RXT_BUILD_DIR:-build/release}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRXT_BUILD_TESTS=OFF
# rxt and the plugins it loads at run time: gradient rules, losses, optimizers, the CPU backend
# and oneDNN's kernels.
cmake --build "$build_dir" -j"$(nproc)" --target rxt rxt_grad_std rxt_loss_std rxt_optim_std rxt_backend_cpu \
  rxt_lib_dnnl

"$build_dir/bin/rxt" train --optimizer adam --lr 0.001 \
  --metrics "$build_dir/train-metrics.json" --plot "$build_dir/train-curves.svg" "$@"
echo "metrics: $build_dir/train-metrics.json, plot: $build_dir/train-curves.svg"
