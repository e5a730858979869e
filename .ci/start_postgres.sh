#!/usr/bin/env bash
# Starts Debian's PostgreSQL for the task-store tests (issue 28) and prints the URL to use as
# KAGENT_TEST_DATABASE_URL. Idempotent: installs the package when missing, listens on 127.0.0.1
# only, trusts the test role from 127.0.0.1 alone, starts the cluster, creates the role and the
# database once. Exits 3 (saying why) when the package cannot be installed, another non-zero
# status when PostgreSQL cannot be started.
set -euo pipefail
VERSION=15
ROLE=kagent_test
DATABASE=kagent_test
PORT=5432

if ! command -v pg_ctlcluster >/dev/null 2>&1 || [[ ! -d /usr/lib/postgresql ]]; then
  echo "== Installing postgresql" >&2
  (apt-get install -y -qq postgresql || (apt-get update -qq && apt-get install -y -qq postgresql)) \
    >/tmp/kagent-ci-postgres-apt.log 2>&1 || {
    echo "postgresql could not be installed (see /tmp/kagent-ci-postgres-apt.log)" >&2
    exit 3
  }
fi
VERSION=$(ls /usr/lib/postgresql | sort -n | tail -n 1)
if ! pg_lsclusters -h | awk '{print $1" "$2}' | grep -q "^${VERSION} main$"; then
  pg_createcluster "$VERSION" main >/dev/null
fi
CONF=/etc/postgresql/${VERSION}/main
# Loopback only; the tests' many workers and benches need more than the default 100 connections.
cat >"${CONF}/conf.d/kagent.conf" <<CONFIG
listen_addresses = '127.0.0.1'
port = ${PORT}
max_connections = 200
CONFIG
HBA_LINE="host ${DATABASE} ${ROLE} 127.0.0.1/32 trust"
if ! grep -qxF "$HBA_LINE" "${CONF}/pg_hba.conf"; then
  # First match wins in pg_hba.conf: the test role's line goes before the defaults.
  sed -i "1i ${HBA_LINE}" "${CONF}/pg_hba.conf"
fi
if pg_lsclusters -h | awk -v v="$VERSION" '$1 == v && $2 == "main" {print $4}' | grep -q online; then
  pg_ctlcluster "$VERSION" main reload
else
  pg_ctlcluster "$VERSION" main start
fi
for _ in $(seq 1 30); do
  pg_isready -q -h 127.0.0.1 -p "$PORT" && break
  sleep 1
done
run_sql() { su postgres -c "psql -q -p ${PORT} -tAc \"$1\""; }
if [[ "$(run_sql "SELECT 1 FROM pg_roles WHERE rolname = '${ROLE}'")" != "1" ]]; then
  run_sql "CREATE ROLE ${ROLE} LOGIN"
fi
if [[ "$(run_sql "SELECT 1 FROM pg_database WHERE datname = '${DATABASE}'")" != "1" ]]; then
  run_sql "CREATE DATABASE ${DATABASE} OWNER ${ROLE}"
fi
echo "postgres://${ROLE}@127.0.0.1:${PORT}/${DATABASE}"
