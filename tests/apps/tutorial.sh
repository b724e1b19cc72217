#!/usr/bin/env bash
# Runs every command of docs/tutorial.md (the "$ " lines of its ```sh blocks), in order, in a
# fresh directory holding examples/tutorial, with the build's rxt first on PATH: the tutorial
# cannot drift from what rxt does. Fails on the first command that fails, naming it.
#   tests/apps/tutorial.sh DOC EXAMPLES_DIR BIN_DIR WORK_DIR
set -euo pipefail
doc=$1 examples=$2 bindir=$3 work=$4
if ! /usr/bin/python3 -c "import torch, numpy" 2>/dev/null; then
  echo "tutorial: /usr/bin/python3 has no torch or numpy (Debian's python3-torch, python3-numpy): skipped"
  exit 77
fi
rm -rf "$work"
mkdir -p "$work"
cp "$examples"/* "$work"/
cd "$work"
export PATH="$bindir:$PATH"
in_sh=0
count=0
while IFS= read -r line; do
  case "$line" in
    '```sh') in_sh=1; continue ;;
    '```') in_sh=0; continue ;;
  esac
  if [[ $in_sh == 1 && "$line" == '$ '* ]]; then
    command=${line#'$ '}
    count=$((count + 1))
    echo "+ $command"
    if ! bash -c "set -o pipefail; $command"; then
      echo "tutorial: command $count of $doc failed: $command" >&2
      exit 1
    fi
  fi
done < "$doc"
if [[ $count -lt 6 ]]; then
  echo "tutorial: only $count commands found in $doc" >&2
  exit 1
fi
echo "tutorial: all $count commands ran"
