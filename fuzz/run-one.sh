#!/bin/sh
# Runs one target for 20 minutes with the limits of docs/fuzzing.md; the libFuzzer
# output and the CPU time go to fuzz/logs/<target>-<start>.log.
set -u
target=$1
seconds=${2:-1200}
cd "$(dirname "$0")/.." || exit 1
log=fuzz/logs/$target-$(date -u +%H%M%S).log
echo "start $(date -u +%FT%TZ) $target $seconds s" > "$log"
/usr/bin/time -v nice -n 10 cargo +nightly fuzz run -s none "$target" -- \
    -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 >> "$log" 2>&1
echo "exit $? end $(date -u +%FT%TZ)" >> "$log"
