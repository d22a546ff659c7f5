#!/usr/bin/env bash
# Memory and CPU of many idle-ish virtual users: each loops a Debug Sampler behind a 1 s
# Constant Timer for DURATION seconds while the .jtl is written.
#
# Runs jmxr with THREADS users and, when Debian's JMeter 2.13 is installed
# (apt-get install jmeter jmeter-java), JMeter with JMETER_THREADS users on the same plan,
# one after the other on this machine, and prints peak RSS, CPU time and samples for both.
#
# usage: bench/many_users.sh            (THREADS=10000 JMETER_THREADS=1000 DURATION=30)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
THREADS="${THREADS:-10000}"
JMETER_THREADS="${JMETER_THREADS:-1000}"
DURATION="${DURATION:-30}"
PLAN="$ROOT/jmx-fixtures/bench/many_users.jmx"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml"

measure() { # name threads command...
  local name="$1" threads="$2"; shift 2
  /usr/bin/time -f "%M %U %S %e" -o "$WORK/$name.time" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" || true
  read -r rss_kb user sys wall < "$WORK/$name.time"
  local samples; samples=$(($(wc -l < "$WORK/$name.jtl") - 1))
  printf "%-8s users=%-6s peak_rss=%6.1f MB  rss_per_user=%6.1f KB  cpu=%6.2f s  wall=%6.2f s  samples=%s\n" \
    "$name" "$threads" "$(echo "$rss_kb/1024" | bc -l)" "$(echo "$rss_kb/$threads" | bc -l)" \
    "$(echo "$user+$sys" | bc -l)" "$wall" "$samples"
  echo "$name $threads $rss_kb $user $sys $samples" >> "$WORK/results"
}

measure jmxr "$THREADS" "$ROOT/target/release/jmxr" -n -t "$PLAN" -l "$WORK/jmxr.jtl" \
  -Jthreads="$THREADS" -Jduration="$DURATION"
# On time: the timer comes before the sampler and a timer that would end after the
# scheduler's end stops the user, so each user samples at 1 s, 2 s, ... DURATION-1 s:
# DURATION-1 samples per user. The check: within 2 % of that.
awk -v users="$THREADS" -v duration="$DURATION" '$1 == "jmxr" {
  expected = users * (duration - 1)
  printf "jmxr on time: %d samples of %d expected (%d users x %d ticks) = %.2f %%: %s\n",
    $6, expected, users, duration - 1, 100 * $6 / expected,
    ($6 >= 0.98 * expected && $6 <= 1.02 * expected) ? "PASS" : "FAIL"
}' "$WORK/results"

ORACLE="$ROOT/../shared/tools/jmeter213/jmeter213"
if [ -x /usr/bin/jmeter ] && [ -x "$ORACLE" ]; then
  # 2.13 writes no CSV header by default; ask for one so both files count alike.
  measure jmeter "$JMETER_THREADS" "$ORACLE" -n -t "$PLAN" -l "$WORK/jmeter.jtl" \
    -Jthreads="$JMETER_THREADS" -Jduration="$DURATION" \
    -Jjmeter.save.saveservice.print_field_names=true
  awk '{kb[$1]=$3; n[$1]=$2; cpu[$1]=$4+$5; s[$1]=$6}
       END { if (n["jmeter"] > 0) {
         printf "per user: JMeter uses %.1fx the memory of jmxr; per sample: %.1fx the CPU\n",
           (kb["jmeter"]/n["jmeter"])/(kb["jmxr"]/n["jmxr"]),
           (cpu["jmeter"]/s["jmeter"])/(cpu["jmxr"]/s["jmxr"]) } }' "$WORK/results"
else
  echo "JMeter 2.13 not installed (apt-get install jmeter jmeter-java): jmxr figures only"
fi
