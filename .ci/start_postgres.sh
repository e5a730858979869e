#!/usr/bin/env bash
# Starts Debian's PostgreSQL for the task-store tests (issue 28) and prints the URL to use as
# KAGENT_TEST_DATABASE_URL. It does not use (or touch) Debian's own cluster: it makes a cluster of
# its own in $KAGENT_POSTGRES_DIR (default /var/tmp/kagent-postgres) with initdb, listening on
# 127.0.0.1 only, on the first free port of 5432 and 55432, its socket in its own folder; only the
# test role may connect over TCP, without a password, to its own database. Idempotent: a cluster
# already running there is reused. Runs as root (the cluster then belongs to the `postgres` user)
# or as any other user (the cluster is that user's).
# Exits 3 (saying why) when the package cannot be installed; another non-zero status, after
# printing the server's log, when PostgreSQL cannot be started.
set -euo pipefail
ROLE=kagent_test
DATABASE=kagent_test
ADMIN=kagent_admin
BASE=${KAGENT_POSTGRES_DIR:-/var/tmp/kagent-postgres}
DATA=${BASE}/data
SOCKET=${BASE}/socket
LOG=${BASE}/server.log

server_binary() { ls -d /usr/lib/postgresql/*/bin/postgres 2>/dev/null | sort -V | tail -n 1; }

# The client alone (psql, often on a machine already) has no server: look for the server itself.
if [[ -z "$(server_binary)" ]]; then
  echo "== Installing postgresql" >&2
  if [[ $(id -u) -ne 0 ]]; then
    echo "postgresql is not installed and this user ($(id -un)) cannot install it" >&2
    exit 3
  fi
  (apt-get install -y -qq postgresql || (apt-get update -qq && apt-get install -y -qq postgresql)) \
    >/tmp/kagent-ci-postgres-apt.log 2>&1 || {
    tail -n 20 /tmp/kagent-ci-postgres-apt.log >&2
    echo "postgresql could not be installed (see /tmp/kagent-ci-postgres-apt.log)" >&2
    exit 3
  }
fi
BIN=$(dirname "$(server_binary)")
if [[ ! -x "${BIN}/initdb" || ! -x "${BIN}/pg_ctl" ]]; then
  echo "PostgreSQL's initdb or pg_ctl is missing in ${BIN}" >&2
  exit 3
fi

# initdb and the server refuse to run as root: as root, the cluster belongs to `postgres`.
if [[ $(id -u) -eq 0 ]]; then
  OWNER=postgres
  id "$OWNER" >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql "$OWNER"
  as_owner() { runuser -u "$OWNER" -- "$@"; }
else
  OWNER=$(id -un)
  as_owner() { "$@"; }
fi

mkdir -p "$BASE"
chown "$OWNER" "$BASE" 2>/dev/null || true
chmod 700 "$BASE"

port_taken() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

if [[ -f "${DATA}/postmaster.pid" ]] && as_owner "${BIN}/pg_ctl" -D "$DATA" status >/dev/null 2>&1; then
  PORT=$(sed -n 4p "${DATA}/postmaster.pid")
else
  if [[ ! -f "${DATA}/PG_VERSION" ]]; then
    rm -rf "$DATA"
    as_owner mkdir -p "$DATA" "$SOCKET"
    # The administrator connects only through the socket in $SOCKET (a folder only the owner can
    # open); over TCP only the test role, to its own database (first match wins in pg_hba.conf).
    as_owner "${BIN}/initdb" -D "$DATA" -U "$ADMIN" --auth-local=trust --auth-host=reject \
      --encoding=UTF8 --locale=C >"${BASE}/initdb.log" 2>&1 || {
      cat "${BASE}/initdb.log" >&2
      echo "initdb failed" >&2
      exit 1
    }
    as_owner sed -i "1i host ${DATABASE} ${ROLE} 127.0.0.1/32 trust" "${DATA}/pg_hba.conf"
  fi
  PORT=5432
  if port_taken "$PORT"; then PORT=55432; fi
  if port_taken "$PORT"; then
    echo "Ports 5432 and 55432 on 127.0.0.1 are both taken" >&2
    exit 1
  fi
  as_owner mkdir -p "$SOCKET"
  # The tests' many workers and benches need more than the default 100 connections.
  as_owner "${BIN}/pg_ctl" -D "$DATA" -l "$LOG" -w -t 60 start -o \
    "-c listen_addresses=127.0.0.1 -c port=${PORT} -c unix_socket_directories=${SOCKET} -c max_connections=200" \
    >/dev/null || {
    tail -n 30 "$LOG" >&2 || true
    echo "PostgreSQL did not start (its log: ${LOG})" >&2
    exit 1
  }
fi

run_sql() { as_owner "${BIN}/psql" -q -h "$SOCKET" -p "$PORT" -U "$ADMIN" -d postgres -tAc "$1"; }
if [[ "$(run_sql "SELECT 1 FROM pg_roles WHERE rolname = '${ROLE}'")" != "1" ]]; then
  run_sql "CREATE ROLE ${ROLE} LOGIN"
fi
if [[ "$(run_sql "SELECT 1 FROM pg_database WHERE datname = '${DATABASE}'")" != "1" ]]; then
  run_sql "CREATE DATABASE ${DATABASE} OWNER ${ROLE}"
fi
echo "postgres://${ROLE}@127.0.0.1:${PORT}/${DATABASE}"
