#!/usr/bin/env bash
# Run the README's test command (make test) N times in a row on a fresh clone, and name every
# failure with its test id.
#
#   tools/repeat_tests.sh [--busy] [--keep] N [MAKE_TEST_ARGUMENTS...]
#
# The clone is of the committed HEAD of this repository (uncommitted changes are not in it), made
# in a temporary folder: the first run sets it up as a newcomer's first `make test` does. Each
# run's output is kept in the folder's logs/run-K.log. Arguments after N go to make (for
# example PYTEST_ARGS='test/test_cli_suite.py' TEST_WORKERS=2).
#
#   --busy   keep one core busy with a Python loop for as long as the runs last (the load the
#            suite promises to pass under); the loop is stopped at the end
#   --keep   keep the temporary folder (its path is printed); by default it is removed when
#            every run passed
#
# Exits 0 when every run passed, 1 when any failed, 2 on a usage error.
set -euo pipefail

usage() { sed -n '2,17s/^# \{0,1\}//p' "$0"; exit 2; }

busy=0
keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --busy) busy=1; shift ;;
    --keep) keep=1; shift ;;
    -h|--help) usage ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || usage
runs=$1
shift
case "$runs" in ''|*[!0-9]*|0) echo "repeat_tests: N must be a positive integer, not '$runs'" >&2
                                exit 2 ;; esac

source_repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/robot_sm-repeat.XXXXXX")
clone="$work/robot_sm"
logs="$work/logs"
mkdir -p "$logs"
busy_pid=''
cleanup() {
  if [ -n "$busy_pid" ]; then
    kill "$busy_pid" 2>/dev/null || true
    wait "$busy_pid" 2>/dev/null || true
  fi
}
trap cleanup EXIT

git clone --quiet --no-hardlinks "$source_repo" "$clone"
echo "repeat_tests: $runs run(s) of make test on a fresh clone of $(git -C "$clone" rev-parse \
--short HEAD) in $work"
if [ "$busy" = 1 ]; then
  python3 -c 'while True: pass' &
  busy_pid=$!
  echo "repeat_tests: one core kept busy (pid $busy_pid)"
fi

failed_runs=0
for run in $(seq 1 "$runs"); do
  log="$logs/run-$run.log"
  started=$(date +%s)
  if (cd "$clone" && make test "$@") >"$log" 2>&1; then
    status=passed
  else
    status=FAILED
    failed_runs=$((failed_runs + 1))
  fi
  seconds=$(( $(date +%s) - started ))
  # pytest's closing line ("1339 passed, 23 skipped in 301.2s") and its short summary lines.
  summary=$(grep -E '^=*\s*[0-9]+ (passed|failed)|^[0-9]+ (passed|failed)' "$log" | tail -1 \
            | sed 's/=//g; s/^ *//; s/ *$//')
  echo "run $run/$runs: $status in ${seconds} s (${summary:-no pytest summary: see $log})"
  if [ "$status" = FAILED ]; then
    grep -E '^(FAILED|ERROR) ' "$log" | sed 's/^/    /' || true
    grep -qE '^(FAILED|ERROR) ' "$log" || echo "    no test id in the output: see $log"
  fi
done

echo "repeat_tests: $((runs - failed_runs)) of $runs run(s) passed"
if [ "$failed_runs" -gt 0 ] || [ "$keep" = 1 ]; then
  echo "repeat_tests: logs in $logs"
  exit $((failed_runs > 0 ? 1 : 0))
fi
rm -rf "$work"
