#!/usr/bin/env bash
# run_pytest.sh LIBRXT TESTS_DIR [PYTEST ARGS...]: the Python package's tests (pytest, Debian's python3-pytest
# and python3-numpy for /usr/bin/python3) against the librxt at LIBRXT; skips (77) saying which
# module is missing. torch is optional: its tests skip themselves with a reason.
set -euo pipefail
for module in pytest numpy; do
  if ! /usr/bin/python3 -c "import $module" 2>/dev/null; then
    echo "run_pytest.sh: /usr/bin/python3 has no module $module (Debian's python3-$module): skipped"
    exit 77
  fi
done
export RXT_LIBRARY="$1"
# -p no:cacheprovider: nothing written into the source tree.
exec /usr/bin/python3 -m pytest -q -rs -p no:cacheprovider "$2" "${@:3}"
