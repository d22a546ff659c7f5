#!/usr/bin/env bash
# CPU cost of extraction: the same plan (a Java Request answering a 10 KiB JSON body,
# checked by a Response Assertion) with and without a Regular Expression Extractor, a
# JSON Extractor (filter path) and a Boundary Extractor below the sampler. Prints CPU
# time per sample for both and the overhead; the issue's bound is 15 %.
#
# Against a Java Request (a few microseconds of CPU) the bound cannot hold: building the
# tree of a 10 KiB JSON document for the filter path is most of the cost (allocation of
# ordered maps). A path of plain names and indexes (`$.a.b[0]`) is read in one pass
# instead, and costs a fraction of that; regex and boundary extraction are cheap.
#
# usage: bench/extractors.sh     (THREADS=10 LOOPS=2000 RUNS=3)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
THREADS="${THREADS:-10}"
LOOPS="${LOOPS:-2000}"
RUNS="${RUNS:-3}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml"

cpu_per_sample() { # plan -> best CPU microseconds per sample over RUNS runs
  local best=""
  for _ in $(seq "$RUNS"); do
    rm -f "$WORK/out.jtl"
    /usr/bin/time -f "%U %S" -o "$WORK/time" "$ROOT/target/release/jmxr" -n -t "$1" \
      -l "$WORK/out.jtl" -Jthreads="$THREADS" -Jloops="$LOOPS" > /dev/null 2>&1
    read -r user sys < "$WORK/time"
    local samples=$(($(wc -l < "$WORK/out.jtl") - 1))
    local us; us=$(echo "($user + $sys) * 1000000 / $samples" | bc -l)
    if [ -z "$best" ] || [ "$(echo "$us < $best" | bc -l)" = 1 ]; then best="$us"; fi
  done
  echo "$best"
}

off=$(cpu_per_sample "$ROOT/jmx-fixtures/bench/extractors_off.jmx")
on=$(cpu_per_sample "$ROOT/jmx-fixtures/bench/extractors_on.jmx")
printf "without extractors: %.1f us/sample  with: %.1f us/sample  overhead: %.1f %%\n" \
  "$off" "$on" "$(echo "($on - $off) * 100 / $off" | bc -l)"
