#!/usr/bin/env bash
# Runs one plan with jmxr and with real JMeter 2.13 (Debian's, through
# ../shared/tools/jmeter213) and compares per thread the sequence of (label,
# responseCode, responseMessage, success, dataType, bytes). The servers the plan talks
# to are the caller's: start them first and pass their ports as -J properties.
# Options after the plan go to both runs (-J, -D). Each side runs in its own empty
# working folder.
#
# Optional environment:
#   COMPARE_RESET    a bash command run before each side (e.g. reseeding a server the
#                    plan changes), so both start from the same state; exported bash
#                    functions and variables are visible to it.
#   COMPARE_COLUMNS  extra .jtl columns compared as well, space-separated (e.g. sample
#                    variables named by -Jsample_variables, or Filename).
#   COMPARE_FILES    paths relative to the working folder (files or folders) whose
#                    listing and contents are compared after the runs.
#
# needs: apt-get install -y jmeter jmeter-http
# usage: bench/compare_jmeter213.sh jmx-fixtures/http/soap.jmx -Jport=18080
# exit: 0 same, 2 different, 1 a run failed
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PLAN="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
shift
ORACLE="$ROOT/../shared/tools/jmeter213/jmeter213"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/jmxr" "$WORK/jmeter"

cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml"
COLUMNS=(
  -Jjmeter.save.saveservice.print_field_names=true
  # 2.13 never writes sub-results (redirect hops) as rows; 5.x does by default.
  -Jjmeter.save.saveservice.subresults=false
)
reset() { if [ -n "${COMPARE_RESET:-}" ]; then bash -c "$COMPARE_RESET"; fi; }
reset
(cd "$WORK/jmxr" && "$ROOT/target/release/jmxr" -n -t "$PLAN" -l "$WORK/jmxr.csv" "${COLUMNS[@]}" "$@" > "$WORK/jmxr.out" 2>&1) \
  || { cat "$WORK/jmxr.out"; exit 1; }
reset
(cd "$WORK/jmeter" && timeout 300 "$ORACLE" -n -t "$PLAN" -l "$WORK/jmeter.csv" "${COLUMNS[@]}" "$@" > "$WORK/jmeter.out" 2>&1) \
  || { cat "$WORK/jmeter.out"; exit 1; }

# One line per sample, sorted by thread (stable: keeps each thread's order).
per_thread() {
  python3 - "$1" ${COMPARE_COLUMNS:-} <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline='')))
rows.sort(key=lambda r: r['threadName'])
columns = ('threadName', 'label', 'responseCode', 'responseMessage', 'success', 'dataType',
           'bytes') + tuple(sys.argv[2:])
for r in rows:
    # Multi-line messages (server replies) stay on one line.
    print(" | ".join((r.get(c) if r.get(c) is not None else '?').replace('\r', '\\r').replace('\n', '\\n')
                     for c in columns))
PY
}
# The listing and contents of the files the plan wrote, one line each.
written() {
  python3 - "$1" ${COMPARE_FILES:-} <<'PY'
import os, sys
base = sys.argv[1]
for path in sys.argv[2:]:
    full = os.path.join(base, path)
    if not os.path.exists(full):
        print("file %s: absent" % path)
        continue
    files = [full] if os.path.isfile(full) else sorted(
        os.path.join(d, f) for d, _, fs in os.walk(full) for f in fs)
    for f in files:
        if os.path.basename(f) == 'jmeter.log':  # JMeter's own log, not the plan's output
            continue
        print("file %s: %r" % (os.path.relpath(f, base), open(f, 'rb').read()[:300]))
PY
}
per_thread "$WORK/jmxr.csv" > "$WORK/jmxr.txt"
per_thread "$WORK/jmeter.csv" > "$WORK/jmeter.txt"
written "$WORK/jmxr" >> "$WORK/jmxr.txt"
written "$WORK/jmeter" >> "$WORK/jmeter.txt"
echo "== jmxr"; cat "$WORK/jmxr.txt"
echo "== JMeter 2.13"; cat "$WORK/jmeter.txt"
if diff -q "$WORK/jmxr.txt" "$WORK/jmeter.txt" > /dev/null; then
  echo "same (thread, label, code, message, success, dataType, bytes${COMPARE_COLUMNS:+, $COMPARE_COLUMNS}${COMPARE_FILES:+, files}) per thread"
else
  echo "== differences (< jmxr, > JMeter 2.13)"
  diff "$WORK/jmxr.txt" "$WORK/jmeter.txt" || true
  exit 2
fi
