#!/usr/bin/env bash
# UDP send rate of jmxr against a minimal sendto loop, both into the same draining
# receiver (`jmxr udp-sink`) on 127.0.0.1.
#
#   1. bench/sendto_loop.rs (plain blocking sendto, one thread): the baseline rate;
#   2. jmxr, one virtual user, intervalMs=0, 100-byte datagrams, writing the .jtl;
#   3. jmxr, 20 virtual users, same plan.
# For each: datagrams sent and received, rate, CPU seconds (user + sys) per 100k
# datagrams, and (for jmxr) peak RSS. On a shared machine the rates follow the load of
# other processes; the CPU cost per datagram is the steadier figure to compare.
# Done when: (2) >= 0.7 x (1), and (3) >= (1).
#
# usage: bench/udp.sh            (DURATION=10 ROUNDS=3 PORT=39877; JMXR=path/to/jmxr
#                                 measures that binary instead of building this tree)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DURATION="${DURATION:-10}"
ROUNDS="${ROUNDS:-3}"
PORT="${PORT:-39877}"
PLAN="$ROOT/jmx-fixtures/bench/udp_sender.jmx"
WORK="$(mktemp -d)"
SINK_PID=""
cleanup() { [ -n "$SINK_PID" ] && kill "$SINK_PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

if [ -z "${JMXR:-}" ]; then
  cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml"
  JMXR="$ROOT/target/release/jmxr"
fi
rustc -O --edition 2021 "$ROOT/bench/sendto_loop.rs" -o "$WORK/sendto_loop"

# Starts a sink for one measurement; its summary goes to $WORK/$1.sink.
start_sink() {
  "$JMXR" udp-sink --port "$PORT" --duration "$((DURATION + 30))" >"$WORK/$1.sink" 2>&1 &
  SINK_PID=$!
  sleep 0.5
}
# Stops the sink (Ctrl-C: it prints its summary) and sets RECEIVED from it.
stop_sink() {
  sleep 0.5
  kill -INT "$SINK_PID"; wait "$SINK_PID" || true; SINK_PID=""
  RECEIVED=$(awk '/^udp-sink:/ {print $2}' "$WORK/$1.sink")
}

# CPU seconds (user + sys) per 100k datagrams from a /usr/bin/time file ending "%U %S".
cpu_per_100k() { # time-file datagrams
  awk -v n="$2" '{cpu = $(NF-1) + $NF} END {printf "%.2f", cpu * 100000 / n}' "$1"
}

run_loop() {
  start_sink loop
  /usr/bin/time -f "%U %S" -o "$WORK/loop.time" \
    "$WORK/sendto_loop" "127.0.0.1:$PORT" "$DURATION" 100 >"$WORK/loop.out"
  read -r LOOP_SENT LOOP_SECONDS LOOP_RATE < "$WORK/loop.out"
  stop_sink loop
  printf "%-14s sent=%-9s received=%-9s rate=%8.0f/s  cpu_s_per_100k=%s\n" "sendto loop" \
    "$LOOP_SENT" "$RECEIVED" "$LOOP_RATE" "$(cpu_per_100k "$WORK/loop.time" "$LOOP_SENT")"
}

run_jmxr() { # threads; appends the ratio to the loop of this round to $WORK/ratios_<threads>
  local threads="$1" name="jmxr_$1"
  start_sink "$name"
  rm -f "$WORK/$name.jtl"
  /usr/bin/time -f "%M %U %S" -o "$WORK/$name.time" "$JMXR" -n -t "$PLAN" -l "$WORK/$name.jtl" \
    -Jthreads="$threads" -Jrampup=0 -Jduration="$DURATION" -Judp.port="$PORT" \
    -Judp.interval=0 -Judp.packet_size=100 \
    >"$WORK/$name.out" 2>&1
  stop_sink "$name"
  local sent; sent=$(($(wc -l < "$WORK/$name.jtl") - 1))
  local rate; rate=$(echo "$sent / $DURATION" | bc -l)
  local ratio; ratio=$(echo "$rate / $LOOP_RATE" | bc -l)
  echo "$ratio" >> "$WORK/ratios_$threads"
  printf "%-14s sent=%-9s received=%-9s rate=%8.0f/s  (%.2fx the loop)  cpu_s_per_100k=%s  peak_rss=%.1f MB\n" \
    "jmxr $threads user(s)" "$sent" "$RECEIVED" "$rate" "$ratio" \
    "$(cpu_per_100k "$WORK/$name.time" "$sent")" \
    "$(awk '{printf "%.1f", $1 / 1024}' "$WORK/$name.time")"
}

median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

# The machine's speed drifts over seconds (other tenants): each round measures the loop
# and both jmxr runs back to back, and the ratios are taken within a round.
for round in $(seq "$ROUNDS"); do
  echo "round $round:"
  run_loop
  run_jmxr 1
  run_jmxr 20
done
printf "median over %d rounds: 1 user %.2fx the loop, 20 users %.2fx the loop\n" "$ROUNDS" \
  "$(median < "$WORK/ratios_1")" "$(median < "$WORK/ratios_20")"
