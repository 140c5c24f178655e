#!/usr/bin/env bash
# rootdoc.sh: what GET / costs on a large schema (issue 54, point 7). Loads
# the synthetic schema (deploy/bench/synthschema) into a throwaway cluster,
# then, for each svc-serve binary given, starts it with openapi-cache-max-bytes
# set to each of CACHES and asks GET / for the Swagger 2.0 and the OpenAPI 3.1
# document ROUNDS times in turn, one request at a time: time to first byte,
# total time and size (curl), and svc-serve's peak RSS during the request
# (VmHWM, reset before each through /proc/PID/clear_refs). The first round of
# a cache that keeps the document is its build; the later ones what serving
# it again costs.
#
#   deploy/bench/rootdoc.sh OLD_SVC_SERVE NEW_SVC_SERVE
#
# TABLES, VIEWS, FUNCTIONS size the schema (10000, 2000, 2000: 12,000
# relations and 2,000 functions); CACHES (default "33554432 0": the default
# and none), ROUNDS (3) and CONCURRENT (8: after the rounds, that many
# requests at once of each version, reported as one line: the slowest, and
# the peak while they ran). Prints one tab-separated line per request.
set -euo pipefail

TABLES=${TABLES:-10000}
VIEWS=${VIEWS:-2000}
FUNCTIONS=${FUNCTIONS:-2000}
CACHES=${CACHES:-"33554432 0"}
ROUNDS=${ROUNDS:-3}
CONCURRENT=${CONCURRENT:-8}
PGPORT=${PGPORT:-55432}
HTTPPORT=${HTTPPORT:-55433}
BIN=${SVC_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)}
[ $# -ge 1 ] || { echo "usage: $0 SVC_SERVE..." >&2; exit 2; }

log() { echo "[$(date +%T)] $*" >&2; }
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
WORK=$(mktemp -d)
chmod 755 "$WORK"
SVC_PID=
cleanup() {
  set +e
  [ -n "$SVC_PID" ] && kill "$SVC_PID" 2>/dev/null && wait "$SVC_PID" 2>/dev/null
  as_pg "$BIN/pg_ctl" -D "$WORK/data" -m immediate stop >/dev/null 2>&1
  rm -rf "$WORK"
}
trap cleanup EXIT

mkdir "$WORK/data" && chown postgres "$WORK/data" 2>/dev/null || true
as_pg "$BIN/initdb" -D "$WORK/data" -U postgres -A trust >/dev/null
as_pg "$BIN/pg_ctl" -D "$WORK/data" -l "$WORK/data/pg.log" -o "-p $PGPORT -k /tmp -c max_locks_per_transaction=256" -w start >/dev/null
PSQL=("$BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PGPORT" -U postgres)
"${PSQL[@]}" -c "create role web_anon nologin; create role authenticator login noinherit; grant web_anon to authenticator"
log "loading $TABLES tables, $VIEWS views, $FUNCTIONS functions"
go run ./deploy/bench/synthschema -tables "$TABLES" -views "$VIEWS" -functions "$FUNCTIONS" | "${PSQL[@]}" >/dev/null
"${PSQL[@]}" -c "grant usage on schema synth to web_anon; grant select on all tables in schema synth to web_anon"
log "loaded"

printf 'binary\tcache\tround\tversion\tbytes\tfirst byte s\ttotal s\tpeak RSS MiB\tidle RSS MiB\n'
for serve in "$@"; do
  for cache in $CACHES; do
    cat >"$WORK/svc.conf" <<EOF
db-uri = "postgres://authenticator@127.0.0.1:$PGPORT/postgres"
db-schemas = "synth"
db-anon-role = "web_anon"
server-port = "$HTTPPORT"
server-host = "127.0.0.1"
openapi-cache-max-bytes = "$cache"
EOF
    "$serve" --config "$WORK/svc.conf" 2>"$WORK/svc.log" &
    SVC_PID=$!
    until curl -sf -o /dev/null "http://127.0.0.1:$HTTPPORT/t1?id=eq.1"; do sleep 0.2; done
    idle=$(awk '/^VmRSS/ {print int($2/1024)}' "/proc/$SVC_PID/status")
    for round in $(seq 1 "$ROUNDS"); do
      for version in 2.0 3.1; do
        echo 5 >"/proc/$SVC_PID/clear_refs" # VmHWM := VmRSS
        times=$(curl -s -o /dev/null -H "Accept: application/openapi+json;version=$version" \
          -w '%{size_download}\t%{time_starttransfer}\t%{time_total}' "http://127.0.0.1:$HTTPPORT/")
        peak=$(awk '/^VmHWM/ {print int($2/1024)}' "/proc/$SVC_PID/status")
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(basename "$serve")" "$cache" "$round" "$version" "$times" "$peak" "$idle"
      done
    done
    # CONCURRENT requests at once of each version: the peak while they
    # are served, and the slowest one's total time.
    for version in 2.0 3.1; do
      echo 5 >"/proc/$SVC_PID/clear_refs"
      for i in $(seq 1 "$CONCURRENT"); do
        curl -s -o /dev/null -H "Accept: application/openapi+json;version=$version" \
          -w '%{size_download}\t%{time_starttransfer}\t%{time_total}\n' "http://127.0.0.1:$HTTPPORT/" >"$WORK/c$i" &
      done
      wait $(jobs -p | grep -v "^$SVC_PID$")
      slowest=$(sort -t$'\t' -k3 -g "$WORK"/c* | tail -1)
      peak=$(awk '/^VmHWM/ {print int($2/1024)}' "/proc/$SVC_PID/status")
      printf '%s\t%s\t%sx\t%s\t%s\t%s\t%s\n' "$(basename "$serve")" "$cache" "$CONCURRENT" "$version" "$slowest" "$peak" "$idle"
      rm -f "$WORK"/c*
    done
    kill "$SVC_PID"
    wait "$SVC_PID" 2>/dev/null || true
    SVC_PID=
  done
done
