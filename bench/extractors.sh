#!/usr/bin/env bash
# CPU cost of extraction on a realistic sample. The sampler is an HTTP GET of a 10 KiB
# JSON document from a local nginx (one worker, 127.0.0.1, keep-alive); the plan with
# extraction adds below it a Regular Expression Extractor (match 3, two groups), a JSON
# Extractor with a filter path (`$.items[?(@.id == 42)].name`), a Boundary Extractor and
# a Response Assertion (substring near the end of the body); the baseline plan has the
# same sampler alone. The bound set for it: at most 15 % more CPU per sample.
#
# Measured, for jmxr's process only (nginx's CPU is in neither figure):
#  1. user+sys CPU time per sample (`/usr/bin/time`), ROUNDS rounds alternating the two
#     plans, THREADS users x LOOPS iterations each; the medians are compared.
#  2. callgrind instructions per sample: each plan is run with 1 user for CG_LOOPS and
#     4*CG_LOOPS iterations, and the difference divided by the extra samples, so the
#     start-up cost cancels out.
#
# needs: apt-get install -y nginx-light valgrind
# usage: bench/extractors.sh     (THREADS=4 LOOPS=5000 ROUNDS=5 CG_LOOPS=200 PORT=8093)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
. "$ROOT/bench/lib/items_json.sh"
. "$ROOT/bench/lib/local_nginx.sh"
THREADS="${THREADS:-4}"
LOOPS="${LOOPS:-5000}"
ROUNDS="${ROUNDS:-5}"
CG_LOOPS="${CG_LOOPS:-200}"
PORT="${PORT:-8093}"
ON="$ROOT/jmx-fixtures/bench/extractors_on.jmx"
OFF="$ROOT/jmx-fixtures/bench/extractors_off.jmx"
WORK="$(mktemp -d)"
NGINX_PID=""
cleanup() { [ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml"
start_local_nginx "$WORK" "$PORT"

write_items_json "$WORK/www/items.json"
chmod 644 "$WORK/www/items.json"
echo "response: $(curl -s "http://127.0.0.1:$PORT/items.json" | wc -c) bytes of JSON"

cpu_per_sample() { # plan -> CPU microseconds per sample of one run (every sample must pass)
  rm -f "$WORK/out.jtl" # -l appends, as JMeter's does
  /usr/bin/time -f "%U %S" -o "$WORK/time" "$ROOT/target/release/jmxr" -n -t "$1" \
    -l "$WORK/out.jtl" -Jthreads="$THREADS" -Jloops="$LOOPS" -Jport="$PORT" > /dev/null 2>&1
  local failed; failed=$(awk -F, 'NR > 1 && ($4 != 200 || $8 != "true")' "$WORK/out.jtl" | wc -l)
  [ "$failed" = 0 ] || { echo "$failed samples of $1 failed" >&2; exit 1; }
  read -r user sys < "$WORK/time"
  local samples=$(($(wc -l < "$WORK/out.jtl") - 1))
  echo "($user + $sys) * 1000000 / $samples" | bc -l
}

median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

for round in $(seq "$ROUNDS"); do
  off=$(cpu_per_sample "$OFF"); on=$(cpu_per_sample "$ON")
  echo "$off" >> "$WORK/off"; echo "$on" >> "$WORK/on"
  printf "round %d: without %.1f us/sample, with %.1f us/sample\n" "$round" "$off" "$on"
done
off=$(median < "$WORK/off"); on=$(median < "$WORK/on")
printf "CPU (user+sys) median: without extractors %.1f us/sample, with %.1f us/sample, overhead %+.1f %%\n" \
  "$off" "$on" "$(echo "($on - $off) * 100 / $off" | bc -l)"

instructions() { # plan loops -> callgrind instruction count of the whole run
  rm -f "$WORK/cg.jtl"
  valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out" \
    "$ROOT/target/release/jmxr" -n -t "$1" -l "$WORK/cg.jtl" \
    -Jthreads=1 -Jloops="$2" -Jport="$PORT" > /dev/null 2>&1
  awk '/^(summary|totals):/ {print $2; exit}' "$WORK/cg.out"
}

per_sample_instructions() { # plan -> instructions per sample, start-up excluded
  local short long
  short=$(instructions "$1" "$CG_LOOPS"); long=$(instructions "$1" $((4 * CG_LOOPS)))
  echo "($long - $short) / (3 * $CG_LOOPS)" | bc -l
}

if command -v valgrind > /dev/null; then
  cg_off=$(per_sample_instructions "$OFF"); cg_on=$(per_sample_instructions "$ON")
  printf "callgrind: without extractors %.0f instructions/sample, with %.0f, overhead %+.1f %%\n" \
    "$cg_off" "$cg_on" "$(echo "($cg_on - $cg_off) * 100 / $cg_off" | bc -l)"
else
  echo "valgrind not installed: no instruction counts"
fi
