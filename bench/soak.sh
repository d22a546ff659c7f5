#!/usr/bin/env bash
# Soak: an hour at 2,000 requests/s against a local nginx on 127.0.0.1. Half the users
# keep their connections alive, the other half open a new connection for every request
# (use_keepalive off); a Cookie Manager and a Cache Manager are on and the server sets a
# new cookie value and asks for revalidation on every answer, so the jar, the cache's
# validators (If-None-Match → 304) and the connection pool all work the whole time.
#
# Every minute it prints jmxr's resident memory, open file descriptors and samples so
# far (see below). At the end: growth of RSS and fds between minute WARMUP and the last minute
# (target: under 5 %), the .jtl's rows against the requests nginx logged, and the
# samples that were neither 200 nor 304. Exits 1 when a target is missed.
#
# needs: apt-get install -y nginx-light
# usage: bench/soak.sh        (DURATION=3600 WARMUP=10 RATE=2000 USERS=10 PORT=8093)
#        USERS is per half; RATE is the total, split evenly between the halves.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DURATION="${DURATION:-3600}"
WARMUP="${WARMUP:-10}"
RATE="${RATE:-2000}"
USERS="${USERS:-10}"
PORT="${PORT:-8093}"
PLAN="$ROOT/jmx-fixtures/bench/soak.jmx"
WORK="$(mktemp -d)"
NGINX_PID=""
JMXR_PID=""
cleanup() {
  [ -n "$JMXR_PID" ] && kill "$JMXR_PID" 2>/dev/null
  [ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
if [ -z "${JMXR:-}" ]; then
  JMXR="$ROOT/target/release/jmxr"
  cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml"
fi

. "$ROOT/bench/lib/local_nginx.sh"
start_local_nginx "$WORK" "$PORT" \
  "log_format status '\$status'; access_log $WORK/logs/access.log status;" \
  "location = /page { add_header Set-Cookie \"sid=\$request_id; Path=/\"; add_header Cache-Control no-cache; }"
head -c 2048 /dev/zero | tr '\0' 'x' > "$WORK/www/page"
chmod 644 "$WORK/www/page"

PER_GROUP_PER_MINUTE=$((RATE * 60 / 2))
"$JMXR" -n -t "$PLAN" -l "$WORK/soak.jtl" -Jport="$PORT" -Jusers="$USERS" \
  -Jduration="$DURATION" -Jper_group_per_minute="$PER_GROUP_PER_MINUTE" > "$WORK/jmxr.out" 2>&1 &
JMXR_PID=$!

# Resident memory and descriptors are read every 5 s; a minute's line gives their
# medians (a new-connection user holds a socket only while its request is in flight, so
# one reading would say more about timing than about growth) and the most descriptors.
printf '%6s %10s %6s %8s %10s %9s\n' minute rss_kb fds max_fds samples per_s
: > "$WORK/minutes"
previous=0
minute=0
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
while kill -0 "$JMXR_PID" 2>/dev/null; do
  : > "$WORK/readings"
  for _ in $(seq 12); do
    sleep 5 &
    wait $! || true
    kill -0 "$JMXR_PID" 2>/dev/null || break
    rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$JMXR_PID/status" 2>/dev/null || echo 0)
    fds=$(ls "/proc/$JMXR_PID/fd" 2>/dev/null | wc -l)
    echo "$rss $fds" >> "$WORK/readings"
  done
  kill -0 "$JMXR_PID" 2>/dev/null || break
  minute=$((minute + 1))
  rss=$(cut -d' ' -f1 "$WORK/readings" | median)
  fds=$(cut -d' ' -f2 "$WORK/readings" | median)
  max_fds=$(cut -d' ' -f2 "$WORK/readings" | sort -n | tail -1)
  samples=$(($(wc -l < "$WORK/soak.jtl") - 1))
  printf '%6d %10d %6d %8d %10d %9.0f\n' "$minute" "$rss" "$fds" "$max_fds" "$samples" \
    "$(echo "($samples - $previous) / 60" | bc -l)"
  echo "$minute $rss $fds" >> "$WORK/minutes"
  # The memory map at the end of warm-up and at the latest minute: the end says which
  # mappings grew, if memory did.
  if [ "$minute" -eq "$WARMUP" ]; then
    cp "/proc/$JMXR_PID/smaps" "$WORK/smaps.warmup" 2>/dev/null || true
  fi
  cp "/proc/$JMXR_PID/smaps" "$WORK/smaps.last" 2>/dev/null || true
  previous=$samples
done
wait "$JMXR_PID" && status=0 || status=$?
JMXR_PID=""
sleep 1
kill "$NGINX_PID" 2>/dev/null && wait "$NGINX_PID" 2>/dev/null || true
NGINX_PID=""
grep -E '^summary =' "$WORK/jmxr.out" | tail -1

python3 - "$WORK/minutes" "$WARMUP" "$WORK/soak.jtl" "$WORK/logs/access.log" "$status" "$WORK/smaps.warmup" "$WORK/smaps.last" <<'PY'
import csv, os, sys
minutes_path, warmup, jtl, access, status = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5])

def mappings(path):
    """Resident kB and anonymous huge-page kB per mapping (start address and name)."""
    found, key = {}, None
    if not os.path.exists(path):
        return found
    for line in open(path):
        fields = line.split()
        if "-" in fields[0] and not fields[0].endswith(":"):
            key = (fields[0].split("-")[0], fields[5] if len(fields) > 5 else "[anon]")
            found[key] = [0, 0]
        elif fields[0] == "Rss:":
            found[key][0] = int(fields[1])
        elif fields[0] == "AnonHugePages:":
            found[key][1] = int(fields[1])
    return found

before, after = mappings(sys.argv[6]), mappings(sys.argv[7])
grown = sorted(((after[k][0] - before.get(k, [0, 0])[0], k) for k in after), reverse=True)
for delta, (start, name) in grown[:5]:
    if delta > 0:
        print(f"mapping {start} {name}: +{delta} kB resident since minute {warmup} "
              f"(now {after[(start, name)][0]} kB, {after[(start, name)][1]} kB in huge pages)")
minutes = [tuple(map(int, line.split())) for line in open(minutes_path)]
ok = status == 0
print(f"jmxr exit code: {status}")
if len(minutes) > warmup:
    at_warmup = next(m for m in minutes if m[0] == warmup)
    last = minutes[-1]
    for name, i in (("RSS", 1), ("fds", 2)):
        growth = (last[i] - at_warmup[i]) / at_warmup[i] * 100
        print(f"{name}: minute {warmup} {at_warmup[i]}, minute {last[0]} {last[i]}, growth {growth:+.1f} % (target under 5 %)")
        ok &= growth < 5
else:
    print(f"too short to judge growth after minute {warmup}")
with open(jtl, newline="") as f:
    rows = list(csv.DictReader(f))
codes = {}
for r in rows:
    codes[r["responseCode"]] = codes.get(r["responseCode"], 0) + 1
logged = sum(1 for _ in open(access))
bad = sum(n for c, n in codes.items() if c not in ("200", "304"))
print(f"samples in the .jtl: {len(rows)}, requests nginx logged: {logged}, codes: {dict(sorted(codes.items()))}")
ok &= len(rows) == logged and bad == 0
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
PY
