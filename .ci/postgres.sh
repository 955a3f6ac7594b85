#!/usr/bin/env bash
# Sourced by .ci/run (and usable by hand: `source .ci/postgres.sh`): makes a PostgreSQL 15 server with
# pgvector listen on 127.0.0.1 and exports GROUNDWORK_TEST_DATABASE_URL for the Postgres tests.
#
# - Debian's postgresql-15 and postgresql-server-dev-15 (installed when missing).
# - pgvector built from Debian's own source package: bookworm has no pgvector binary package, so the
#   source of trixie's is fetched with a private apt source list (nothing is added to the system's
#   sources) and built against PG 15 (about 20 s).
# - A cluster of its own (`groundwork`, port $GROUNDWORK_PG_PORT, default 54329) on 127.0.0.1 with a
#   password for the `groundwork` role; started if it is not running.
# Best effort like the tesseract step: on failure it says why and leaves the variable unset, so the
# Postgres tests skip with their message instead of failing the whole run.

gw_pg_setup() {
  local port="${GROUNDWORK_PG_PORT:-54329}" bin=/usr/lib/postgresql/15/bin
  local missing
  missing=$(for p in postgresql-15 postgresql-server-dev-15 dpkg-dev; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)
  if [ -n "$missing" ]; then
    # shellcheck disable=SC2086 # one word per package
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null) || { echo "    (apt-get install $missing failed)"; return 1; }
  fi
  if [ ! -f /usr/share/postgresql/15/extension/vector.control ]; then
    local work
    work=$(mktemp -d)
    mkdir -p "$work/lists/partial"
    echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main" > "$work/sources.list"
    local apt_opts=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$work/lists")
    (cd "$work" && apt-get "${apt_opts[@]}" update -qq >/dev/null 2>&1 \
      && apt-get "${apt_opts[@]}" source --download-only pgvector >/dev/null 2>&1 \
      && tar xzf pgvector_*.orig.tar.gz && cd pgvector-*/ \
      && make -s PG_CONFIG="$bin/pg_config" OPTFLAGS="" >/dev/null 2>&1 \
      && make -s PG_CONFIG="$bin/pg_config" install >/dev/null 2>&1) || { echo "    (pgvector build failed in $work)"; return 1; }
    rm -rf "$work"
  fi
  if ! pg_lsclusters -h 2>/dev/null | awk '{print $2}' | grep -qx groundwork; then
    pg_createcluster 15 groundwork -p "$port" -- --auth-local=trust --auth-host=scram-sha-256 >/dev/null || return 1
    sed -i "s/^#\?listen_addresses.*/listen_addresses = '127.0.0.1'/" /etc/postgresql/15/groundwork/postgresql.conf
    # Tests run many short-lived pools at once (stores, queue workers, the contract suite).
    sed -i "s/^#\?max_connections.*/max_connections = 300/" /etc/postgresql/15/groundwork/postgresql.conf
  fi
  port=$(pg_lsclusters -h | awk '$2 == "groundwork" {print $3}')
  pg_ctlcluster 15 groundwork start 2>/dev/null || pg_lsclusters -h | awk '$2 == "groundwork"' | grep -q online || return 1
  su postgres -c "psql -q -p $port -c \"DO \\\$\\\$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'groundwork') THEN CREATE ROLE groundwork LOGIN SUPERUSER PASSWORD 'groundwork'; END IF; END \\\$\\\$\"" >/dev/null || return 1
  su postgres -c "psql -q -p $port -tc \"SELECT 1 FROM pg_database WHERE datname = 'groundwork_test'\"" | grep -q 1 \
    || su postgres -c "createdb -p $port -O groundwork groundwork_test" || return 1
  su postgres -c "psql -q -p $port -d groundwork_test -c 'CREATE EXTENSION IF NOT EXISTS vector'" >/dev/null || return 1
  export GROUNDWORK_TEST_DATABASE_URL="postgres://groundwork:groundwork@127.0.0.1:$port/groundwork_test"
}

if gw_pg_setup; then
  echo "    PostgreSQL 15 + pgvector on 127.0.0.1: GROUNDWORK_TEST_DATABASE_URL=$GROUNDWORK_TEST_DATABASE_URL"
else
  echo "    (PostgreSQL set-up failed: the Postgres tests will skip)"
fi
