#!/usr/bin/env bash
# Runs one plan with jmxr and with real JMeter 2.13 (Debian's, through
# ../shared/tools/jmeter213) and compares per thread the sequence of (label,
# responseCode, responseMessage, success, dataType, bytes). The servers the plan talks
# to are the caller's: start them first and pass their ports as -J properties.
# Options after the plan go to both runs (-J, -D).
#
# needs: apt-get install -y jmeter jmeter-http
# usage: bench/compare_jmeter213.sh jmx-fixtures/http/soap.jmx -Jport=18080
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PLAN="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
shift
ORACLE="$ROOT/../shared/tools/jmeter213/jmeter213"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml"
COLUMNS=(
  -Jjmeter.save.saveservice.print_field_names=true
  # 2.13 never writes sub-results (redirect hops) as rows; 5.x does by default.
  -Jjmeter.save.saveservice.subresults=false
)
(cd "$WORK" && "$ROOT/target/release/jmxr" -n -t "$PLAN" -l "$WORK/jmxr.csv" "${COLUMNS[@]}" "$@" > "$WORK/jmxr.out" 2>&1) \
  || { cat "$WORK/jmxr.out"; exit 1; }
(cd "$WORK" && timeout 300 "$ORACLE" -n -t "$PLAN" -l "$WORK/jmeter.csv" "${COLUMNS[@]}" "$@" > "$WORK/jmeter.out" 2>&1) \
  || { cat "$WORK/jmeter.out"; exit 1; }

# One line per sample, sorted by thread (stable: keeps each thread's order).
per_thread() {
  python3 - "$1" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline='')))
rows.sort(key=lambda r: r['threadName'])
for r in rows:
    print(" | ".join(r.get(c, '?') for c in
          ('threadName', 'label', 'responseCode', 'responseMessage', 'success', 'dataType', 'bytes')))
PY
}
per_thread "$WORK/jmxr.csv" > "$WORK/jmxr.txt"
per_thread "$WORK/jmeter.csv" > "$WORK/jmeter.txt"
echo "== jmxr"; cat "$WORK/jmxr.txt"
echo "== JMeter 2.13"; cat "$WORK/jmeter.txt"
if diff -q "$WORK/jmxr.txt" "$WORK/jmeter.txt" > /dev/null; then
  echo "same (thread, label, code, message, success, dataType, bytes) per thread"
else
  echo "== differences (< jmxr, > JMeter 2.13)"
  diff "$WORK/jmxr.txt" "$WORK/jmeter.txt" || true
  exit 2
fi
