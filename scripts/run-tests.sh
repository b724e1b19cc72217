#!/usr/bin/env bash
# Set-up command (2): install the packages, build everything with warnings as errors and run
# every test. CI runs exactly this (.ci/run).
#
#   ./scripts/run-tests.sh                 # build/test
#   ./scripts/run-tests.sh --sanitize      # build/sanitize, with -DRXT_SANITIZE=address,undefined
#   RXT_SANITIZE=address ./scripts/run-tests.sh   # any sanitizer list, in build/sanitize
#
# Other environment: RXT_BUILD_DIR (overrides the directory), RXT_BUILD_TYPE (default Debug),
# RXT_CTEST_ARGS (extra ctest arguments, e.g. "-R cli").
set -euo pipefail
cd "$(dirname "$0")/.."

sanitize=${RXT_SANITIZE:-}
for arg in "$@"; do
  case "$arg" in
    --sanitize) sanitize=${sanitize:-address,undefined} ;;
    -h | --help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "run-tests.sh: unknown argument '$arg' (see --help)" >&2; exit 1 ;;
  esac
done

./scripts/bootstrap.sh

if [[ -n "$sanitize" ]]; then
  build_dir=${RXT_BUILD_DIR:-build/sanitize}
  # Leaks fail the tests too; a UBSan report stops the test that triggered it.
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
else
  build_dir=${RXT_BUILD_DIR:-build/test}
fi

start=$(date +%s)
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE="${RXT_BUILD_TYPE:-Debug}" \
  -DRXT_WERROR=ON -DRXT_BUILD_TESTS=ON -DRXT_SANITIZE="$sanitize"
cmake --build "$build_dir" -j"$(nproc)"
built=$(date +%s)
status=0
# shellcheck disable=SC2086 # RXT_CTEST_ARGS is a list of arguments
ctest --test-dir "$build_dir" --output-on-failure -j"$(nproc)" ${RXT_CTEST_ARGS:-} || status=$?
echo "run-tests: built in $((built - start)) s, tested in $(($(date +%s) - built)) s (${build_dir})"
exit "$status"
