#!/usr/bin/env bash
# run_with_torch.sh [--needs MODULE,...] SCRIPT ARGS...: runs SCRIPT with Debian's
# /usr/bin/python3, or skips (77) saying why when it lacks torch, numpy or a module --needs names
# (python3-torch, python3-numpy, python3-torchvision).
set -euo pipefail
modules="torch,numpy"
if [[ "${1:-}" == --needs ]]; then
  modules="$modules,$2"
  shift 2
fi
for module in ${modules//,/ }; do
  if ! /usr/bin/python3 -c "import $module" 2>/dev/null; then
    echo "$(basename "$1"): /usr/bin/python3 has no module $module (Debian's python3-$module): skipped"
    exit 77
  fi
done
exec /usr/bin/python3 "$@"
