#!/usr/bin/env bash
# run_cargo.sh CARGO [--needs PATH]... [--expect REGEX]... -- CARGO_ARGS...: runs CARGO
# (offline) on the Rust bindings, with the rustc beside it; fails unless it succeeds and its
# output has a line matching each REGEX (grep -E). Skips (77), saying why, when no cargo was
# found at configure time or a file the run needs (--needs) is missing.
set -euo pipefail
cargo="$1"
shift
expects=()
while (($# > 0)) && [[ "$1" != -- ]]; do
  case "$1" in
    --needs)
      if [[ ! -e "$2" ]]; then
        echo "run_cargo.sh: $2 is missing: skipped"
        exit 77
      fi
      ;;
    --expect) expects+=("$2") ;;
    *) echo "run_cargo.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
shift
if [[ ! -x "$cargo" ]]; then
  echo "run_cargo.sh: no cargo (found none when configuring; scripts/bootstrap.sh installs Debian's): skipped"
  exit 77
fi
# The rustc and rustdoc beside this cargo (rustup's proxies, or Debian's in /usr/bin), not the
# first on PATH: cargo would mix two compilers' metadata.
for tool in rustc rustdoc; do
  if [[ -x "$(dirname "$cargo")/$tool" ]]; then
    export "${tool^^}=$(dirname "$cargo")/$tool"
  fi
done
export CARGO_NET_OFFLINE=true
if ((${#expects[@]} == 0)); then
  exec "$cargo" "$@"
fi
output=$("$cargo" "$@") || { status=$?; echo "$output"; exit "$status"; }
echo "$output"
for regex in "${expects[@]}"; do
  if ! grep -Eq -- "$regex" <<<"$output"; then
    echo "run_cargo.sh: no line of the output matches '$regex'" >&2
    exit 1
  fi
done
