#!/usr/bin/env bash
# Differential check of the test-data fixtures against real JMeter 2.13 (Debian's
# package, run through ../shared/tools/jmeter213): each plan that uses only elements
# and functions 2.13 has runs under both, and the labels each thread produced (Debug
# Sampler labels show the variables) are compared thread by thread.
#
# Known version differences show up here and are expected: 2.13 does not trim CSV
# variable names and has no `ignoreFirstLine`, which later JMeter versions (and jmxr)
# have; its Regular Expression Extractor has no "use empty default" and its ORO engine no
# lookbehind; its CSV results carry no sub-result rows. Rows with random values (match
# number 0, Random Variable without seed) differ, and so does which user got which row
# when users share a CSV reader concurrently (compare the sets: csv_share.jmx).
#
# usage: jmx-fixtures/data/differential.sh [plan.jmx ...]
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
ORACLE="$ROOT/../shared/tools/jmeter213/jmeter213"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
[ -x "$ORACLE" ] && [ -x /usr/bin/jmeter ] || { echo "needs Debian's jmeter and $ORACLE" >&2; exit 2; }
cargo build --quiet --manifest-path "$ROOT/Cargo.toml" || exit 2
PLANS=("$@")
[ ${#PLANS[@]} -gt 0 ] || PLANS=("$HERE/csv_basics.jmx" "$HERE/csv_share.jmx" "$HERE/regex_extractor.jmx" "$HERE/random_variable.jmx")

labels() { # jtl -> "thread<TAB>label" lines grouped by thread, in file order within a thread
  python3 - "$1" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
for thread in sorted({r["threadName"] for r in rows}):
    for r in rows:
        if r["threadName"] == thread:
            print(thread + "\t" + r["label"].replace("\n", "\\n"))
PY
}

status=0
for given in "${PLANS[@]}"; do
  plan="$(cd "$(dirname "$given")" && pwd)/$(basename "$given")"
  name="$(basename "$plan" .jmx)"
  (cd "$WORK" && "$ROOT/target/debug/jmxr" -n -t "$plan" -l "$name.jmxr.jtl" > "$name.jmxr.log" 2>&1)
  (cd "$WORK" && "$ORACLE" -n -t "$plan" -l "$name.jmeter.jtl" \
    -Jjmeter.save.saveservice.print_field_names=true > "$name.jmeter.log" 2>&1)
  if [ ! -f "$WORK/$name.jmxr.jtl" ] || [ ! -f "$WORK/$name.jmeter.jtl" ]; then
    echo "failed $name: see the logs"; cat "$WORK/$name".*.log | tail -5; status=1; continue
  fi
  if diff <(labels "$WORK/$name.jmeter.jtl") <(labels "$WORK/$name.jmxr.jtl") > "$WORK/$name.diff"; then
    echo "same   $name"
  else
    echo "differ $name (< JMeter 2.13, > jmxr)"; sed 's/^/    /' "$WORK/$name.diff"; status=1
  fi
done
exit $status
