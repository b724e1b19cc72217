#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz, clang with AddressSanitizer and UndefinedBehavior-
# Sanitizer) in build/fuzz and runs each for SECONDS (default 30) on a copy of its checked-in
# corpus. docs/fuzzing.md describes the targets and what to do with a finding.
#
#   ./scripts/fuzz.sh                      # every target, 30 s each
#   ./scripts/fuzz.sh 600 npy idx          # two targets, 10 minutes each
#
# Environment: RXT_FUZZ_JOBS (targets run at once, default 1), RXT_FUZZ_ARGS (more libFuzzer
# flags), CC/CXX (default clang-14/clang++-14). Exit status 1 if any target found a crash, a
# timeout or an out-of-memory; its input is in build/fuzz/artifacts/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."

all_targets=(ir_text ir_structured ir_build executable trainer_file kernel_format npy idx safetensors checkpoint plugin_descriptor extern_plugins pass_list
             onnx_import)
# Run by name only: libtorch's own bugs (a bad free, a timeout in its unpickler; docs/fuzzing.md)
# stop this target within minutes, so it is not part of the default run.
by_name_targets=(torchscript_import)
seconds=30
if [[ $# -gt 0 && "$1" =~ ^[0-9]+$ ]]; then
  seconds=$1
  shift
fi
case "${1:-}" in -h | --help) sed -n '2,12p' "$0"; exit 0 ;; esac
targets=("$@")
[[ ${#targets[@]} -eq 0 ]] && targets=("${all_targets[@]}")
for t in "${targets[@]}"; do
  [[ " ${all_targets[*]} ${by_name_targets[*]} " == *" $t "* ]] ||
    { echo "fuzz.sh: unknown target '$t' (targets: ${all_targets[*]} ${by_name_targets[*]})" >&2; exit 1; }
done

build=build/fuzz
CC=${CC:-clang-14} CXX=${CXX:-clang++-14} cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DRXT_FUZZ=ON -DRXT_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j"${RXT_FUZZ_BUILD_JOBS:-$(nproc)}" --target "${targets[@]/#/rxt_fuzz_}"

# Runs one target; its log is build/fuzz/logs/<target>.log.
run_target() {
  local t=$1 work=$build/work/$t artifacts=$build/artifacts/$t
  rm -rf "$work" && mkdir -p "$work" "$artifacts" "$build/logs"
  cp -r "tests/fuzz/corpus/$t/." "$work/"  # libFuzzer adds to the corpus it is given: a copy
  # shellcheck disable=SC2086 # RXT_FUZZ_ARGS is a list of flags
  "$build/tests/fuzz/rxt_fuzz_$t" "$work" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$artifacts/" -print_final_stats=1 ${RXT_FUZZ_ARGS:-} >"$build/logs/$t.log" 2>&1 || true
}

# One line per target: executions, coverage reached, what it found (artifacts of this run).
summarize() {
  local t=$1 log=$build/logs/$t.log
  local execs cov found
  execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | grep -o '[0-9]*$' || true)
  # -fork=N prints no final stats: its last status line ("#123: cov: ...") counts the runs.
  [[ -n "$execs" ]] || execs=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#' || true)
  cov=$(grep -oE '(DONE|#[0-9]+).*cov: [0-9]+' "$log" | tail -1 | grep -oE 'cov: [0-9]+' | grep -o '[0-9]*' || true)
  found=$(find "$build/artifacts/$t" -type f -newer "$log.start" | wc -l)
  printf '%-18s %10s execs  cov %6s  %s\n' "$t" "${execs:-0}" "${cov:-0}" \
    "$([[ $found -eq 0 ]] && echo "no finding" || echo "$found FINDING(S) in $build/artifacts/$t (see $log)")"
  [[ $found -eq 0 ]]
}

jobs=${RXT_FUZZ_JOBS:-1}
for t in "${targets[@]}"; do
  mkdir -p "$build/logs" && touch "$build/logs/$t.log.start"
  run_target "$t" &
  while [[ $(jobs -rp | wc -l) -ge $jobs ]]; do wait -n || true; done
done
wait
status=0
for t in "${targets[@]}"; do summarize "$t" || status=1; done
exit "$status"
