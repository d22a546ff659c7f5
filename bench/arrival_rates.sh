#!/usr/bin/env bash
# Open Model Thread Group rates: a Debug Sampler per arrival at RATES arrivals/s for
# DURATION seconds, with random (Poisson) and even arrivals. For each run: the arrivals
# planned (JMeter truncates rate × duration), the samples written, the achieved rate
# over the schedule against the target (ratio), and the standard deviation of the
# per-second counts (for random arrivals, the Poisson process alone gives √rate, shown
# beside it), plus jmxr's end-of-run line on late and dropped arrivals.
# Target: every run within 1 % of the target rate.
#
# usage: bench/arrival_rates.sh   (RATES="10 1000 20000" DURATION=60 MODES="random even")
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
RATES="${RATES:-10 1000 20000}"
DURATION="${DURATION:-60}"
MODES="${MODES:-random even}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
if [ -z "${JMXR:-}" ]; then
  JMXR="$ROOT/target/release/jmxr"
  cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml"
fi
PLAN="$ROOT/jmx-fixtures/bench/open_model_rate.jmx"

printf '%-7s %7s %9s %9s %10s %8s %9s %8s  %s\n' mode rate planned samples achieved ratio sd/s poisson "late / dropped"
for mode in $MODES; do
  for rate in $RATES; do
    rm -f "$WORK/out.jtl"
    out=$("$JMXR" -n -t "$PLAN" -l "$WORK/out.jtl" -Jrate="$rate" -Jduration="$DURATION" -Jarrivals="$mode" \
      -Jjmeter.save.saveservice.thread_counts=false)
    report=$(grep "Open Model Thread Group 'Open'" <<<"$out" | sed 's/.*started, //')
    python3 - "$WORK/out.jtl" "$rate" "$DURATION" "$mode" "$report" <<'PY'
import csv, math, sys
path, rate, duration, mode, report = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5]
with open(path, newline="") as f:
    rows = csv.reader(f)
    next(rows)
    stamps = [int(r[0]) for r in rows]
planned = int(rate * duration)
start = min(stamps)
# The schedule starts when the group does; its first arrival is at 0 (even) or within
# the first 1/rate seconds (random): whole seconds from the first sample.
bins = [0] * int(duration)
for t in stamps:
    i = (t - start) // 1000
    if 0 <= i < len(bins):
        bins[i] += 1
achieved = len(stamps) / duration
mean = sum(bins) / len(bins)
sd = math.sqrt(sum((b - mean) ** 2 for b in bins) / len(bins))
poisson = f"{math.sqrt(rate):.1f}" if mode == "random" else "-"
print(f"{mode:<7} {rate:>7.0f} {planned:>9} {len(stamps):>9} {achieved:>10.1f} {achieved / rate:>8.4f} {sd:>9.1f} {poisson:>8}  {report}")
PY
  done
done
