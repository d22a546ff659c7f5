#!/usr/bin/env bash
# Keep-alive GET throughput of a 1 KiB file from a local nginx (one worker) on
# 127.0.0.1: wrk -t1 -c50, then jmxr with 50 virtual users writing the CSV .jtl, then
# (when installed) JMeter 2.13 with the same plan, one after the other, DURATION seconds
# each. Prints requests/s and CPU seconds per 100k requests side by side.
#
# needs: apt-get install -y nginx-light wrk   (JMeter 2.13: apt-get install -y jmeter jmeter-http)
# jmxr runs its users on JMXR_WORKERS threads (default 1, as wrk's -t1): nginx shares the
# machine, and a second worker thread would compete with it for the same cores rather
# than add throughput. JMXR_WORKERS=0 leaves jmxr's default (one thread per core).
#
# usage: bench/http_throughput.sh            (USERS=50 DURATION=15 PORT=8089 JMXR_WORKERS=1)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
. "$ROOT/bench/lib/local_nginx.sh"
USERS="${USERS:-50}"
DURATION="${DURATION:-15}"
PORT="${PORT:-8089}"
JMXR_WORKERS="${JMXR_WORKERS:-1}"
WORKER_OPTION=()
[ "$JMXR_WORKERS" != 0 ] && WORKER_OPTION=("-Jjmxr.worker_threads=$JMXR_WORKERS")
PLAN="$ROOT/jmx-fixtures/bench/http_get.jmx"
WORK="$(mktemp -d)"
NGINX_PID=""
cleanup() { [ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml"

start_local_nginx "$WORK" "$PORT"

cpu_of() { # time file -> cpu seconds
  read -r user sys wall < "$1"; echo "$user + $sys" | bc -l
}

report() { # name requests cpu seconds
  local rps per100k
  rps=$(echo "$2 / $DURATION" | bc -l)
  per100k=$(echo "$3 * 100000 / $2" | bc -l)
  printf "%-8s %9.0f req/s   %6.2f CPU s per 100k requests   (%s requests, %.2f CPU s)\n" \
    "$1" "$rps" "$per100k" "$2" "$3"
  echo "$1 $rps" >> "$WORK/rates"
}

/usr/bin/time -f "%U %S %e" -o "$WORK/wrk.time" \
  wrk -t1 -c"$USERS" -d"${DURATION}s" "http://127.0.0.1:$PORT/1k.bin" > "$WORK/wrk.out"
WRK_REQUESTS=$(awk '/requests in/ {print $1}' "$WORK/wrk.out")
report wrk "$WRK_REQUESTS" "$(cpu_of "$WORK/wrk.time")"

/usr/bin/time -f "%U %S %e" -o "$WORK/jmxr.time" \
  "$ROOT/target/release/jmxr" -n -t "$PLAN" -l "$WORK/jmxr.jtl" \
  -Jthreads="$USERS" -Jduration="$DURATION" -Jport="$PORT" "${WORKER_OPTION[@]}" > "$WORK/jmxr.out"
JMXR_REQUESTS=$(($(wc -l < "$WORK/jmxr.jtl") - 1))
JMXR_ERRORS=$(tail -n +2 "$WORK/jmxr.jtl" | grep -vc ",200,OK," || true)
report jmxr "$JMXR_REQUESTS" "$(cpu_of "$WORK/jmxr.time")"
echo "jmxr samples that are not 200 OK: $JMXR_ERRORS"

ORACLE="$ROOT/../shared/tools/jmeter213/jmeter213"
if [ -x /usr/bin/jmeter ] && [ -x "$ORACLE" ]; then
  /usr/bin/time -f "%U %S %e" -o "$WORK/jmeter.time" \
    "$ORACLE" -n -t "$PLAN" -l "$WORK/jmeter.jtl" \
    -Jthreads="$USERS" -Jduration="$DURATION" -Jport="$PORT" > "$WORK/jmeter.out" 2>&1
  report jmeter "$(wc -l < "$WORK/jmeter.jtl")" "$(cpu_of "$WORK/jmeter.time")"
else
  echo "JMeter 2.13 not installed: wrk and jmxr figures only"
fi
awk '{r[$1]=$2} END {
  printf "jmxr / wrk = %.2f", r["jmxr"]/r["wrk"];
  if (r["jmeter"] > 0) printf "   jmxr / JMeter 2.13 = %.2f", r["jmxr"]/r["jmeter"];
  printf "\n" }' "$WORK/rates"
