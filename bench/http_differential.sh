#!/usr/bin/env bash
# Differential check: runs jmx-fixtures/http/differential.jmx with jmxr and with real
# JMeter 2.13 (Debian's, through ../shared/tools/jmeter213) against the same local nginx
# on 127.0.0.1, and compares per thread the sequence of (label, responseCode, success,
# bytes). Prints both sequences side by side and the lines that differ.
#
# needs: apt-get install -y nginx-light jmeter jmeter-http
# usage: bench/http_differential.sh        (PORT=8091)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
. "$ROOT/bench/lib/local_nginx.sh"
PORT="${PORT:-8091}"
PLAN="$ROOT/jmx-fixtures/http/differential.jmx"
ORACLE="$ROOT/../shared/tools/jmeter213/jmeter213"
WORK="$(mktemp -d)"
NGINX_PID=""
cleanup() { [ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml"
start_local_nginx "$WORK" "$PORT"

COLUMNS=(
  -Jjmeter.save.saveservice.print_field_names=true
  -Jjmeter.save.saveservice.timestamp=false -Jjmeter.save.saveservice.time=false
  -Jjmeter.save.saveservice.latency=false -Jjmeter.save.saveservice.connect_time=false
  -Jjmeter.save.saveservice.response_message=false -Jjmeter.save.saveservice.data_type=false
  -Jjmeter.save.saveservice.url=false -Jjmeter.save.saveservice.thread_counts=false
  -Jjmeter.save.saveservice.sent_bytes=false -Jjmeter.save.saveservice.idle_time=false
  # 2.13 never writes sub-results (redirect hops) as rows; 5.x does by default.
  -Jjmeter.save.saveservice.subresults=false
)
"$ROOT/target/release/jmxr" -n -t "$PLAN" -l "$WORK/jmxr.csv" -Jport="$PORT" "${COLUMNS[@]}" > /dev/null
"$ORACLE" -n -t "$PLAN" -l "$WORK/jmeter.csv" -Jport="$PORT" "${COLUMNS[@]}" > "$WORK/jmeter.out" 2>&1

# One line per sample: thread, label, code, success, bytes; sorted by thread, stable.
per_thread() {
  python3 - "$1" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline='')))
rows.sort(key=lambda r: r['threadName'])   # stable: keeps each thread's order
for r in rows:
    print(f"{r['threadName']} | {r['label']} | {r['responseCode']} | {r['success']} | {r['bytes']}")
PY
}
per_thread "$WORK/jmxr.csv" > "$WORK/jmxr.txt"
per_thread "$WORK/jmeter.csv" > "$WORK/jmeter.txt"
echo "== jmxr                                   || JMeter 2.13"
paste -d'#' "$WORK/jmxr.txt" "$WORK/jmeter.txt" | sed 's/#/   ||   /'
if diff -q "$WORK/jmxr.txt" "$WORK/jmeter.txt" > /dev/null; then
  echo "same (label, responseCode, success, bytes) sequence per thread"
else
  echo "== differences (< jmxr, > JMeter 2.13)"
  diff "$WORK/jmxr.txt" "$WORK/jmeter.txt" || true
fi
