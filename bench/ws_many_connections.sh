#!/usr/bin/env bash
# Many concurrent WebSocket connections from one jmxr process: THREADS users each open a
# connection (Luminis Open Connection sampler) and then send a heartbeat every INTERVAL
# ms, reading its echo (request-response sampler), against the tokio-tungstenite echo
# server of bench/ws_bench.rs on 127.0.0.1. Users start over RAMPUP seconds and the run
# lasts DURATION seconds, so every connection is held at least DURATION - RAMPUP seconds.
# Prints jmxr's peak RSS, CPU time, samples and failed samples, and the connections the
# server saw.
# Done when: 20,000 connections held 60 s with peak RSS under 800 MB and no failed sample.
#
# usage: bench/ws_many_connections.sh   (THREADS=20000 RAMPUP=20 DURATION=80 INTERVAL=15000)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
THREADS="${THREADS:-20000}"
RAMPUP="${RAMPUP:-20}"
DURATION="${DURATION:-80}"
INTERVAL="${INTERVAL:-15000}"
PLAN="$ROOT/jmx-fixtures/bench/ws_heartbeat.jmx"
WORK="$(mktemp -d)"
SERVER_PID=""
cleanup() { [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml" --bin jmxr --example ws_bench
# One socket per connection on each side, plus the files of the run: raise the limit
# past THREADS where allowed (root may raise the hard limit too); jmxr raises its own
# soft limit to the hard one.
WANT=$((THREADS + 1024))
if [ "$(ulimit -Hn)" != unlimited ] && [ "$(ulimit -Hn)" -lt "$WANT" ]; then
  ulimit -Hn "$WANT" 2>/dev/null || echo "note: hard open-file limit $(ulimit -Hn) < $WANT; connections may fail"
fi
ulimit -n "$(ulimit -Hn)"
echo "open-file limit: $(ulimit -n)"
"$ROOT/target/release/examples/ws_bench" server "$WORK/port" &
SERVER_PID=$!
while [ ! -s "$WORK/port" ]; do sleep 0.1; done
PORT=$(cat "$WORK/port")

/usr/bin/time -f "%M %U %S %e" -o "$WORK/jmxr.time" "$ROOT/target/release/jmxr" -n -t "$PLAN" \
  -l "$WORK/jmxr.jtl" -Jthreads="$THREADS" -Jrampup="$RAMPUP" -Jduration="$DURATION" \
  -Jinterval="$INTERVAL" -Jws.port="$PORT" >"$WORK/jmxr.out" 2>&1
read -r rss_kb user sys wall < "$WORK/jmxr.time"
samples=$(($(wc -l < "$WORK/jmxr.jtl") - 1))
opened=$(awk -F, 'NR > 1 && $3 == "open" && $8 == "true"' "$WORK/jmxr.jtl" | wc -l)
failed=$(awk -F, 'NR > 1 && $8 != "true"' "$WORK/jmxr.jtl" | wc -l)
heartbeats=$(awk -F, 'NR > 1 && $3 == "heartbeat"' "$WORK/jmxr.jtl" | wc -l)
printf "users=%s connections_opened=%s heartbeats=%s samples=%s failed=%s\n" \
  "$THREADS" "$opened" "$heartbeats" "$samples" "$failed"
printf "peak_rss=%.1f MB (%.1f KB per connection)  cpu=%.2f s  wall=%.2f s\n" \
  "$(echo "$rss_kb/1024" | bc -l)" "$(echo "$rss_kb/$THREADS" | bc -l)" \
  "$(echo "$user+$sys" | bc -l)" "$wall"
if [ "$failed" -gt 0 ]; then
  echo "failures by message:"
  awk -F, 'NR > 1 && $8 != "true" {print $4 " " $5}' "$WORK/jmxr.jtl" | sort | uniq -c | sort -rn | head
fi
