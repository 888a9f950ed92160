#!/usr/bin/env bash
# Starts the servers the shared-backend tests run against: a PostgreSQL
# cluster and a Redis server, both on loopback ports of their own, with their
# own data directories, beside (never instead of) any system instance.
#
#   eval "$(.ci/services.sh)"      # then: go test -race ./storage/postgres/...
#
# Idempotent: installs postgresql and redis-server (and gcc, chromium and
# fonts-noto-cjk, which the race detector and the browser tests need) with apt when missing
# (running `apt-get update` first only when the package lists are empty or
# the install fails), creates the cluster, role and database when missing,
# starts what is not running. Progress goes to stderr; stdout carries only the
# `export NEWSCRAWL_TEST_POSTGRES=...` and `export NEWSCRAWL_TEST_REDIS=...`
# lines. Run it as root (CI) or as a user who can run initdb and redis-server.
#
# Settings (environment):
#   NEWSCRAWL_SERVICES_DIR  data, sockets and logs (default ${TMPDIR:-/tmp}/newscrawl-services)
#   NEWSCRAWL_PG_PORT       PostgreSQL port on 127.0.0.1 (default 55432)
#   NEWSCRAWL_REDIS_PORT    Redis port on 127.0.0.1 (default 56379)
#   --stop                  stops both servers (the data directory stays)
set -euo pipefail

base="${NEWSCRAWL_SERVICES_DIR:-${TMPDIR:-/tmp}/newscrawl-services}"
pg_port="${NEWSCRAWL_PG_PORT:-55432}"
redis_port="${NEWSCRAWL_REDIS_PORT:-56379}"
pg_data="$base/pg/data"
pg_sock="$base/pg/sock"
redis_dir="$base/redis"
db=newscrawl
role=newscrawl
password=newscrawl # loopback-only test server

log() { echo "services: $*" >&2; }
die() { log "$*"; exit 1; }

# pg_bin prints the bin directory of the newest installed PostgreSQL server.
pg_bin() {
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  [ -n "$d" ] && [ -x "$d/initdb" ] && echo "$d"
}

# as_pg runs a command as the postgres user when we are root (initdb and
# postgres refuse to run as root), else as ourselves.
as_pg() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

install_missing() {
  local need=()
  pg_bin >/dev/null || need+=(postgresql)
  command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
  # Not servers, but the rest of what the tests need: gcc for the race
  # detector, Chromium and a CJK font for the browser tests of serve/report.
  command -v gcc >/dev/null 2>&1 || need+=(gcc)
  command -v chromium >/dev/null 2>&1 || need+=(chromium)
  [ -d /usr/share/fonts/opentype/noto ] || need+=(fonts-noto-cjk)
  [ ${#need[@]} -eq 0 ] && return 0
  [ "$(id -u)" = 0 ] || die "missing ${need[*]} and not root: install them with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  if ! ls /var/lib/apt/lists/*_Packages* >/dev/null 2>&1; then
    log "apt-get update (package lists are empty)"
    apt-get update -qq -o DPkg::Lock::Timeout=600 >&2
  fi
  log "apt-get install ${need[*]}"
  if ! apt-get install -y -qq -o DPkg::Lock::Timeout=600 "${need[@]}" >&2; then
    log "install failed; apt-get update and one more try"
    apt-get update -qq -o DPkg::Lock::Timeout=600 >&2
    apt-get install -y -qq -o DPkg::Lock::Timeout=600 "${need[@]}" >&2
  fi
}

stop_all() {
  local bin
  if bin=$(pg_bin) && [ -f "$pg_data/PG_VERSION" ]; then
    as_pg "$bin/pg_ctl" -D "$pg_data" -m fast stop >&2 || true
  fi
  if [ -f "$redis_dir/redis.pid" ]; then
    kill "$(cat "$redis_dir/redis.pid")" 2>/dev/null || true
  fi
  log "stopped"
}

start_postgres() {
  local bin
  bin=$(pg_bin) || die "no PostgreSQL server binaries under /usr/lib/postgresql"
  mkdir -p "$pg_data" "$pg_sock"
  if [ "$(id -u)" = 0 ]; then
    chown -R postgres: "$base/pg"
  fi
  chmod 700 "$pg_data"
  if [ ! -f "$pg_data/PG_VERSION" ]; then
    log "initdb $pg_data ($("$bin/postgres" --version))"
    as_pg "$bin/initdb" -D "$pg_data" -U postgres -E UTF8 --locale=C.UTF-8 \
      --auth-local=peer --auth-host=scram-sha-256 >"$base/pg/initdb.log" 2>&1 ||
      { cat "$base/pg/initdb.log" >&2; die "initdb failed"; }
  fi
  if as_pg "$bin/pg_ctl" -D "$pg_data" status >/dev/null 2>&1; then
    log "postgres already running in $pg_data"
  else
    # A test server: durability is not needed, speed on a loaded CI machine is.
    log "starting postgres on 127.0.0.1:$pg_port"
    as_pg "$bin/pg_ctl" -D "$pg_data" -l "$base/pg/server.log" -w -t 60 \
      -o "-p $pg_port -k $pg_sock -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
      start >&2 || { tail -n 20 "$base/pg/server.log" >&2; die "postgres did not start"; }
  fi
  psql_admin() { as_pg "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$pg_sock" -p "$pg_port" -U postgres "$@"; }
  psql_admin -d postgres >&2 <<SQL
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '$role') THEN
    CREATE ROLE $role LOGIN PASSWORD '$password';
  END IF;
END \$\$;
SQL
  if [ "$(psql_admin -d postgres -tA -c "SELECT 1 FROM pg_database WHERE datname = '$db'")" != 1 ]; then
    log "creating database $db"
    psql_admin -d postgres -c "CREATE DATABASE $db OWNER $role" >&2
  fi
}

start_redis() {
  mkdir -p "$redis_dir"
  if redis-cli -h 127.0.0.1 -p "$redis_port" ping 2>/dev/null | grep -q PONG; then
    log "redis already running on 127.0.0.1:$redis_port"
    return 0
  fi
  log "starting redis on 127.0.0.1:$redis_port"
  # No persistence: the tests create what they need.
  redis-server --bind 127.0.0.1 --port "$redis_port" --dir "$redis_dir" \
    --save '' --appendonly no --daemonize yes \
    --pidfile "$redis_dir/redis.pid" --logfile "$redis_dir/redis.log" >&2
  for _ in $(seq 1 100); do
    redis-cli -h 127.0.0.1 -p "$redis_port" ping 2>/dev/null | grep -q PONG && return 0
    sleep 0.1
  done
  tail -n 20 "$redis_dir/redis.log" >&2 || true
  die "redis did not answer on 127.0.0.1:$redis_port"
}

if [ "${1:-}" = "--stop" ]; then
  stop_all
  exit 0
fi
mkdir -p "$base"
install_missing
start_postgres
start_redis
echo "export NEWSCRAWL_TEST_POSTGRES=postgres://$role:$password@127.0.0.1:$pg_port/$db?sslmode=disable"
echo "export NEWSCRAWL_TEST_REDIS=redis://127.0.0.1:$redis_port/0"
