#!/usr/bin/env bash
# Memory of many HTTP virtual users: THREADS users each GET a 1 KiB file from a local
# nginx on 127.0.0.1 (kept-alive connection per user) then wait 1 s (Constant Timer),
# for DURATION seconds, writing the CSV .jtl. The intended rate is THREADS requests/s.
# Prints peak RSS, CPU time and the achieved rate.
#
# needs: apt-get install -y nginx-light
# usage: bench/http_many_users.sh           (THREADS=5000 DURATION=30 PORT=8090)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
. "$ROOT/bench/lib/local_nginx.sh"
THREADS="${THREADS:-5000}"
DURATION="${DURATION:-30}"
PORT="${PORT:-8090}"
PLAN="$ROOT/jmx-fixtures/bench/http_many_users.jmx"
WORK="$(mktemp -d)"
NGINX_PID=""
cleanup() { [ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
ulimit -n 16384 2>/dev/null || true

cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml"

start_local_nginx "$WORK" "$PORT"

/usr/bin/time -f "%M %U %S %e" -o "$WORK/jmxr.time" \
  "$ROOT/target/release/jmxr" -n -t "$PLAN" -l "$WORK/jmxr.jtl" \
  -Jthreads="$THREADS" -Jduration="$DURATION" -Jport="$PORT" > "$WORK/jmxr.out"
read -r rss_kb user sys wall < "$WORK/jmxr.time"
SAMPLES=$(($(wc -l < "$WORK/jmxr.jtl") - 1))
NOT_OK=$(tail -n +2 "$WORK/jmxr.jtl" | grep -vc ",200,OK," || true)
echo "response codes:"; tail -n +2 "$WORK/jmxr.jtl" | cut -d, -f4 | sort | uniq -c
printf "jmxr users=%s peak_rss=%.1f MB cpu=%.2f s wall=%.2f s samples=%s (%.0f/s, intended %s/s) not_200=%s\n" \
  "$THREADS" "$(echo "$rss_kb/1024" | bc -l)" "$(echo "$user+$sys" | bc -l)" "$wall" \
  "$SAMPLES" "$(echo "$SAMPLES/$DURATION" | bc -l)" "$THREADS" "$NOT_OK"
