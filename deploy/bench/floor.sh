# The PostgreSQL floor (FLOOR=1): what PostgreSQL spends per transaction
# on each part of what SVC sends for a workload, and on what pREST sends
# for it, measured with pgbench on the suite's cluster. On a topology where
# PostgreSQL's core bounds throughput, a server's requests per second can
# exceed a peer's only by as much as PostgreSQL's work per request is
# smaller; these rounds say what each part of that work costs, so a target
# can be set against what the statements allow. Sourced by run.sh after
# its functions are defined.
#
# Under FLOOR=1 the paired rounds also run deploy/bench/floorserver, the
# least a Go process can do to answer lookup, page and insert as SVC does,
# on svc-serve's cores: SVC's CPU per request is read against it. A second
# floorserver serves the same work through SVC's HTTP server
# (FLOOR_HTTP1=1, "floorh"), the least any handler on it pays: SVC's CPU
# over floorh's is what its handler adds.
#
# The parts, each a pgbench script run in its own round trip:
#   trip   one trivial statement (select 1): a round trip's own cost
#   setup  SVC's set-up statement alone (role, search_path, request.*)
#   main   SVC's main statement alone
#   svc    KIND.pgbench: both, pipelined in one round trip as SVC sends them
#   far    svc again, with pgbench on svc-serve's cores (TOPOLOGY=split):
#          where SVC's client of PostgreSQL sits. Waking a backend from the
#          other core, and being woken there, costs PostgreSQL more per
#          transaction than a client sharing its core, as pgbench does in
#          the paired rounds; far against svc is that difference, which no
#          server on svc-serve's core can avoid.
#   prest  prest/KIND.pgbench: pREST's statement, where pREST runs KIND
# main and prest run as the role prest, which holds the anonymous role's
# privileges as pREST's own sessions do; the others as the authenticator,
# as SVC's sessions do.

FLOOR=${FLOOR:-0}
FLOOR_ROUNDS=${FLOOR_ROUNDS:-3}
FLOOR_HTTP=http://127.0.0.1:$FLOORPORT
FLOORH_HTTP=http://127.0.0.1:$FLOORHPORT

# floor_kind KIND: whether floorserver runs KIND in the paired rounds: under
# FLOOR=1, for the workloads it answers (lookup, page, insert).
floor_kind() { [ "$FLOOR" = 1 ] && [[ " lookup page insert " == *" $1 "* ]]; }

# start_floorserver starts floorserver (see its doc comment) on svc-serve's
# cores with SVC's pool size, and floorh beside it, and waits (10 s at most
# each) until they answer.
start_floorserver() {
  launch_floorserver floorserver FLOOR_PID "$FLOORPORT"
  launch_floorserver floorh FLOORH_PID "$FLOORHPORT" FLOOR_HTTP1=1
}

# launch_floorserver NAME PIDVAR PORT [VAR=VALUE ...] starts one
# floorserver on PORT, its pid in the variable named PIDVAR, and waits
# until it answers.
launch_floorserver() {
  local name=$1 pidvar=$2 port=$3
  shift 3
  env SVC_DB_URI="$APP_URI" SVC_DB_POOL=$POOL SVC_SERVER_HOST=127.0.0.1 SVC_SERVER_PORT="$port" "$@" \
    "${ON_SVC[@]}" "$WORK/bin/floorserver" -scripts deploy/bench >>"$WORK/floorserver.log" 2>&1 &
  printf -v "$pidvar" '%s' "$!"
  await_server "$name" "${!pidvar}" "$WORK/floorserver.log" "http://127.0.0.1:$port/books?id=eq.1"
}

# ensure_prest_role: the login role pREST's sessions use, a member of
# bench_anon, so that it reads and writes with the anonymous role's grants.
ensure_prest_role() {
  psql_admin -c "do \$\$ begin if not exists (select from pg_roles where rolname = 'prest') then create role prest login in role bench_anon; end if; end \$\$"
}

# floor_script KIND PART: the path of PART's pgbench script for KIND,
# written into $WORK/floor from KIND.pgbench (its \set lines, then the
# part's statement) where it is not a file of its own.
floor_script() {
  local kind=$1 part=$2 src=deploy/bench/$1.pgbench out=$WORK/floor/$1-$2.pgbench
  mkdir -p "$WORK/floor"
  case $part in
  svc | far) echo "$src"; return ;;
  prest) echo "deploy/bench/prest/$kind.pgbench"; return ;;
  trip) grep '^\\set ' "$src" >"$out"; echo 'select 1;' >>"$out" ;;
  setup) { grep '^\\set ' "$src"; grep 'set_config(.role.' "$src"; } >"$out" ;;
  main) { grep '^\\set ' "$src"; pipeline_main "$src"; } >"$out" ;;
  esac
  echo "$out"
}

# floor_parts KIND: the parts measured for KIND.
floor_parts() {
  echo trip setup main svc
  [ "$TOPOLOGY" = split ] && echo far
  [ -f "deploy/bench/prest/$1.pgbench" ] && echo prest
}

# run_floor KIND: FLOOR_ROUNDS rounds of every part, the order rotating
# each round, PAIR_SECONDS each at the pool's connections, into
# floor.tsv: KIND, the part, then run_pgbench's figures.
run_floor() {
  local kind=$1 parts i j part uri
  read -ra parts <<<"$(floor_parts "$kind" | tr '\n' ' ')"
  ensure_prest_role
  for i in $(seq "$FLOOR_ROUNDS"); do
    log "$kind: floor round $i of $FLOOR_ROUNDS"
    for j in $(seq 0 $((${#parts[@]} - 1))); do
      part=${parts[$(((i - 1 + j) % ${#parts[@]}))]}
      uri=$APP_URI
      case $part in main | prest) uri=${APP_URI/authenticator@/prest@} ;; esac
      : >"$WORK/floor-row.tsv"
      PGBENCH_CORES=other
      [ "$part" = far ] && PGBENCH_CORES=svc
      PGBENCH_CORES=$PGBENCH_CORES PGBENCH_FILE=$(floor_script "$kind" "$part") PGBENCH_URI=$uri \
        DURATION=$PAIR_SECONDS PGROWS=floor-row.tsv run_pgbench "$kind" prepared
      awk -v part="$part" -F'\t' '{$2 = part; print}' OFS='\t' "$WORK/floor-row.tsv" >>"$WORK/floor.tsv"
    done
  done
}

# floor_report: the floor tables, when FLOOR ran.
floor_report() {
  if [ -s "$WORK/pairs-floor.tsv" ]; then
    echo
    echo "SVC against floorserver, floorh (floorserver through SVC's HTTP server) and pREST in the same"
    echo "paired rounds (medians, lowest to highest): each server's own CPU per request (µs) and"
    echo "throughput, and the ratios, taken in each round."
    echo
    echo "| workload | rounds | SVC µs/req | floor µs/req | floorh µs/req | pREST µs/req | SVC / floor | SVC / floorh | floor / pREST | SVC / pREST | req/s SVC / floor / pREST | req/s SVC / floor |"
    echo "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
    awk -F'\t' -f deploy/bench/stats.awk -f deploy/bench/floorpeers.awk "$WORK/pairs-wrk.tsv" "$WORK/pairs-floor.tsv" \
      "$WORK/pairs-floorh.tsv" "$WORK/pairs-prest.tsv"
  fi
  [ -s "$WORK/floor.tsv" ] || return 0
  echo
  echo "PostgreSQL's CPU per transaction (µs; its processes' user and system time over the run, divided by"
  echo "pgbench's transactions) for each part of what SVC sends, each part a script of its own at $POOL"
  echo "clients, $FLOOR_ROUNDS rounds of ${PAIR_SECONDS} s (median, lowest to highest). \"trip\" is a round trip with a"
  echo "trivial statement; \"set-up\" and \"main\" each pay a round trip too, so set-up + main − trip is about"
  echo "\"SVC's pipeline\", which sends both in one. \"From svc-serve's core\" is SVC's pipeline again with pgbench"
  echo "where svc-serve runs (TOPOLOGY=split): what PostgreSQL spends when its client sits on the other core,"
  echo "as SVC and floorserver do. \\* marks a disturbed round."
  echo
  echo "| workload | trip | set-up alone | main alone | SVC's pipeline | from svc-serve's core | pREST's statement | SVC's pipeline − pREST's |"
  echo "|---|--:|--:|--:|--:|--:|--:|--:|"
  awk -F'\t' -f deploy/bench/stats.awk -f deploy/bench/floor.awk "$WORK/floor.tsv"
}
