#!/usr/bin/env bash
# Instructions per JDBC sample under callgrind: the steady figure for comparing builds on
# a shared, noisy machine (rates and CPU seconds follow other processes' load; instruction
# counts do not). THREADS users (4) run the prepared SELECT by primary key of
# jmx-fixtures/bench/jdbc_select.jmx against a private PostgreSQL with one worker thread,
# SHORT (500) and LONG (2500) loops each; the difference of the two runs divided by the
# difference of the samples written is the cost of one sample, start-up (SCRAM
# authentication, connecting the pool) cancelled out.
#
# With RUST=1 the reference loop of bench/jdbc_bench.rs is measured the same way (its
# runs last SHORT_S and LONG_S seconds, 5 and 15): the driver's own cost per query.
# With KEEP=DIR the profiles are kept there (callgrind_annotate --inclusive=yes ...).
#
# needs: apt-get install -y postgresql valgrind
# usage: bench/jdbc_instructions.sh      (THREADS=4 SHORT=500 LONG=2500; JMXR=binary)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
THREADS="${THREADS:-4}"
SHORT="${SHORT:-500}"
LONG="${LONG:-2500}"
WORK="$(mktemp -d)"
. "$ROOT/bench/lib/private_postgres.sh"
stop() { stop_private_postgres "$WORK"; rm -rf "$WORK"; }
trap stop EXIT

build_jdbc_clients

start_private_postgres "$WORK" "100000"

# The benchmark plan with a bounded loop count instead of its duration.
sed 's|<intProp name="LoopController.loops">-1</intProp>|<stringProp name="LoopController.loops">${__P(loops,-1)}</stringProp>|' \
  "$ROOT/jmx-fixtures/bench/jdbc_select.jmx" > "$WORK/plan.jmx"
grep -q '__P(loops' "$WORK/plan.jmx" || { echo "the plan's loop count was not found"; exit 1; }

total() { callgrind_annotate "$1" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}'; }

jmxr_run() { # name loops -> "<instructions> <samples>"
  valgrind --tool=callgrind --callgrind-out-file="$WORK/$1.cg" "$JMXR" -n \
    -t "$WORK/plan.jmx" -l "$WORK/$1.jtl" \
    -Jdb.url="jdbc:postgresql://127.0.0.1:$PORT/bench" -Jdb.user=bench -Jdb.password=secret \
    -Jthreads="$THREADS" -Jduration=600 -Jloops="$2" -Jrows=100000 -Jjmxr.worker_threads=1 \
    > /dev/null 2> "$WORK/$1.err"
  echo "$(total "$WORK/$1.cg") $(($(wc -l < "$WORK/$1.jtl") - 1))"
}

read -r short_ir short_n <<< "$(jmxr_run jmxr_short "$SHORT")"
read -r long_ir long_n <<< "$(jmxr_run jmxr_long "$LONG")"
echo "jmxr: $short_n samples $short_ir instructions, $long_n samples $long_ir instructions;" \
  "per sample $(((long_ir - short_ir) / (long_n - short_n)))"

if [ -n "${RUST:-}" ]; then
  rust_run() { # name seconds -> "<instructions> <queries>"
    valgrind --tool=callgrind --callgrind-out-file="$WORK/$1.cg" "$ROOT/target/release/examples/jdbc_bench" \
      "host=127.0.0.1 port=$PORT user=bench password=secret dbname=bench" "$THREADS" "$2" 100000 \
      > "$WORK/$1.out" 2> "$WORK/$1.err"
    echo "$(total "$WORK/$1.cg") $(cut -d' ' -f1 "$WORK/$1.out")"
  }
  read -r short_ir short_n <<< "$(rust_run rust_short "${SHORT_S:-5}")"
  read -r long_ir long_n <<< "$(rust_run rust_long "${LONG_S:-15}")"
  echo "rust-loop: $short_n queries $short_ir instructions, $long_n queries $long_ir instructions;" \
    "per query $(((long_ir - short_ir) / (long_n - short_n)))"
fi
if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP"; cp "$WORK"/*.cg "$KEEP/"; echo "profiles kept in $KEEP"; fi
