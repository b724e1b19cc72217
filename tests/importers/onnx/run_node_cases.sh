#!/usr/bin/env bash
# Skips (77) when the test data or Debian's python3-onnx is missing, saying which; else runs
# run_node_cases.py with the same arguments.
set -euo pipefail
if [[ ! -d "$3" ]]; then
  echo "onnx node cases: $3 is missing (Debian's libonnx-testdata): skipped"
  exit 77
fi
if ! /usr/bin/python3 -c "import onnx, numpy" 2>/dev/null; then
  echo "onnx node cases: /usr/bin/python3 has no onnx or numpy (python3-onnx, python3-numpy): skipped"
  exit 77
fi
exec /usr/bin/python3 "$(dirname "$0")/run_node_cases.py" "$@"
