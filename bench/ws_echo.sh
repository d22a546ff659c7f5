#!/usr/bin/env bash
# WebSocket request-response at full speed over CONNECTIONS connections: jmxr (one user
# per connection, Luminis request-response sampler re-using the user's connection, the
# .jtl written) against the minimal tokio-tungstenite client loop of bench/ws_bench.rs,
# both against the same tokio-tungstenite echo server on 127.0.0.1, in the same run.
# Each round measures the loop and jmxr back to back; the ratio is taken within a round.
# Done when: jmxr's messages per second >= 0.8 x the loop's.
#
# usage: bench/ws_echo.sh   (CONNECTIONS=50 DURATION=10 ROUNDS=3)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CONNECTIONS="${CONNECTIONS:-50}"
DURATION="${DURATION:-10}"
ROUNDS="${ROUNDS:-3}"
PLAN="$ROOT/jmx-fixtures/bench/ws_echo.jmx"
WORK="$(mktemp -d)"
SERVER_PID=""
cleanup() { [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml" --bin jmxr --example ws_bench
"$ROOT/target/release/examples/ws_bench" server "$WORK/port" &
SERVER_PID=$!
while [ ! -s "$WORK/port" ]; do sleep 0.1; done
PORT=$(cat "$WORK/port")

for round in $(seq "$ROUNDS"); do
  read -r loop_messages loop_seconds loop_rate < <(
    "$ROOT/target/release/examples/ws_bench" client "$PORT" "$CONNECTIONS" "$DURATION")
  rm -f "$WORK/jmxr.jtl"
  /usr/bin/time -f "%M %U %S" -o "$WORK/jmxr.time" "$ROOT/target/release/jmxr" -n -t "$PLAN" \
    -l "$WORK/jmxr.jtl" -Jthreads="$CONNECTIONS" -Jduration="$DURATION" -Jws.port="$PORT" \
    >"$WORK/jmxr.out" 2>&1
  read -r rss_kb user sys < "$WORK/jmxr.time"
  messages=$(awk -F, 'NR > 1 && $3 == "heartbeat" && $8 == "true"' "$WORK/jmxr.jtl" | wc -l)
  failed=$(awk -F, 'NR > 1 && $8 != "true"' "$WORK/jmxr.jtl" | wc -l)
  rate=$(echo "$messages / $DURATION" | bc -l)
  ratio=$(echo "$rate / $loop_rate" | bc -l)
  echo "$ratio" >> "$WORK/ratios"
  printf "round %s: loop %8.0f msg/s | jmxr %8.0f msg/s (%.2fx the loop), failed=%s, cpu=%.1f s, peak_rss=%.1f MB\n" \
    "$round" "$loop_rate" "$rate" "$ratio" "$failed" "$(echo "$user+$sys" | bc -l)" \
    "$(echo "$rss_kb/1024" | bc -l)"
done
median=$(sort -g "$WORK/ratios" | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}')
printf "median ratio jmxr/loop: %.2f (Done when >= 0.80)\n" "$median"
