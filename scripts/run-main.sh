#!/usr/bin/env bash
# Set-up command (1): install the packages, build rxt (Release) and run the main job.
#
# The main job, for now, prints the seed MLP (parsed and printed back); the training issue
# makes it `rxt train` on that model.
#
# Environment: RXT_BUILD_DIR (default build/release).
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/bootstrap.sh

build_dir=${RXT_BUILD_DIR:-build/release}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRXT_BUILD_TESTS=OFF
cmake --build "$build_dir" -j"$(nproc)" --target rxt

"$build_dir/bin/rxt" show examples/mlp.rxt
