#!/usr/bin/env bash
# Keep-alive GET throughput of a 1 KiB file from a local nginx (one worker) on
# 127.0.0.1: wrk -t1 -c50, then jmxr with 50 virtual users writing the CSV .jtl, then
# (when installed) JMeter 2.13 with the same plan, one after the other, DURATION seconds
# each. Prints requests/s and CPU seconds per 100k requests side by side.
#
# needs: apt-get install -y nginx-light wrk   (JMeter 2.13: apt-get install -y jmeter jmeter-http)
# jmxr runs its users on JMXR_WORKERS threads (default 1, as wrk's -t1): nginx shares the
# machine, and a second worker thread would compete with it for the same cores rather
# than add throughput. JMXR_WORKERS=0 leaves jmxr's default (one thread per core).
#
# Runs ROUNDS alternating rounds of wrk and jmxr and prints each round's ratios and their
# medians: requests per second, and requests per CPU second (user + system), the cost
# figure that does not depend on how busy the machine is.
#
# usage: bench/http_throughput.sh   (USERS=50 DURATION=15 ROUNDS=3 PORT=8089 JMXR_WORKERS=1 SKIP_JMETER=)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
. "$ROOT/bench/lib/local_nginx.sh"
USERS="${USERS:-50}"
DURATION="${DURATION:-15}"
ROUNDS="${ROUNDS:-3}"
PORT="${PORT:-8089}"
JMXR_WORKERS="${JMXR_WORKERS:-1}"
WORKER_OPTION=()
[ "$JMXR_WORKERS" != 0 ] && WORKER_OPTION=("-Jjmxr.worker_threads=$JMXR_WORKERS")
PLAN="$ROOT/jmx-fixtures/bench/http_get.jmx"
WORK="$(mktemp -d)"
NGINX_PID=""
cleanup() { [ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml"

start_local_nginx "$WORK" "$PORT"

cpu_of() { # time file -> cpu seconds
  read -r user sys wall < "$1"; echo "$user + $sys" | bc -l
}

report() { # name requests cpu-seconds round
  local rps per100k per_cpu
  rps=$(echo "$2 / $DURATION" | bc -l)
  per100k=$(echo "$3 * 100000 / $2" | bc -l)
  per_cpu=$(echo "$2 / $3" | bc -l)
  printf "round %s %-8s %9.0f req/s  %8.0f req per CPU s  %6.2f CPU s per 100k  (%s requests, %.2f CPU s)\n" \
    "$4" "$1" "$rps" "$per_cpu" "$per100k" "$2" "$3"
  echo "$4 $1 $rps $per_cpu" >> "$WORK/rates"
}

run_wrk() { # round
  /usr/bin/time -f "%U %S %e" -o "$WORK/wrk.time" \
    wrk -t1 -c"$USERS" -d"${DURATION}s" "http://127.0.0.1:$PORT/1k.bin" > "$WORK/wrk.out"
  report wrk "$(awk '/requests in/ {print $1}' "$WORK/wrk.out")" "$(cpu_of "$WORK/wrk.time")" "$1"
}

run_jmxr() { # round
  rm -f "$WORK/jmxr.jtl"
  /usr/bin/time -f "%U %S %e" -o "$WORK/jmxr.time" \
    "$ROOT/target/release/jmxr" -n -t "$PLAN" -l "$WORK/jmxr.jtl" \
    -Jthreads="$USERS" -Jduration="$DURATION" -Jport="$PORT" "${WORKER_OPTION[@]}" > "$WORK/jmxr.out"
  local requests errors
  requests=$(($(wc -l < "$WORK/jmxr.jtl") - 1))
  errors=$(tail -n +2 "$WORK/jmxr.jtl" | grep -vc ",200,OK," || true)
  report jmxr "$requests" "$(cpu_of "$WORK/jmxr.time")" "$1"
  [ "$errors" = 0 ] || echo "round $1: $errors jmxr samples are not 200 OK"
}

# Alternating rounds (wrk first in odd rounds, jmxr first in even ones), so that a drift
# of the shared machine's speed weighs on both alike.
for round in $(seq 1 "$ROUNDS"); do
  if [ $((round % 2)) = 1 ]; then run_wrk "$round"; run_jmxr "$round"
  else run_jmxr "$round"; run_wrk "$round"; fi
done

ORACLE="$ROOT/../shared/tools/jmeter213/jmeter213"
if [ -z "${SKIP_JMETER:-}" ] && [ -x /usr/bin/jmeter ] && [ -x "$ORACLE" ]; then
  /usr/bin/time -f "%U %S %e" -o "$WORK/jmeter.time" \
    "$ORACLE" -n -t "$PLAN" -l "$WORK/jmeter.jtl" \
    -Jthreads="$USERS" -Jduration="$DURATION" -Jport="$PORT" > "$WORK/jmeter.out" 2>&1
  report jmeter "$(wc -l < "$WORK/jmeter.jtl")" "$(cpu_of "$WORK/jmeter.time")" 1
else
  echo "JMeter 2.13 not run (not installed, or SKIP_JMETER set): wrk and jmxr figures only"
fi
# Per round: jmxr / wrk in requests per second and in requests per CPU second; then the
# medians over the rounds.
awk '
  { rate[$1, $2] = $3; per_cpu[$1, $2] = $4; if ($1 > rounds) rounds = $1 }
  function median(a, n,   i, j, t) {
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  END {
    for (r = 1; r <= rounds; r++) {
      if (rate[r, "wrk"] == 0) continue
      n++; speed[n] = rate[r, "jmxr"] / rate[r, "wrk"]; cost[n] = per_cpu[r, "jmxr"] / per_cpu[r, "wrk"]
      printf "round %d: jmxr / wrk = %.2f in req/s, %.2f in req per CPU s\n", r, speed[n], cost[n]
    }
    printf "median of %d rounds: jmxr / wrk = %.2f in req/s, %.2f in req per CPU s\n", n, median(speed, n), median(cost, n)
    if (rate[1, "jmeter"] > 0) printf "jmxr / JMeter 2.13 (round 1) = %.2f in req/s\n", rate[1, "jmxr"] / rate[1, "jmeter"]
  }' "$WORK/rates"
