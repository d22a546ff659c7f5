#!/usr/bin/env bash
# jmxr merge of 4 shard .jtl files totalling ROWS rows (default 10,000,000), then the
# dashboard of the merged file with -g; prints wall time and peak RSS of each
# (targets: merge < 15 s and < 200 MB). Usage: bench/merge.sh [ROWS]
set -euo pipefail
ROWS=${1:-10000000}
JMXR=${JMXR:-$(dirname "$0")/../target/release/jmxr}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
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
  local wall rss
  wall=$(grep "Elapsed (wall clock)" "$WORK/$name.time" | awk '{print $NF}')
  rss=$(grep "Maximum resident set size" "$WORK/$name.time" | awk '{print $NF}')
  echo "$name: wall $wall, peak RSS $((rss / 1024)) MB"
}
measure merge "$JMXR" merge "$WORK/merged.jtl" "$WORK"/s1.jtl "$WORK"/s2.jtl "$WORK"/s3.jtl "$WORK"/s4.jtl
echo "rows merged: $(($(wc -l < "$WORK/merged.jtl") - 1))"
measure report "$JMXR" -g "$WORK/merged.jtl" -o "$WORK/report"
