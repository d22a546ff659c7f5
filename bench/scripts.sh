#!/usr/bin/env bash
# Script cost, two measurements:
#
# (a) Per call of a JSR223 PreProcessor (Rhai) that reads two variables, concatenates
#     them and stores the result: CPU time (user+sys) of CALLS Flow Control Action steps
#     with the PreProcessor minus the same plan without it, divided by CALLS. Also the
#     instruction difference per call when `perf stat` can count instructions.
# (b) USERS virtual users running a script sampler that sets a variable, in a loop, for
#     DURATION seconds: samples per second of jmxr's JSR223 Sampler (Rhai) and, in the
#     same script run, JMeter 2.13's BeanShell Sampler and JSR223 JavaScript Sampler
#     (when ../shared/tools/jmeter213 and Debian's jmeter are installed).
#
# usage: bench/scripts.sh            (CALLS=200000 USERS=20 DURATION=10)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CALLS="${CALLS:-200000}"
USERS="${USERS:-20}"
DURATION="${DURATION:-10}"
JMXR="$ROOT/target/release/jmxr"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml"

cpu_seconds() { # plan → user+sys seconds of one run
  /usr/bin/time -f "%U %S" -o "$WORK/time" "$JMXR" -n -t "$1" -l "$WORK/pre.jtl" \
    -Jloops="$CALLS" >/dev/null 2>&1
  awk '{print $1 + $2}' "$WORK/time"
}

instructions() { # plan → instructions of one run, or empty when perf cannot count
  perf stat -x, -e instructions:u -o "$WORK/perf" "$JMXR" -n -t "$1" -l "$WORK/pre.jtl" \
    -Jloops="$CALLS" >/dev/null 2>&1 || return 0
  awk -F, '/instructions/ && $1 ~ /^[0-9]+$/ {print $1}' "$WORK/perf"
}

WITH="$ROOT/jmx-fixtures/bench/script_preprocessor.jmx"
WITHOUT="$ROOT/jmx-fixtures/bench/script_preprocessor_baseline.jmx"
best_with=999999; best_without=999999
for _ in 1 2 3; do
  t=$(cpu_seconds "$WITH"); best_with=$(echo "if ($t < $best_with) $t else $best_with" | bc -l)
  t=$(cpu_seconds "$WITHOUT"); best_without=$(echo "if ($t < $best_without) $t else $best_without" | bc -l)
done
printf "(a) PreProcessor: %d calls, best of 3: with %.2f s CPU, without %.2f s CPU → %.2f µs per call\n" \
  "$CALLS" "$best_with" "$best_without" "$(echo "($best_with - $best_without) * 1000000 / $CALLS" | bc -l)"
i_with=$(instructions "$WITH"); i_without=$(instructions "$WITHOUT")
if [ -n "$i_with" ] && [ -n "$i_without" ]; then
  printf "    instructions per call: %d\n" "$(( (i_with - i_without) / CALLS ))"
fi

PLAN="$ROOT/jmx-fixtures/bench/script_sampler.jmx"
rate() { # jtl → samples per second over DURATION
  local samples; samples=$(($(wc -l < "$1") - 1))
  echo "$samples $(echo "$samples / $DURATION" | bc -l)"
}
"$JMXR" -n -t "$PLAN" -l "$WORK/rhai.jtl" -Jrhai_users="$USERS" -Jduration="$DURATION" >/dev/null 2>&1
read -r n_rhai r_rhai <<<"$(rate "$WORK/rhai.jtl")"
printf "(b) jmxr JSR223 Sampler (Rhai), %d users, %d s: %d samples, %.0f samples/s\n" \
  "$USERS" "$DURATION" "$n_rhai" "$r_rhai"
"$JMXR" -n -t "$PLAN" -l "$WORK/rhai_bsh.jtl" -Jbsh_users="$USERS" -Jduration="$DURATION" >/dev/null 2>&1
read -r n_tr r_tr <<<"$(rate "$WORK/rhai_bsh.jtl")"
printf "    jmxr BeanShell Sampler (translated), %d users: %.0f samples/s\n" "$USERS" "$r_tr"

ORACLE="$ROOT/../shared/tools/jmeter213/jmeter213"
if [ -x /usr/bin/jmeter ] && [ -x "$ORACLE" ]; then
  for kind in bsh js; do
    "$ORACLE" -n -t "$PLAN" -l "$WORK/$kind.jtl" -J${kind}_users="$USERS" -Jduration="$DURATION" \
      -Jjmeter.save.saveservice.print_field_names=true >/dev/null 2>&1 || true
    read -r n r <<<"$(rate "$WORK/$kind.jtl")"
    printf "    JMeter 2.13 %s Sampler, %d users: %d samples, %.0f samples/s → jmxr is %.1fx\n" \
      "$([ $kind = bsh ] && echo BeanShell || echo 'JSR223 JavaScript')" "$USERS" "$n" "$r" \
      "$(echo "$r_rhai / ($r + 0.000001)" | bc -l)"
  done
else
  echo "    JMeter 2.13 not installed (apt-get install jmeter jmeter-java): jmxr figures only"
fi
