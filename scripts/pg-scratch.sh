#!/usr/bin/env bash
# A throw-away PostgreSQL cluster for the tests and benches (docs/store.md#postgresql):
#   scripts/pg-scratch.sh start DIR   -> initdb in DIR, start on a free port, print the URL
#   scripts/pg-scratch.sh stop DIR    -> stop it (the caller removes DIR)
# Uses Debian's postgresql (15); as root it runs the server as the `postgres` user (PostgreSQL
# refuses to run as root). Local connections only, trust authentication: a scratch cluster.
set -euo pipefail
cmd="${1:?start|stop}"; dir="${2:?directory}"
bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
[ -x "$bin/initdb" ] || { echo "PostgreSQL is not installed (apt-get install postgresql)" >&2; exit 3; }
as_owner() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
case "$cmd" in
  start)
    mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres "$dir"
    as_owner "$bin/initdb" -D "$dir/data" -A trust -U fsm -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; exit 1; }
    port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
    # Tests trade durability for speed; benches (PG_SCRATCH_DURABLE=1) keep PostgreSQL's defaults.
    fast="-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    [ "${PG_SCRATCH_DURABLE:-}" = 1 ] && fast=""
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
      -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=200 $fast" start >/dev/null \
      || { cat "$dir/server.log" >&2; exit 1; }
    echo "postgres://fsm@127.0.0.1:$port/postgres"
    ;;
  stop)
    [ -d "$dir/data" ] && as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    ;;
  *) echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac
