#!/usr/bin/env bash
# Installs ONNX Runtime for Node.js (npm's onnxruntime-node 1.20.1, CPU), the inference reference
# of the ONNX exporter's tests and of bench/onnx. Not part of the two set-up commands: it is the
# one thing rxt's tests take from outside Debian (the npm registry), and the tests that need it
# skip, saying so, when it is absent.
#
#   scripts/onnxruntime-setup.sh            # into ${RXT_ONNXRUNTIME_DIR:-~/.cache/rxt/onnxruntime-node}
#
# --ignore-scripts: the package ships its CPU library; its install script would download a GPU
# build. Needs node and npm (Debian's nodejs and npm; scripts/bench-setup.sh installs them).
set -euo pipefail
dest=${RXT_ONNXRUNTIME_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/rxt/onnxruntime-node}
if [[ -f "$dest/node_modules/onnxruntime-node/package.json" ]]; then
  echo "onnxruntime-node: already in $dest"
  exit 0
fi
for tool in node npm; do
  command -v "$tool" >/dev/null || { echo "onnxruntime-setup.sh: $tool is missing (apt-get install nodejs npm)" >&2; exit 1; }
done
mkdir -p "$dest"
cd "$dest"
[[ -f package.json ]] || echo '{"private": true}' > package.json
npm install --ignore-scripts --no-audit --no-fund onnxruntime-node@1.20.1
echo "onnxruntime-node: installed in $dest"
