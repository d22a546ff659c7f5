#!/usr/bin/env bash
# Cost of a Backend Listener sending to InfluxDB: Debug Samplers paced to RATE samples/s
# (THREADS users, each paced by a Constant Throughput Timer to RATE/THREADS samples/s,
# since the timer's schedule is in whole milliseconds; LOOPS iterations of two samplers)
# run ROUNDS times with the listener and ROUNDS times without it, alternating, against a
# private InfluxDB 1.x (Debian's influxd) on 127.0.0.1 with a temporary data folder.
# Target: jmxr's CPU (user+sys) rises by at most 5 % (medians), and every run's .jtl
# holds every sample; with the listener, InfluxDB's total count equals it too.
#
# usage: bench/backend_listener.sh   (THREADS=100 LOOPS=10000 RATE=100000 ROUNDS=3)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
THREADS="${THREADS:-100}"
LOOPS="${LOOPS:-10000}"
RATE="${RATE:-100000}"
ROUNDS="${ROUNDS:-3}"
WORK="$(mktemp -d)"
INFLUX_PID=""
cleanup() {
  [ -n "$INFLUX_PID" ] && kill "$INFLUX_PID" 2>/dev/null && wait "$INFLUX_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
if [ -z "${JMXR:-}" ]; then
  JMXR="$ROOT/target/release/jmxr"
  cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml"
fi
command -v influxd >/dev/null || { echo "needs influxd (apt-get install influxdb)" >&2; exit 1; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
PORT=$(free_port)
cat > "$WORK/influxdb.conf" <<EOF
reporting-disabled = true
bind-address = "127.0.0.1:$(free_port)"
[meta]
  dir = "$WORK/influx/meta"
[data]
  dir = "$WORK/influx/data"
  wal-dir = "$WORK/influx/wal"
  query-log-enabled = false
[http]
  bind-address = "127.0.0.1:$PORT"
  log-enabled = false
[monitor]
  store-enabled = false
EOF
influxd -config "$WORK/influxdb.conf" >"$WORK/influxd.log" 2>&1 &
INFLUX_PID=$!
for _ in $(seq 100); do
  curl -sf "http://127.0.0.1:$PORT/ping" >/dev/null && break
  sleep 0.1
done
query() { curl -sf -G "http://127.0.0.1:$PORT/query" --data-urlencode "db=$1" --data-urlencode "q=$2"; }
curl -sf -XPOST "http://127.0.0.1:$PORT/query" --data-urlencode "q=CREATE DATABASE bench" >/dev/null

WITH="$ROOT/jmx-fixtures/bench/backend_listener.jmx"
WITHOUT="$WORK/without.jmx"
# The same plan without its Backend Listener.
python3 - "$WITH" "$WITHOUT" <<'EOF'
import sys
s = open(sys.argv[1]).read()
start = s.index("      <BackendListener")
end = s.index("</BackendListener>") + len("</BackendListener>\n      <hashTree/>\n")
open(sys.argv[2], "w").write(s[:start] + s[end:])
EOF

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
expected=$((2 * THREADS * LOOPS))

run() { # plan label
  rm -f "$WORK/out.jtl"
  /usr/bin/time -f "%U %S %e" -o "$WORK/time" "$JMXR" -n -t "$1" -l "$WORK/out.jtl" \
    -Jthreads="$THREADS" -Jloops="$LOOPS" -Jper_minute=$((RATE * 60 / THREADS)) \
    -Jinflux_url="http://127.0.0.1:$PORT/write?db=bench" >/dev/null 2>"$WORK/stderr"
  read -r user sys wall < "$WORK/time"
  rows=$(($(wc -l < "$WORK/out.jtl") - 1))
  if [ "$rows" -ne "$expected" ]; then
    echo "$2: the .jtl holds $rows samples, not $expected" >&2
    exit 1
  fi
  echo "$user + $sys" | bc -l >> "$WORK/$2"
  printf "%-8s cpu %.2f s  wall %.1f s  rate %.0f samples/s\n" "$2" "$(echo "$user + $sys" | bc -l)" \
    "$wall" "$(echo "$rows / $wall" | bc -l)"
}

for round in $(seq "$ROUNDS"); do
  run "$WITHOUT" without
  query bench "DROP SERIES FROM /.*/" >/dev/null
  run "$WITH" with
  sent=$(query bench "SELECT sum(\"count\") FROM \"jmeter\" WHERE \"transaction\" = 'all'" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["results"][0]["series"][0]["values"][0][1])')
  if [ "$sent" -ne "$expected" ]; then
    echo "round $round: InfluxDB counted $sent samples, not $expected" >&2
    exit 1
  fi
done
without=$(median < "$WORK/without")
with=$(median < "$WORK/with")
printf "samples=%s per run at %s/s  cpu without the listener: %.2f s  with it: %.2f s  rise: %+.1f %%\n" \
  "$expected" "$RATE" "$without" "$with" "$(echo "($with - $without) * 100 / $without" | bc -l)"
