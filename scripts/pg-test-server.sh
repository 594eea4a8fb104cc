#!/usr/bin/env bash
# A throwaway PostgreSQL for the test suites (README, "Test it"): Debian's server (apt-get install postgresql),
# on loopback, in a temporary data directory, run as the `postgres` user, with durability off (a test server).
# Prints the server's URL on stdout (the last line); the data directory and log go to stderr.
#
#   url=$(scripts/pg-test-server.sh) && TEST_DATABASE_URL=$url TEST_DATABASE_VECTOR=off npm run test:pg
#   scripts/pg-test-server.sh stop DIR      stops the server started in DIR and deletes DIR
#
# PORT picks the port (default: a free one). Debian's server has no pgvector: set TEST_DATABASE_VECTOR=off.
set -euo pipefail

bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -n "$bin" ] && [ -x "$bin/pg_ctl" ] || { echo "PostgreSQL not found: apt-get install postgresql" >&2; exit 1; }

as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

if [ "${1:-}" = stop ]; then
  dir=${2:?usage: $0 stop DIR}
  as_postgres "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >&2 || true
  rm -rf "$dir"
  exit 0
fi

if [ "$(id -u)" != 0 ] && [ "$(id -un)" != postgres ]; then
  echo "run as root (the server then runs as postgres) or as the postgres user" >&2
  exit 1
fi

dir=$(mktemp -d /tmp/lumen-pg-XXXXXX)
[ "$(id -u)" = 0 ] && chown postgres:postgres "$dir"
port=${PORT:-$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')}
as_postgres "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C --no-sync >/dev/null
as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w start \
  -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" \
  >/dev/null
echo "PostgreSQL $("$bin/postgres" --version | grep -oE '[0-9]+(\.[0-9]+)?' | head -n 1) in $dir (log: $dir/log); stop: $0 stop $dir" >&2
echo "postgres://postgres@127.0.0.1:$port/postgres"
