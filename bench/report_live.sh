#!/usr/bin/env bash
# Cost of the live dashboard aggregation (-e): runs a Debug Sampler plan (THREADS users,
# LOOPS iterations of two samplers, no timers) ROUNDS times with and without `-e -o`.
# Target: at most +5 %.
#
# usage: bench/report_live.sh            CPU time (user+sys), median of ROUNDS runs each
#                                        (THREADS=10 LOOPS=50000 ROUNDS=5)
#        bench/report_live.sh callgrind  instructions under callgrind, median of ROUNDS runs
#                                        each (THREADS=10 LOOPS=5000 ROUNDS=3), and the
#                                        instructions spent in the dashboard sink itself
#                                        (per sample while running, then writing the report)
#
# The whole-run instruction count of this plan varies by about ±1 % between runs without
# any change (the Debug Sampler sorts the variables, which come in hash order), hence the
# medians; the sink's own count does not vary.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
MODE="${1:-cpu}"
PLAN="$ROOT/jmx-fixtures/bench/debug_loop.jmx"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
# JMXR=path/to/jmxr measures that binary instead of building this tree (to compare builds).
if [ -z "${JMXR:-}" ]; then
  JMXR="$ROOT/target/release/jmxr"
  cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml"
fi

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
percent() { echo "($2 - $1) * 100 / $1" | bc -l; }

run_args() { # extra args...
  rm -rf "$WORK/out.jtl" "$WORK/report"
  echo -n -t "$PLAN" -l "$WORK/out.jtl" -Jthreads="$THREADS" -Jloops="$LOOPS" "$@"
}

cpu() { # extra args...
  # shellcheck disable=SC2046
  /usr/bin/time -f "%U %S" -o "$WORK/time" "$JMXR" $(run_args "$@") >/dev/null
  read -r user sys < "$WORK/time"
  echo "$user + $sys" | bc -l
}

instructions() { # toggle-collect pattern (or "") then extra args...
  local toggle="$1"
  shift
  local collect=()
  [ -n "$toggle" ] && collect=(--toggle-collect="$toggle")
  # shellcheck disable=SC2046
  valgrind --tool=callgrind "${collect[@]}" --callgrind-out-file="$WORK/cg.out" \
    "$JMXR" $(run_args "$@") >/dev/null 2>"$WORK/cg.log"
  grep -o 'Collected : [0-9]*' "$WORK/cg.log" | awk '{ print $3 }'
}

case "$MODE" in
cpu)
  THREADS="${THREADS:-10}"
  LOOPS="${LOOPS:-50000}"
  ROUNDS="${ROUNDS:-5}"
  for _ in $(seq "$ROUNDS"); do
    cpu >> "$WORK/plain"
    cpu -e -o "$WORK/report" >> "$WORK/live"
  done
  plain=$(median < "$WORK/plain")
  live=$(median < "$WORK/live")
  printf "samples=%s  cpu without -e: %.2f s  with -e: %.2f s  overhead: %+.1f %%\n" \
    "$((2 * THREADS * LOOPS))" "$plain" "$live" "$(percent "$plain" "$live")"
  ;;
callgrind)
  THREADS="${THREADS:-10}"
  LOOPS="${LOOPS:-5000}"
  ROUNDS="${ROUNDS:-3}"
  samples=$((2 * THREADS * LOOPS))
  for _ in $(seq "$ROUNDS"); do
    instructions "" >> "$WORK/plain"
    instructions "" -e -o "$WORK/report" >> "$WORK/live"
  done
  plain=$(median < "$WORK/plain")
  live=$(median < "$WORK/live")
  per_sample=$(instructions '*ReportSink*on_sample*' -e -o "$WORK/report")
  at_end=$(instructions '*ReportSink*finish*' -e -o "$WORK/report")
  printf "samples=%s  instructions without -e: %.1fM  with -e: %.1fM  overhead: %+.2f %%\n" \
    "$samples" "$(echo "$plain / 10^6" | bc -l)" "$(echo "$live / 10^6" | bc -l)" \
    "$(percent "$plain" "$live")"
  printf "dashboard sink: %.1fM while running (%.0f per sample) + %.1fM writing the report = %.2f %% of the run without -e\n" \
    "$(echo "$per_sample / 10^6" | bc -l)" "$(echo "$per_sample / $samples" | bc -l)" \
    "$(echo "$at_end / 10^6" | bc -l)" "$(echo "($per_sample + $at_end) * 100 / $plain" | bc -l)"
  ;;
*)
  echo "usage: $0 [cpu|callgrind]" >&2
  exit 2
  ;;
esac
