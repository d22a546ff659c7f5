#!/usr/bin/env bash
# CPU cost of the live dashboard aggregation (-e): runs a Debug Sampler plan (THREADS users,
# LOOPS iterations of two samplers, no timers) ROUNDS times with and without `-e -o`, and
# prints the median CPU time (user+sys) of each. Target (issue 5): at most +5 %.
#
# usage: bench/report_live.sh          (THREADS=10 LOOPS=50000 ROUNDS=5)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
THREADS="${THREADS:-10}"
LOOPS="${LOOPS:-50000}"
ROUNDS="${ROUNDS:-5}"
PLAN="$ROOT/jmx-fixtures/bench/debug_loop.jmx"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml"

cpu() { # extra args...
  rm -rf "$WORK/out.jtl" "$WORK/report"
  /usr/bin/time -f "%U %S" -o "$WORK/time" "$ROOT/target/release/jmxr" -n -t "$PLAN" \
    -l "$WORK/out.jtl" -Jthreads="$THREADS" -Jloops="$LOOPS" "$@" >/dev/null
  read -r user sys < "$WORK/time"
  echo "$user + $sys" | bc -l
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

for _ in $(seq "$ROUNDS"); do
  cpu >> "$WORK/plain"
  cpu -e -o "$WORK/report" >> "$WORK/live"
done
plain=$(median < "$WORK/plain")
live=$(median < "$WORK/live")
samples=$((2 * THREADS * LOOPS))
printf "samples=%s  cpu without -e: %.2f s  with -e: %.2f s  overhead: %+.1f %%\n" \
  "$samples" "$plain" "$live" "$(echo "($live - $plain) * 100 / $plain" | bc -l)"
