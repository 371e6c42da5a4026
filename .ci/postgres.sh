#!/usr/bin/env bash
# Starts (start DIR PORT) or stops (stop DIR) a throwaway PostgreSQL cluster on 127.0.0.1 for the
# tests. Run as root: the server itself runs as the postgres user. Prints the connection URL.
set -euo pipefail
cmd=${1:?start|stop}; dir=${2:?data dir}; port=${3:-55432}
PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
case "$cmd" in
  start)
    rm -rf "$dir"; mkdir -p "$dir"; chown postgres:postgres "$dir"
    runuser -u postgres -- "$PGBIN/initdb" -D "$dir" -U postgres --auth=trust >/dev/null
    runuser -u postgres -- "$PGBIN/pg_ctl" -D "$dir" -l "$dir/server.log" -w \
      -o "-p $port -k /tmp -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" start >/dev/null
    echo "postgres://postgres@127.0.0.1:$port/postgres"
    ;;
  stop)
    if [ -f "$dir/postmaster.pid" ]; then
      pid=$(head -1 "$dir/postmaster.pid")
      kill -INT "$pid" 2>/dev/null || true
      for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    fi
    ;;
esac
