#!/usr/bin/env bash
# Achieved rate of the Precise Throughput Timer against its target at 10/s, 1,000/s and
# 20,000/s (Debug Samplers, DURATION seconds each): the rate over the run as a ratio of
# the target and the standard deviation of the per-second counts. In the same run, the
# Constant Throughput Timer ("all active threads") at the same rates, in jmxr and (when
# installed) in JMeter 2.13, which has no Precise Throughput Timer.
#
# The first and last second are left out of the per-second figures (partial seconds).
# Users: the rate / 100, at least 10 (each user waits 100 ms or more between samples).
#
# needs: python3   (JMeter 2.13: apt-get install -y jmeter jmeter-java)
# usage: bench/precise_throughput.sh          (DURATION=60 RATES="10 1000 20000")
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DURATION="${DURATION:-60}"
RATES="${RATES:-10 1000 20000}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml"
ORACLE="$ROOT/../shared/tools/jmeter213/jmeter213"
HAVE_JMETER=0
if [ -x /usr/bin/jmeter ] && [ -x "$ORACLE" ]; then HAVE_JMETER=1; fi

# jtl target -> "achieved/s ratio stddev" (a header row, if any, is skipped).
figures() {
  python3 - "$1" "$2" "$DURATION" <<'PY'
import sys, statistics
path, target, duration = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
stamps = []
with open(path) as f:
    for line in f:
        head = line.split(",", 1)[0]
        if head.isdigit():
            stamps.append(int(head))
if not stamps:
    print("0 0 0"); sys.exit()
stamps.sort()
achieved = len(stamps) / duration
start = stamps[0]
buckets = [0] * (int(duration) + 1)
for s in stamps:
    i = (s - start) // 1000
    if i < len(buckets):
        buckets[i] += 1
inner = buckets[1:int(duration) - 1] or buckets
print(f"{achieved:.1f} {achieved / target:.4f} {statistics.pstdev(inner):.1f}")
PY
}

run_jmxr() { # plan jtl rate users
  "$ROOT/target/release/jmxr" -n -t "$1" -l "$2" -Jthreads="$4" -Jduration="$DURATION" \
    -Jper_minute="$(($3 * 60))" > "$2.out" 2>&1
}

printf "%-9s %-28s %12s %9s %14s\n" "target/s" "timer" "achieved/s" "ratio" "stddev per s"
for rate in $RATES; do
  users=$((rate / 100)); [ "$users" -lt 10 ] && users=10
  run_jmxr "$ROOT/jmx-fixtures/bench/precise_throughput.jmx" "$WORK/ptt.jtl" "$rate" "$users"
  read -r a r s <<< "$(figures "$WORK/ptt.jtl" "$rate")"
  printf "%-9s %-28s %12s %9s %14s\n" "$rate" "jmxr Precise Throughput" "$a" "$r" "$s"
  run_jmxr "$ROOT/jmx-fixtures/bench/constant_throughput.jmx" "$WORK/ctt.jtl" "$rate" "$users"
  read -r a r s <<< "$(figures "$WORK/ctt.jtl" "$rate")"
  printf "%-9s %-28s %12s %9s %14s\n" "$rate" "jmxr Constant Throughput" "$a" "$r" "$s"
  if [ "$HAVE_JMETER" = 1 ]; then
    "$ORACLE" -n -t "$ROOT/jmx-fixtures/bench/constant_throughput.jmx" -l "$WORK/jm.jtl" \
      -Jthreads="$users" -Jduration="$DURATION" -Jper_minute="$((rate * 60))" \
      > "$WORK/jm.out" 2>&1
    read -r a r s <<< "$(figures "$WORK/jm.jtl" "$rate")"
    printf "%-9s %-28s %12s %9s %14s\n" "$rate" "JMeter 2.13 Constant Thr." "$a" "$r" "$s"
  else
    printf "%-9s %-28s %12s\n" "$rate" "JMeter 2.13 Constant Thr." "not installed"
  fi
  rm -f "$WORK"/*.jtl
done
