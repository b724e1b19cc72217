#!/usr/bin/env bash
# run_go.sh LIB_DIR WORK_DIR SANITIZE=[LIST] [TAGS=[LIST]] test
# run_go.sh LIB_DIR WORK_DIR SANITIZE=[LIST] [TAGS=[LIST]] example NAME [ARGS...]
#
# The Go binding (abi/go) against the library in LIB_DIR: gofmt, go vet and `go test -race` of
# every package, or one example built and run with -data (Fashion-MNIST) and ARGS. TAGS are Go
# build tags: TAGS=rxt_runtime links librxt_runtime instead of librxt and builds only what the
# runtime has (abi/go/cgo.go). Offline and self-contained: no module proxy (the module needs
# nothing outside the repo), the user's GOFLAGS ignored, and every cache Go writes inside
# WORK_DIR. Skips (77) saying why without `go` (Debian's golang-go), without Fashion-MNIST for
# the examples (Debian's dataset-fashion-mnist), or when librxt is built with sanitizers (LIST
# not empty: a Go program cannot load their runtimes first).
set -euo pipefail
usage="usage: run_go.sh LIB_DIR WORK_DIR SANITIZE=[LIST] [TAGS=[LIST]] test|example NAME [ARGS...]"
if [[ $# -lt 4 || "$3" != SANITIZE=* ]]; then
  echo "$usage" >&2
  exit 2
fi
lib_dir=$1 work=$2 sanitize=${3#SANITIZE=}
shift 3
tags=
if [[ "$1" == TAGS=* ]]; then
  tags=${1#TAGS=}
  shift
fi
if [[ $# -lt 1 ]]; then
  echo "$usage" >&2
  exit 2
fi
mode=$1
shift
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)

if ! command -v go >/dev/null; then
  echo "run_go.sh: no go on PATH (Debian's golang-go): skipped"
  exit 77
fi
if [[ -n "$sanitize" ]]; then
  echo "run_go.sh: librxt is built with -fsanitize=$sanitize, which a Go program cannot load: skipped"
  exit 77
fi

mkdir -p "$work/tmp"
export GOCACHE="$work/cache" GOPATH="$work/gopath" GOTMPDIR="$work/tmp"
# Offline: no proxy, no checksum database, no toolchain download (newer go), no VCS stamping.
export GOPROXY=off GOSUMDB=off GOTOOLCHAIN=local GOFLAGS=-buildvcs=false
export CGO_ENABLED=1
# rxt.h of this tree, librxt of this build (found at run time through the rpath).
export CGO_CFLAGS="-g -O2 -I$root/abi/include"
export CGO_LDFLAGS="-L$lib_dir -Wl,-rpath,$lib_dir"
cd "$root/abi/go"
go version

case "$mode" in
  test)
    # Formatting and go vet (its cgocall check flags Go pointers to Go pointers passed to C) first.
    unformatted=$(gofmt -l .)
    if [[ -n "$unformatted" ]]; then
      echo "run_go.sh: not gofmt-formatted: $unformatted"
      exit 1
    fi
    go vet -tags="$tags" ./...
    # RXT_GO_STRICT: a test missing its fixture fails rather than skips. cgocheck=2 checks every
    # pointer cgo's rules govern (doc.go): no Go pointer is ever stored in C memory.
    RXT_GO_STRICT=1 GODEBUG=cgocheck=2 exec go test -race -count=1 -tags="$tags" ./...
    ;;
  example)
    name=$1
    shift
    data=${RXT_FASHION_MNIST:-/usr/share/datasets/fashion-mnist}
    if [[ ! -d "$data" ]]; then
      echo "run_go.sh: no Fashion-MNIST in $data (Debian's dataset-fashion-mnist): skipped"
      exit 77
    fi
    go build -tags="$tags" -o "$work/bin/$name" "./examples/$name"
    # ctest checks the output (PASS_REGULAR_EXPRESSION ignores the exit status): say a failure.
    "$work/bin/$name" -data "$data" "$@" ||
      { status=$?; echo "run_go.sh: FAILED: $name exited with $status"; exit "$status"; }
    ;;
  *)
    echo "run_go.sh: unknown mode '$mode' (test or example)" >&2
    exit 2
    ;;
esac
