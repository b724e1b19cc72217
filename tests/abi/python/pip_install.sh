#!/usr/bin/env bash
# pip_install.sh LIBRXT WORK_DIR: `pip install --no-build-isolation` of abi/python (offline, with
# Debian's setuptools), from a copy (setuptools writes build/ and *.egg-info beside the sources),
# into WORK_DIR/site; the installed package has every subpackage and runs against LIBRXT.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if ! /usr/bin/python3 -m pip --version >/dev/null 2>&1; then
  echo "pip_install.sh: /usr/bin/python3 has no pip (Debian's python3-pip): skipped"
  exit 77
fi
work=$2
rm -rf "$work"
mkdir -p "$work"
cp -r "$here/../../../abi/python" "$work/source"
/usr/bin/python3 -m pip install --quiet --no-build-isolation --no-deps --no-index --target "$work/site" "$work/source"
for module in rxt/__init__.py rxt/training/trainer.py rxt/frontend/fx.py rxt/frontend/files.py; do
  [[ -f "$work/site/$module" ]] || { echo "pip_install.sh: $module was not installed" >&2; exit 1; }
done
cd "$work"
RXT_LIBRARY=$1 PYTHONPATH="$work/site" /usr/bin/python3 -c "
import pathlib, rxt, rxt.frontend, rxt.training
assert pathlib.Path(rxt.__file__).is_relative_to('$work/site'), rxt.__file__
print('installed rxt', rxt.__version__, 'with', sorted(p.name for p in pathlib.Path(rxt.__file__).parent.iterdir() if p.is_dir() and p.name != '__pycache__'))
"
