# The PostgreSQL floor (FLOOR=1): what PostgreSQL spends per transaction
# on each part of what SVC sends for a workload, and on what pREST sends
# for it, measured with pgbench on the suite's cluster. On a topology where
# PostgreSQL's core bounds throughput, a server's requests per second can
# exceed a peer's only by as much as PostgreSQL's work per request is
# smaller; these rounds say what each part of that work costs, so a target
# can be set against what the statements allow. Sourced by run.sh after
# its functions are defined.
#
# The parts, each a pgbench script run in its own round trip:
#   trip   one trivial statement (select 1): a round trip's own cost
#   setup  SVC's set-up statement alone (role, search_path, request.*)
#   main   SVC's main statement alone
#   svc    KIND.pgbench: both, pipelined in one round trip as SVC sends them
#   prest  prest/KIND.pgbench: pREST's statement, where pREST runs KIND
# main and prest run as the role prest, which holds the anonymous role's
# privileges as pREST's own sessions do; the others as the authenticator,
# as SVC's sessions do.

FLOOR=${FLOOR:-0}
FLOOR_ROUNDS=${FLOOR_ROUNDS:-3}

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
  svc) echo "$src"; return ;;
  prest) echo "deploy/bench/prest/$kind.pgbench"; return ;;
  trip) grep '^\\set ' "$src" >"$out"; echo 'select 1;' >>"$out" ;;
  setup) { grep '^\\set ' "$src"; grep 'set_config(.role.' "$src"; } >"$out" ;;
  main)
    { grep '^\\set ' "$src"
      awk '/^\\startpipeline/ {on = 1; next} /^\\endpipeline/ {on = 0}
           on && !/^begin / && !/^commit;/ && !/set_config\(.role./' "$src"; } >"$out" ;;
  esac
  echo "$out"
}

# floor_parts KIND: the parts measured for KIND.
floor_parts() {
  echo trip setup main svc
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
      PGBENCH_FILE=$(floor_script "$kind" "$part") PGBENCH_URI=$uri DURATION=$PAIR_SECONDS PGROWS=floor-row.tsv \
        run_pgbench "$kind" prepared
      awk -v part="$part" -F'\t' '{$2 = part; print}' OFS='\t' "$WORK/floor-row.tsv" >>"$WORK/floor.tsv"
    done
  done
}

# floor_report: the floor table, when FLOOR ran.
floor_report() {
  [ -s "$WORK/floor.tsv" ] || return 0
  echo
  echo "PostgreSQL's CPU per transaction (µs; its processes' user and system time over the run, divided by"
  echo "pgbench's transactions) for each part of what SVC sends, each part a script of its own at $POOL"
  echo "clients, $FLOOR_ROUNDS rounds of ${PAIR_SECONDS} s (median, lowest to highest). \"trip\" is a round trip with a"
  echo "trivial statement; \"set-up\" and \"main\" each pay a round trip too, so set-up + main − trip is about"
  echo "\"SVC's pipeline\", which sends both in one. \\* marks a disturbed round."
  echo
  echo "| workload | trip | set-up alone | main alone | SVC's pipeline | pREST's statement | SVC's pipeline − pREST's |"
  echo "|---|--:|--:|--:|--:|--:|--:|"
  awk -F'\t' -f deploy/bench/floor.awk "$WORK/floor.tsv"
}
