#!/usr/bin/env bash
# Instructions per HTTP sample under callgrind: the steady figure for comparing builds on a
# shared, noisy machine (rates and CPU seconds follow other processes' load; instruction
# counts do not). THREADS users GET a 1 KiB file from a local nginx LOOPS times each
# with one worker thread; prints the program's instructions divided by the samples written
# (start-up included, a few percent at the default size).
#
# With REPORT=1 the same run is measured again with `-e -o DIR` and the dashboard's share
# printed: the live aggregation's cost on the HTTP benchmark plan.
#
# Measure the build users get: with CARGO_PROFILE_RELEASE_INCREMENTAL=true the compiler
# splits the crate into more units and inlines less, and the same code counts about 8 %
# more instructions per sample (the awaited futures are copied instead of built in place).
#
# needs: apt-get install -y nginx-light valgrind
# usage: bench/http_instructions.sh      (THREADS=10 LOOPS=2000 PORT=8096)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
. "$ROOT/bench/lib/local_nginx.sh"
THREADS="${THREADS:-10}"
LOOPS="${LOOPS:-2000}"
PORT="${PORT:-8096}"
WORK="$(mktemp -d)"
NGINX_PID=""
cleanup() { [ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml"
start_local_nginx "$WORK" "$PORT"

instructions() { # profile-file extra-args... -> total instructions of the run
  local out="$1"; shift
  rm -rf "$WORK/out.jtl" "$WORK/report"
  valgrind --tool=callgrind --callgrind-out-file="$out" \
    "$ROOT/target/release/jmxr" -n -t "$ROOT/jmx-fixtures/bench/http_get.jmx" -l "$WORK/out.jtl" \
    -Jthreads="$THREADS" -Jloops="$LOOPS" -Jduration=600 -Jport="$PORT" -Jjmxr.worker_threads=1 \
    "$@" > /dev/null 2> "$WORK/valgrind.err"
  callgrind_annotate "$out" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}'
}

total=$(instructions "$WORK/callgrind.out")
samples=$(($(wc -l < "$WORK/out.jtl") - 1))
echo "samples=$samples instructions=$total per_sample=$((total / samples))"
if [ -n "${KEEP:-}" ]; then cp "$WORK/callgrind.out" "$KEEP"; echo "profile kept in $KEEP"; fi
if [ -n "${REPORT:-}" ]; then
  with=$(instructions "$WORK/callgrind.report.out" -e -o "$WORK/report")
  [ -f "$WORK/report/index.html" ] || { echo "no dashboard was written"; exit 1; }
  # Writing the dashboard at the end is a fixed cost; the rest is the live aggregation.
  writing=$(callgrind_annotate --inclusive=yes "$WORK/callgrind.report.out" 2>/dev/null |
    awk '/ReportSink as jmxr::results::bus::Sink>::finish/ && !seen {gsub(",", "", $1); print $1; seen = 1}')
  writing=${writing:-0}
  printf "with -e -o: instructions=%s per_sample=%s  overhead: %+.2f %% (writing the report: %s, live aggregation: %+.2f %%)\n" \
    "$with" "$((with / samples))" "$(echo "($with - $total) * 100 / $total" | bc -l)" \
    "$writing" "$(echo "($with - $writing - $total) * 100 / $total" | bc -l)"
fi
