#!/usr/bin/env bash
# Side by side: runs real plans with jmxr and with JMeter 2.13 against the same local
# catch-all HTTP server, inside a network namespace that has only a loopback interface,
# and reports per plan the per-thread row differences and the request differences.
#
# For each plan:
#   1. a capped copy is made (bench/lib/side_by_side.py cap: THREADS users, LOOPS
#      iterations, short timers, no pacing elements);
#   2. the host names and ports its HTTP samplers name are listed; a hosts file maps every
#      name to 127.0.0.1;
#   3. in `unshare -n -m` (no network but lo, a private mount namespace) the hosts file is
#      bind-mounted over /etc/hosts, bench/lib/catchall_server.py listens on 127.0.0.1 on
#      every port (plain or TLS, sniffed) and logs every request byte for byte, and each
#      tool runs the plan in a folder of its own, with a fresh server log;
#   4. side_by_side.py compare prints row and request differences and a verdict.
# Two settings make the tools comparable: jmxr writes no sub-result rows (2.13 never does;
# 5.x does by default), and 2.13 parses pages with jsoup (its default parser, Lagarto, is
# missing from Debian's package and ends the thread at the first embedded resource).
# Nothing can leave the machine: the namespace has no route anywhere but 127.0.0.1.
#
# needs: root (unshare, mount), python3, openssl, ../shared/tools/jmeter213 and
#        apt-get install -y jmeter jmeter-http jmeter-java jmeter-tcp
# usage: bench/side_by_side.sh PLAN.jmx [PLAN.jmx ...]
#        THREADS=2 LOOPS=2 MAX_DELAY_MS=200 LIMIT=60 KEEP=folder bench/side_by_side.sh ...
#        (LIMIT: seconds each tool may run before it is stopped, as a plan may loop on a
#        condition forever; KEEP keeps every run's files, in KEEP/<plan name>/)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
ORACLE="$ROOT/../shared/tools/jmeter213/jmeter213"
HELPER="$ROOT/bench/lib/side_by_side.py"
SERVER="$ROOT/bench/lib/catchall_server.py"
JMXR="$ROOT/target/release/jmxr"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
[ $# -gt 0 ] || { echo "usage: $0 PLAN.jmx [PLAN.jmx ...]" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "$0: needs root for unshare and mount" >&2; exit 2; }

cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost \
  -keyout "$WORK/key.pem" -out "$WORK/cert.pem" 2>/dev/null

# Runs inside the namespace: $1 folder, $2 ports (comma-separated).
cat > "$WORK/inside.sh" <<'INSIDE'
set -u
folder="$1"; ports="$2"
ip link set lo up
mount --bind "$folder/hosts" /etc/hosts
for tool in jmxr jmeter; do
  mkdir -p "$folder/$tool"
  python3 "$SERVER" --ports "$ports" --log "$folder/$tool.requests.jsonl" \
    --cert "$WORK/cert.pem" --key "$WORK/key.pem" > "$folder/$tool.server.out" 2>&1 &
  server=$!
  for _ in $(seq 100); do grep -q ready "$folder/$tool.server.out" 2>/dev/null && break; sleep 0.1; done
  if [ "$tool" = jmxr ]; then
    (cd "$folder/jmxr" && timeout "$LIMIT" "$JMXR" -n -t "$folder/plan.jmx" -l "$folder/jmxr.csv" \
       --skip-unsupported -Jjmeter.save.saveservice.subresults=false > "$folder/jmxr.out" 2>&1)
  else
    (cd "$folder/jmeter" && timeout "$LIMIT" "$ORACLE" -n -t "$folder/plan.jmx" -l "$folder/jmeter.csv" \
       -Jjmeter.save.saveservice.print_field_names=true \
       -JhtmlParser.className=org.apache.jmeter.protocol.http.parser.JsoupBasedHtmlParser \
       > "$folder/jmeter.out" 2>&1)
  fi
  echo "$?" > "$folder/$tool.rc"
  kill "$server" 2>/dev/null; wait "$server" 2>/dev/null || true
done
exit 0
INSIDE

for plan in "$@"; do
  name="$(basename "$plan" .jmx)"
  folder="$WORK/$name"
  mkdir -p "$folder"
  echo "=== $name"
  if ! python3 "$HELPER" cap "$plan" "$folder/plan.jmx" 2> "$folder/cap.err"; then
    echo "cannot read the plan: $(tail -1 "$folder/cap.err")"; continue
  fi
  python3 "$HELPER" targets "$folder/plan.jmx" > "$folder/targets"
  hosts="$(sed -n 's/^hosts //p' "$folder/targets")"
  ports="$(sed -n 's/^ports //p' "$folder/targets" | tr ' ' ',')"
  { echo "127.0.0.1 localhost $(hostname) $hosts"; echo "::1 localhost"; } > "$folder/hosts"
  echo "hosts: ${hosts:-none}; ports: $ports"
  WORK="$WORK" SERVER="$SERVER" JMXR="$JMXR" ORACLE="$ORACLE" LIMIT="${LIMIT:-60}" \
    unshare -n -m --propagation private bash "$WORK/inside.sh" "$folder" "$ports"
  if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp -r "$folder" "$KEEP/"; fi
  if grep -q "Error in NonGUIDriver" "$folder/jmeter.out"; then
    echo "JMeter 2.13 cannot load it: $(grep -m1 -A8 "Error in NonGUIDriver" "$folder/jmeter.out" \
      | grep -m1 "^path\|Exception:" | cut -c1-200)"
    echo "verdict: not compared"
    continue
  fi
  for tool in jmxr jmeter; do
    case "$(cat "$folder/$tool.rc")" in 124) echo "$tool was stopped after ${LIMIT:-60} s";; esac
  done
  grep -m1 "cannot be run as written" "$folder/jmxr.out" | sed 's/^[a-z]*: /jmxr skipped what it cannot run: /' || true
  if [ "$(cat "$folder/jmxr.rc")" != 0 ]; then
    echo "jmxr exit code $(cat "$folder/jmxr.rc"): $(grep -v '^$' "$folder/jmxr.out" | head -3 | cut -c1-200)"
  fi
  python3 "$HELPER" compare "$folder" || echo "verdict: not compared (the comparison failed)"
done
