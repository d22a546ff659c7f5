#!/usr/bin/env bash
# JDBC throughput: USERS users (20) running a prepared SELECT by primary key against a
# private PostgreSQL on 127.0.0.1 for DURATION seconds (30), writing the .jtl, side by
# side in one run with
#   - pgbench (PostgreSQL's C client), the same prepared query, USERS clients, -M prepared;
#   - the minimal tokio-postgres loop of bench/jdbc_bench.rs, USERS connections (the
#     plan's pool size), on tokio's default runtime;
#   - the same loop with its workers polling the sockets after every task, as jmxr's
#     runtime does by default (jmxr.event_interval=1): what the runtime setting alone
#     gives, for information.
# Prints queries per second, the client's CPU seconds per 100k queries, and jmxr's ratio
# to each (targets: >= 0.7x pgbench, >= 0.9x the Rust loop). The server shares the
# machine's CPUs with the client, as it would on one load generator.
#
# The rate of one client moves by 10 % and more from one run to the next on a shared
# machine, so the three run in ROUNDS rounds (3), each round in another order, and the
# ratios are given per round and as medians over the rounds.
#
# usage: bench/jdbc_pgbench.sh     (USERS=20 DURATION=30 ROWS=100000 ROUNDS=3; JMXR=binary)
# Needs Debian's postgresql package (initdb, postgres, psql, pgbench).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
USERS="${USERS:-20}"
DURATION="${DURATION:-30}"
ROWS="${ROWS:-100000}"
ROUNDS="${ROUNDS:-3}"
WORK="$(mktemp -d)"
. "$ROOT/bench/lib/private_postgres.sh"
stop() { stop_private_postgres "$WORK"; rm -rf "$WORK"; }
trap stop EXIT

build_jdbc_clients

start_private_postgres "$WORK" "$ROWS"

# The pgbench script: the plan's query with a random id, as its __Random gives.
printf '\\set id random(1, %s)\nselect name from bench_items where id = :id;\n' "$ROWS" > "$WORK/select.sql"
cpu_per_100k() { read -r user sys _ < "$1"; echo "($user + $sys) * 100000 / $2" | bc -l; }
report() { # round client queries queries/s time-file
  printf "round %s %-10s %10s %12.0f %20.2f\n" "$1" "$2" "$3" "$4" "$(cpu_per_100k "$5" "$3")"
  echo "$1 $2 $4" >> "$WORK/rates"
}

run_pgbench() { # round
  /usr/bin/time -f "%U %S" -o "$WORK/pgbench.time" pgbench -n -M prepared -c "$USERS" \
    -j 2 -T "$DURATION" -f "$WORK/select.sql" -h 127.0.0.1 -p "$PORT" -U bench bench > "$WORK/pgbench.out" 2>&1
  report "$1" pgbench \
    "$(awk '/number of transactions actually processed/ {split($0, a, ": "); split(a[2], b, "/"); print b[1]}' "$WORK/pgbench.out")" \
    "$(awk '/^tps = / {print $3; exit}' "$WORK/pgbench.out")" "$WORK/pgbench.time"
}

run_rust_loop() { # round [event interval]
  local name=rust-loop
  [ -n "${2:-}" ] && name=rust-loop-ev$2
  /usr/bin/time -f "%U %S" -o "$WORK/rust.time" "$ROOT/target/release/examples/jdbc_bench" \
    "host=127.0.0.1 port=$PORT user=bench password=secret dbname=bench" "$USERS" "$DURATION" "$ROWS" ${2:-} > "$WORK/rust.out"
  local queries qps
  read -r queries _ qps < "$WORK/rust.out"
  report "$1" "$name" "$queries" "$qps" "$WORK/rust.time"
}

run_jmxr() { # round
  rm -f "$WORK/out.jtl"
  (cd "$WORK" && /usr/bin/time -f "%U %S %e" -o "$WORK/jmxr.time" "$JMXR" -n \
    -t "$ROOT/jmx-fixtures/bench/jdbc_select.jmx" -l "$WORK/out.jtl" \
    -Jdb.url="jdbc:postgresql://127.0.0.1:$PORT/bench" -Jdb.user=bench -Jdb.password=secret \
    -Jthreads="$USERS" -Jduration="$DURATION" -Jrows="$ROWS" > "$WORK/jmxr.out" 2>&1)
  local queries errors wall
  queries=$(($(wc -l < "$WORK/out.jtl") - 1))
  errors=$(awk -F, 'NR > 1 && $8 != "true"' "$WORK/out.jtl" | wc -l)
  read -r _ _ wall < "$WORK/jmxr.time"
  report "$1" jmxr "$queries" "$(echo "$queries / $DURATION" | bc -l)" "$WORK/jmxr.time"
  [ "$errors" = 0 ] || echo "round $1: $errors jmxr samples failed"
  echo "round $1: jmxr wall $wall s"
}

printf "%-8s %-10s %10s %12s %20s\n" "" client queries "queries/s" "CPU s per 100k"
# Each round in another order, so that a drift of the shared machine's speed weighs on
# all three alike.
for round in $(seq 1 "$ROUNDS"); do
  case $((round % 3)) in
    1) run_pgbench "$round"; run_rust_loop "$round"; run_jmxr "$round"; run_rust_loop "$round" 1 ;;
    2) run_jmxr "$round"; run_rust_loop "$round" 1; run_pgbench "$round"; run_rust_loop "$round" ;;
    0) run_rust_loop "$round" 1; run_rust_loop "$round"; run_jmxr "$round"; run_pgbench "$round" ;;
  esac
done

awk '
  { rate[$1, $2] = $3; if ($1 > rounds) rounds = $1 }
  function median(a, n,   i, j, t) {
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  END {
    for (r = 1; r <= rounds; r++) {
      n++; pg[n] = rate[r, "jmxr"] / rate[r, "pgbench"]; loop[n] = rate[r, "jmxr"] / rate[r, "rust-loop"]
      ev[n] = rate[r, "jmxr"] / rate[r, "rust-loop-ev1"]
      printf "round %d: jmxr/pgbench = %.2f, jmxr/rust-loop = %.2f, jmxr/rust-loop-ev1 = %.2f\n", r, pg[n], loop[n], ev[n]
    }
    printf "median of %d rounds: jmxr/pgbench = %.2f (target >= 0.7); jmxr/rust-loop = %.2f (target >= 0.9); jmxr/rust-loop-ev1 = %.2f\n",
      n, median(pg, n), median(loop, n), median(ev, n)
  }' "$WORK/rates"
