#!/usr/bin/env bash
# Load test: SVC under wrk against pgbench running the same SQL, on one
# throwaway PostgreSQL cluster with a 1,000,000-row table. Loopback only.
#
#   deploy/bench/run.sh            # 20 s per run
#   DURATION=60 deploy/bench/run.sh
#   KINDS="rpc lookup" BULK=0 deploy/bench/run.sh   # some workloads only
#
# Needs the PostgreSQL server binaries (postgresql-15) and wrk (apt-get
# install wrk). Prints requests per second for each run and the ratios to
# pgbench in both its extended mode (parse and plan on every execution) and
# its prepared mode (as SVC does: each statement prepared once per
# connection).
set -euo pipefail
cd "$(dirname "$0")/../.."

DURATION=${DURATION:-20}
PGPORT=${PGPORT:-55432}
HTTPPORT=${HTTPPORT:-3100}
POOL=10
BIN=${SVC_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)}
WORK=$(mktemp -d /tmp/svc-bench-XXXXXX)
chmod 755 "$WORK"
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
cleanup() {
  [ -n "${SVC_PID:-}" ] && kill "$SVC_PID" 2>/dev/null || true
  as_pg "$BIN/pg_ctl" -D "$WORK/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'echo "failed at line $LINENO; see below"; cat "$WORK"/*.err "$WORK"/svc.log 2>/dev/null' ERR
[ "$(id -u)" = 0 ] && chown postgres "$WORK"

as_pg "$BIN/initdb" -D "$WORK/data" -U postgres -A trust >/dev/null
cat >>"$WORK/data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $PGPORT
unix_socket_directories = '$WORK'
shared_buffers = 512MB
max_connections = 100
fsync = off
CONF
as_pg "$BIN/pg_ctl" -D "$WORK/data" -l "$WORK/pg.log" -w start >/dev/null
URI="postgres://postgres@127.0.0.1:$PGPORT/postgres"
echo "loading 1,000,000 rows ..."
"$BIN/psql" -q -v ON_ERROR_STOP=1 "$URI" -f deploy/bench/fixture.sql

go build -o "$WORK/svc-serve" ./cmd/svc-serve
SVC_DB_URI="postgres://authenticator@127.0.0.1:$PGPORT/postgres" SVC_DB_SCHEMAS=bench \
  SVC_DB_ANON_ROLE=bench_anon SVC_DB_POOL=$POOL SVC_SERVER_HOST=127.0.0.1 SVC_SERVER_PORT=$HTTPPORT \
  SVC_LOG_LEVEL=error "$WORK/svc-serve" 2>"$WORK/svc.log" &
SVC_PID=$!
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$HTTPPORT/items?id=eq.1" >/dev/null && break; sleep 0.2; done

rps_wrk() { wrk -t2 -c32 -d"${DURATION}s" -s "deploy/bench/$1.lua" "http://127.0.0.1:$HTTPPORT" | awk '/Requests\/sec/ {print $2}'; }
rps_pgbench() {
  "$BIN/pgbench" -n -M "$3" -c "$2" -j 2 -T "$DURATION" -f "deploy/bench/$1.pgbench" \
    "postgres://authenticator@127.0.0.1:$PGPORT/postgres" 2>"$WORK/pgbench.err" | awk '/^tps/ {print $3; exit}'
}
for kind in ${KINDS:-lookup page embed insert rpc}; do
  curl -sf "http://127.0.0.1:$HTTPPORT/items?id=eq.1" >/dev/null
  svc=$(rps_wrk "$kind")
  echo "$kind: svc (wrk, 32 connections, pool $POOL): $svc req/s"
  for mode in extended prepared; do
    for conns in 32 $POOL; do
      pg=$(rps_pgbench "$kind" "$conns" "$mode")
      awk -v k="$kind" -v m="$mode" -v c="$conns" -v s="$svc" -v p="$pg" 'BEGIN {
        printf "%-6s pgbench -M %-8s %3d conns %8.0f tps   svc/pgbench %.2f\n", k, m, c, p, s/p }'
    done
  done
done

# A 10,000-row bulk insert through SVC (JSON and CSV bodies) against COPY of
# the same rows in one psql session; best of five each.
[ "${BULK:-1}" = 0 ] && exit 0
seq 1 10000 | awk 'BEGIN {printf "["} NR > 1 {printf ","} {printf "{\"item\":%d,\"note\":\"bulk row %d\"}", $1, $1} END {print "]"}' >"$WORK/bulk.json"
seq 1 10000 | awk 'BEGIN {print "item,note"} {printf "%d,bulk row %d\n", $1, $1}' >"$WORK/bulk.csv"
best_post() {
  for _ in 1 2 3 4 5; do
    curl -s -o /dev/null -w "%{time_total}\n" -X POST -H "Content-Type: $1" --data-binary "@$2" "http://127.0.0.1:$HTTPPORT/events"
  done | sort -n | head -1 | awk '{printf "%.1f", $1 * 1000}'
}
json_ms=$(best_post application/json "$WORK/bulk.json")
csv_ms=$(best_post text/csv "$WORK/bulk.csv")
copy_ms=$(for _ in 1 2 3 4 5; do echo "\\copy bench.events(item, note) from '$WORK/bulk.csv' csv header"; done |
  "$BIN/psql" -q -c '\timing on' -f - "$URI" | awk '/^Time:/ {print $2}' | sort -n | head -1)
echo "bulk   10,000 rows: svc JSON ${json_ms} ms, svc CSV ${csv_ms} ms, COPY ${copy_ms} ms"
