#!/usr/bin/env bash
# Dashboard generation speed and memory: writes a ROWS-row CSV .jtl (20 labels, 1 % errors,
# 10 minutes of timestamps, JMeter 5.x default header) and times `jmxr -g FILE -o DIR`,
# printing wall time and peak RSS. Targets: 1,000,000 rows < 5 s and < 300 MB;
# 10,000,000 rows < 50 s with the same memory bound.
#
# usage: bench/report.sh                (ROWS=1000000)
#        ROWS=10000000 bench/report.sh
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
ROWS="${ROWS:-1000000}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml"

awk -v rows="$ROWS" 'BEGIN {
  srand(42);
  print "timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect";
  start = 1700000000000; span = 600000;
  for (i = 0; i < rows; i++) {
    ts = sprintf("%.0f", start + int(i * span / rows));
    label = "Request " int(rand() * 20);
    elapsed = int(20 + rand() * rand() * 2000);
    thread = 1 + int(rand() * 50);
    if (rand() < 0.01) {
      print ts "," elapsed "," label ",500,Internal Server Error,Users 1-" thread ",text,false,,512,120,50,50,http://example.test/x," int(elapsed / 2) ",0," int(rand() * 5);
    } else {
      print ts "," elapsed "," label ",200,OK,Users 1-" thread ",text,true,,2048,120,50,50,http://example.test/x," int(elapsed / 2) ",0," int(rand() * 5);
    }
  }
}' > "$WORK/big.jtl"

echo "input: $ROWS rows, $(du -h "$WORK/big.jtl" | cut -f1)"
/usr/bin/time -f "%M %e %U %S" -o "$WORK/time" "$ROOT/target/release/jmxr" -g "$WORK/big.jtl" -o "$WORK/report"
read -r rss_kb wall user sys < "$WORK/time"
printf "jmxr -g: wall=%s s  cpu=%.2f s  peak_rss=%.1f MB\n" "$wall" "$(echo "$user+$sys" | bc -l)" "$(echo "$rss_kb/1024" | bc -l)"
test -f "$WORK/report/index.html" && test -f "$WORK/report/statistics.json"
