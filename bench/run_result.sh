# Sourced by the benchmark scripts that run several processes and keep each one's RESULT line
# (bench/distributed.sh, bench/overlap.sh). Needs $results, the directory of the results.
#
# run NAME COMMAND...: runs COMMAND and appends its RESULT line (the JSON after "RESULT ") to
# $results/NAME.jsonl; its stderr goes to $results/NAME.err. No RESULT line: an error, exit 1.
run() {
  local name="$1"
  shift
  local line
  line="$("$@" 2>"$results/$name.err" | grep '^RESULT ' | sed 's/^RESULT //')" || true
  if [[ -z "$line" ]]; then
    echo "error: $name produced no RESULT (see $results/$name.err)" >&2
    exit 1
  fi
  echo "$line" >>"$results/$name.jsonl"
  echo "  $name: $line"
}
