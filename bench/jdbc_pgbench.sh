#!/usr/bin/env bash
# JDBC throughput: USERS users (20) running a prepared SELECT by primary key against a
# private PostgreSQL on 127.0.0.1 for DURATION seconds (30), writing the .jtl, side by
# side in one run with
#   - pgbench (PostgreSQL's C client), the same prepared query, USERS clients, -M prepared;
#   - the minimal tokio-postgres loop of bench/jdbc_bench.rs, USERS connections (the
#     plan's pool size).
# Prints queries per second, the client's CPU seconds per 100k queries, and jmxr's ratio
# to each (targets: >= 0.7x pgbench, >= 0.9x the Rust loop). The server shares the
# machine's CPUs with the client, as it would on one load generator.
#
# usage: bench/jdbc_pgbench.sh     (USERS=20 DURATION=30 ROWS=100000; JMXR=binary)
# Needs Debian's postgresql package (initdb, postgres, psql, pgbench).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
USERS="${USERS:-20}"
DURATION="${DURATION:-30}"
ROWS="${ROWS:-100000}"
WORK="$(mktemp -d)"
. "$ROOT/bench/lib/private_postgres.sh"
stop() { stop_private_postgres "$WORK"; rm -rf "$WORK"; }
trap stop EXIT

build_jdbc_clients

start_private_postgres "$WORK" "$ROWS"

# "<queries> <cpu seconds>" lines from each client, measured with /usr/bin/time.
printf '\\set id random(1, %s)\nselect name from bench_items where id = :id;\n' "$ROWS" > "$WORK/select.sql"
/usr/bin/time -f "%U %S" -o "$WORK/pgbench.time" pgbench -n -M prepared -c "$USERS" \
  -j 2 -T "$DURATION" -f "$WORK/select.sql" -h 127.0.0.1 -p "$PORT" -U bench bench > "$WORK/pgbench.out" 2>&1
pg_queries=$(awk '/number of transactions actually processed/ {split($0, a, ": "); split(a[2], b, "/"); print b[1]}' "$WORK/pgbench.out")
pg_qps=$(awk '/^tps = / {print $3; exit}' "$WORK/pgbench.out")

/usr/bin/time -f "%U %S" -o "$WORK/rust.time" "$ROOT/target/release/examples/jdbc_bench" \
  "host=127.0.0.1 port=$PORT user=bench password=secret dbname=bench" "$USERS" "$DURATION" "$ROWS" > "$WORK/rust.out"
read -r rust_queries _ rust_qps < "$WORK/rust.out"

(cd "$WORK" && /usr/bin/time -f "%U %S %e" -o "$WORK/jmxr.time" "$JMXR" -n \
  -t "$ROOT/jmx-fixtures/bench/jdbc_select.jmx" -l "$WORK/out.jtl" \
  -Jdb.url="jdbc:postgresql://127.0.0.1:$PORT/bench" -Jdb.user=bench -Jdb.password=secret \
  -Jthreads="$USERS" -Jduration="$DURATION" -Jrows="$ROWS" > "$WORK/jmxr.out" 2>&1)
jmxr_queries=$(($(wc -l < "$WORK/out.jtl") - 1))
jmxr_errors=$(awk -F, 'NR > 1 && $8 != "true"' "$WORK/out.jtl" | wc -l)
read -r _ _ jmxr_wall < "$WORK/jmxr.time"
jmxr_qps=$(echo "$jmxr_queries / $DURATION" | bc -l)

cpu_per_100k() { read -r user sys _ < "$1"; echo "($user + $sys) * 100000 / $2" | bc -l; }
printf "%-10s %10s %12s %20s\n" client queries "queries/s" "CPU s per 100k"
printf "%-10s %10s %12.0f %20.2f\n" pgbench "$pg_queries" "$pg_qps" "$(cpu_per_100k "$WORK/pgbench.time" "$pg_queries")"
printf "%-10s %10s %12.0f %20.2f\n" rust-loop "$rust_queries" "$rust_qps" "$(cpu_per_100k "$WORK/rust.time" "$rust_queries")"
printf "%-10s %10s %12.0f %20.2f\n" jmxr "$jmxr_queries" "$jmxr_qps" "$(cpu_per_100k "$WORK/jmxr.time" "$jmxr_queries")"
printf "jmxr errors: %s (wall %s s); jmxr/pgbench = %.2f (target >= 0.7); jmxr/rust-loop = %.2f (target >= 0.9)\n" \
  "$jmxr_errors" "$jmxr_wall" "$(echo "$jmxr_qps / $pg_qps" | bc -l)" "$(echo "$jmxr_qps / $rust_qps" | bc -l)"
