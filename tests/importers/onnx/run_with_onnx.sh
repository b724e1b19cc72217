#!/usr/bin/env bash
# run_with_onnx.sh SCRIPT ARGS...: runs SCRIPT with Debian's /usr/bin/python3, or skips (77)
# saying why when it has no onnx or numpy (python3-onnx, python3-numpy).
set -euo pipefail
if ! /usr/bin/python3 -c "import onnx, numpy" 2>/dev/null; then
  echo "$(basename "$1"): /usr/bin/python3 has no onnx or numpy (python3-onnx, python3-numpy): skipped"
  exit 77
fi
exec /usr/bin/python3 "$@"
