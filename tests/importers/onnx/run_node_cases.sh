#!/usr/bin/env bash
# Skips (77) when the test data (Debian's libonnx-testdata) or python3-onnx is missing, saying
# which; else runs run_node_cases.py with the same arguments.
set -euo pipefail
if [[ ! -d "$3" ]]; then
  echo "onnx node cases: $3 is missing (Debian's libonnx-testdata): skipped"
  exit 77
fi
here="$(dirname "$0")"
exec "$here/run_with_onnx.sh" "$here/run_node_cases.py" "$@"
