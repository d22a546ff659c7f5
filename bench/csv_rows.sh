#!/usr/bin/env bash
# Peak memory of a CSV Data Set Config over a large file: ROWS rows (10 million by
# default) read by THREADS users (1,000) for LOOPS iterations each (100), every user
# taking the next row of one shared reader. The file is streamed, so peak RSS must not
# grow with ROWS; the bound set for it is 100 MB.
#
# usage: bench/csv_rows.sh     (ROWS=10000000 THREADS=1000 LOOPS=100)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
ROWS="${ROWS:-10000000}"
THREADS="${THREADS:-1000}"
LOOPS="${LOOPS:-100}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml"
seq 1 "$ROWS" | awk '{print $1 ",user" $1}' > "$WORK/rows.csv"
/usr/bin/time -f "%M %U %S %e" -o "$WORK/time" "$ROOT/target/release/jmxr" -n \
  -t "$ROOT/jmx-fixtures/bench/csv_rows.jmx" -l "$WORK/out.jtl" \
  -Jcsv="$WORK/rows.csv" -Jthreads="$THREADS" -Jloops="$LOOPS" > "$WORK/out" 2>&1
read -r rss_kb user sys wall < "$WORK/time"
samples=$(($(wc -l < "$WORK/out.jtl") - 1))
printf "rows=%s users=%s loops=%s file=%s MB peak_rss=%.1f MB cpu=%.2f s wall=%.2f s samples=%s\n" \
  "$ROWS" "$THREADS" "$LOOPS" "$(($(stat -c %s "$WORK/rows.csv") / 1048576))" \
  "$(echo "$rss_kb/1024" | bc -l)" "$(echo "$user+$sys" | bc -l)" "$wall" "$samples"
