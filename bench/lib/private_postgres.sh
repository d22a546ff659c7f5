# Sourced by the JDBC benchmarks: a private PostgreSQL on 127.0.0.1 (temporary data
# folder, fsync off, never a system service) with database `bench` (user bench, password
# secret) and a table bench_items of ROWS rows (id primary key, name). Needs Debian's
# postgresql package.
#
# start_private_postgres WORK ROWS   sets PORT and exports PGPASSWORD;
# stop_private_postgres WORK         stops it (the caller removes WORK);
# build_jdbc_clients                 sets JMXR and builds the reference Rust loop (needs ROOT).
PG_BIN="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
PG_AS=()
# PostgreSQL refuses to run as root: as root the server runs as the postgres user.
if [ "$(id -u)" = 0 ]; then PG_AS=(runuser -u postgres --); fi

start_private_postgres() {
  local work="$1" rows="$2"
  chmod 755 "$work"
  if [ ${#PG_AS[@]} -gt 0 ]; then chown postgres "$work"; fi
  PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  echo secret > "$work/pw"
  if [ ${#PG_AS[@]} -gt 0 ]; then chown postgres "$work/pw"; fi
  "${PG_AS[@]}" "$PG_BIN/initdb" -D "$work/data" -U bench -A scram-sha-256 --pwfile="$work/pw" \
    -E UTF8 --locale=C --no-sync >/dev/null
  "${PG_AS[@]}" "$PG_BIN/pg_ctl" -D "$work/data" -l "$work/server.log" -w start -o \
    "-p $PORT -c listen_addresses=127.0.0.1 -c unix_socket_directories=$work -c fsync=off -c max_connections=100" >/dev/null
  export PGPASSWORD=secret
  psql -q -h 127.0.0.1 -p "$PORT" -U bench -d postgres -c "create database bench"
  psql -q -h 127.0.0.1 -p "$PORT" -U bench -d bench \
    -c "create table bench_items (id int primary key, name text)" \
    -c "insert into bench_items select i, 'item ' || i from generate_series(1, $rows) i" \
    -c "vacuum analyze bench_items"
}

stop_private_postgres() {
  "${PG_AS[@]}" "$PG_BIN/pg_ctl" -D "$1/data" stop -m fast >/dev/null 2>&1 || true
}

# JMXR=path measures that binary as it was built (a copy kept while the sources change)
# instead of building target/release/jmxr; the reference loop is then built only if it
# is missing (building it builds the library too).
build_jdbc_clients() {
  if [ -n "${JMXR:-}" ]; then
    [ -x "$ROOT/target/release/examples/jdbc_bench" ] ||
      cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml" --example jdbc_bench
  else
    cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml" --bin jmxr --example jdbc_bench
    JMXR="$ROOT/target/release/jmxr"
  fi
}
