#!/usr/bin/env bash
# Skips (77) when the test data (Debian's libonnx-testdata) or python3-onnx is missing, saying
# which; else runs run_node_cases.py with the same arguments ([options] RXT PLUGIN DATA_DIR ...).
set -euo pipefail
args=("$@")
i=0
while [[ "${args[i]}" == --* ]]; do
  if [[ "${args[i]}" == --ort ]]; then i=$((i + 1)); else i=$((i + 2)); fi
done
data_dir=${args[i + 2]}
if [[ ! -d "$data_dir" ]]; then
  echo "onnx node cases: $data_dir is missing (Debian's libonnx-testdata): skipped"
  exit 77
fi
here="$(dirname "$0")"
exec "$here/run_with_onnx.sh" "$here/run_node_cases.py" "$@"
