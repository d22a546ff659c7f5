#!/usr/bin/env bash
# jmxr merge of 4 shard .jtl files totalling ROWS rows (default 10,000,000), then the
# dashboard of the merged file with -g; prints wall time and peak RSS of each
# (targets: merge < 15 s and < 200 MB), beside GNU sort merging the same files. On a
# shared machine the CPU time says more than the wall time. Usage: bench/merge.sh [ROWS]
set -euo pipefail
ROWS=${1:-10000000}
JMXR=${JMXR:-$(dirname "$0")/../target/release/jmxr}
WORK=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$WORK"' EXIT
python3 - "$WORK" "$ROWS" <<'PY'
import sys
work, rows = sys.argv[1], int(sys.argv[2])
header = "timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect\n"
per = rows // 4
for s in range(4):
    with open(f"{work}/s{s+1}.jtl", "w", buffering=1 << 20) as f:
        f.write(header)
        t = 1_700_000_000_000 + s
        lines = []
        for i in range(per):
            t += (i % 3)
            user = (i % 250) * 4 + s + 1
            lines.append(f"{t},{i % 97},label {i % 20},200,OK,Group 1-{user},text,true,,{1000 + i % 50},120,250,250,null,{i % 90},0,{i % 7}\n")
            if len(lines) == 100000:
                f.write("".join(lines)); lines.clear()
        f.write("".join(lines))
PY
measure() {
  local name=$1; shift
  /usr/bin/time -v "$@" > "$WORK/$name.out" 2> "$WORK/$name.time" || { cat "$WORK/$name.time"; exit 1; }
  local rss
  wall=$(grep "Elapsed (wall clock)" "$WORK/$name.time" | awk '{print $NF}')
  rss=$(grep "Maximum resident set size" "$WORK/$name.time" | awk '{print $NF}')
  cpu=$(awk '/User time|System time/ { s += $NF } END { printf "%.2f", s }' "$WORK/$name.time")
  echo "$name: wall $wall, CPU ${cpu} s (user+sys), peak RSS $((rss / 1024)) MB"
}
secs() { awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }' <<< "$1"; }
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
# Reference in the same run: GNU sort merging the same already-sorted files by timeStamp
# (no reorder window, no clock correction, no thread counts): what streaming costs here.
measure reference env LC_ALL=C sort -m -t, -k1,1n -o "$WORK/reference.jtl" "$WORK"/s1.jtl "$WORK"/s2.jtl "$WORK"/s3.jtl "$WORK"/s4.jtl
ref_wall=$wall
rm -f "$WORK/reference.jtl"
measure merge "$JMXR" merge "$WORK/merged.jtl" "$WORK"/s1.jtl "$WORK"/s2.jtl "$WORK"/s3.jtl "$WORK"/s4.jtl
echo "rows merged: $(($(wc -l < "$WORK/merged.jtl") - 1))"
echo "merge / sort -m: $(awk -v a="$(secs "$wall")" -v b="$(secs "$ref_wall")" 'BEGIN { printf "%.2f", a / b }')"
measure report "$JMXR" -g "$WORK/merged.jtl" -o "$WORK/report"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
