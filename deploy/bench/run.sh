#!/usr/bin/env bash
# The load-test suite: SVC under wrk against pgbench running the statements
# SVC sends, on one throwaway PostgreSQL cluster tuned for benchmarking, plus
# a cold start from a 2,000-table snapshot and an optional soak, with faults
# if asked (faults.sh). Loopback only; every load loop is bounded in time.
#
#   deploy/bench/run.sh > report.md             # everything, about 20 minutes
#   DURATION=30 deploy/bench/run.sh             # longer runs (default 15 s)
#   KINDS="lookup csv" CONNS=32 COLD=0 deploy/bench/run.sh   # parts only
#   KINDS= COLD=0 SOAK=600 deploy/bench/run.sh  # a 10-minute soak alone
#   KINDS= COLD=0 FAULTS=1 deploy/bench/run.sh  # a 10-minute soak with faults
#   PAIRS=5 KINDS=csv CONNS=32 COLD=0 BULK=0 deploy/bench/run.sh  # csv's ratio, 5 rounds
#   FLOOR=1 PAIRS=0 KINDS="lookup insert" CONNS=32 COLD=0 BULK=0 \
#     deploy/bench/run.sh                       # PostgreSQL's cost of each part of a request
#   LARGE=1 KINDS= COLD=0 deploy/bench/run.sh  # large results against COPY (large.sh)
#   TOPOLOGY=split VARIANTS="main new" VARIANT_main=REV=main COLD=0 BULK=0 \
#     deploy/bench/run.sh                       # main against the work tree, SVC on a core of its own
#
# Workloads (KINDS; each a wrk script KIND.lua and a pgbench script
# KIND.pgbench beside this file): lookup page embed insert rpc count csv.
# Other settings: CONNS (wrk connections, "32 128"), WARMUP (s, 5), MODES
# (pgbench modes, "prepared extended"; the ratio uses prepared), COLD (1:
# time cold starts), BULK (1: time a 10,000-row insert against COPY), SOAK
# (s, 0: none), FAULTS (1: the soak with faults, SOAK then defaulting to
# 600; see faults.sh), CHECK_SQL (1: first check that the pgbench scripts
# still match the SQL SVC sends), EQUAL (1: pgbench in prepared mode at 32
# connections too, for latency at SVC's concurrency), PAIRS (3: rounds per
# workload of SVC at 32 connections and pgbench at 10, and pREST at 32
# where PREST runs it, back to back, for the ratio's median; 0: none),
# PAIR_SECONDS (10: each run of a round), UNPREPARED (1: a second svc-serve
# with db-prepared-statements = false, as behind a transaction pooler, in
# the paired rounds too, with pgbench -M extended on the same statements:
# their ratios to the prepared path's in each round; 0: none), FLOOR (1: floorserver, and
# floorserver through SVC's HTTP server (floorh), in the
# paired rounds beside SVC and pREST, and PostgreSQL's CPU per transaction
# for each part of what SVC sends and for pREST's statement, FLOOR_ROUNDS
# (3) rounds; see floor.sh), RATE
# (req/s; empty: as fast as wrk can: each wrk connection waits
# CONNS/RATE between an answer and its next request, see pace.lua, so SVC's
# CPU per request is read at one throughput rather than at whatever
# PostgreSQL allowed that round; RATE_<kind>, say RATE_embed=150, sets one
# workload's),
# PG_MALLOC (glibc tunables for PostgreSQL, see below; empty: glibc's own),
# PREST (1: pREST in the paired rounds of the workloads it can express,
# see prest.sh; 0: none), PREST_CACHE (where prestd is built once, by
# default ~/.cache/svc-bench),
# PGPORT, HTTPPORT (and the next three ports: the cold starts', the fault
# soak's admin server's, pREST's). svc-serve reads SVC_* settings from the
# environment.
#
# TOPOLOGY: shared (the default) lets SVC, PostgreSQL and the load
# generator share every core, as they do on one benchmark VM. split pins
# svc-serve to a core of its own (SVC_CPUS, the last core) and PostgreSQL,
# wrk and pgbench to the others (OTHER_CPUS) with taskset: the shape of a
# deployment where SVC runs on its own nodes. svc-serve then sees one core
# (Go sizes GOMAXPROCS from the CPUs it may run on), and its CPU per
# request no longer pays for PostgreSQL's preempting it.
#
# VARIANTS ("a b ..."): instead of the runs above (the table, pgbench and
# the paired rounds), ROUNDS (5) rounds per workload of every variant of
# svc-serve, one after another in an order that rotates each round, a
# fresh server each, ROUND_WARMUP (3) s of warm-up then PAIR_SECONDS of
# wrk at 32 connections. VARIANT_<name> says what a variant runs, in
# words separated by spaces: REV=<git revision> builds svc-serve at that
# commit (otherwise the work tree's), BIN=<path> runs that binary, and
# VAR=VALUE words go to its environment (SVC_SERVER_GC_HEADROOM=0, GOGC=100).
# PERF_DIR (a directory): each round's svc-serve is also sampled with
# `perf record -g` (CPU clock, 999 Hz) into KIND-VARIANT-ROUND.data there,
# to see where a variant's CPU goes (`perf report -i FILE`); the sampling
# costs svc-serve a little CPU, so read those rounds' figures as profiles
# only.
# The report gives each variant's medians and spread, and each round's
# figures against the first variant's in the same round, which carries
# the machine's drift away.
# AT_ONCE=1 (with VARIANTS): instead, each of ROUNDS rounds runs the first
# variant and each other one at the same time, both on svc-serve's core,
# each under a wrk of its own at 16 connections (ROUND_WARMUP s, then
# PAIR_SECONDS), so that whatever the machine does in those seconds falls
# on both alike; the report gives each other variant's CPU per request
# over the first's, round by round. The rounds' spread is about a percent
# where in-turn rounds spread several: the way to tell a cut of a percent
# or two. Both serve half the usual load, so the figures themselves are
# not those of a server alone; set a variant beside itself to see the
# spread. The second server listens on HTTPPORT + 6.
# FOOTPRINT=1 (with VARIANTS): instead, each variant serves each workload
# once under valgrind's callgrind, and the report gives the lines of code a
# request runs through (footprint.sh): outside the runtime, within a few
# lines on every run of a build, so it tells a cut's direction without
# rounds. Needs valgrind.
# FOOTPRINT_SECONDS (5) is each profile's length, FOOTPRINT_DIR (a
# directory) where the profiles are kept.
# LAYOUTS (1): each variant built from source (REV= or the work tree) is
# built that many times, each with SVC's code shifted by padding of
# another size (layout_pad), and round i runs each variant's build i
# (modulo LAYOUTS). Where a function's code falls moves the CPU per
# request by a percent or two, as much as the cuts sought, and any change
# moves the code after it. So a difference between variants is believed
# across layouts only (4 or more), never from one build beside another.
# The padding keeps the linker's order, which a shuffle
# (-ldflags=-randlayout) does not: that order keeps a package's functions
# side by side, and svc-serve's lookup spent 6 to 7% more CPU in each of
# four shuffled orders than as built.
#
# The report (markdown) goes to stdout, progress to stderr; the exit status
# is 1 when a check of the fault soak fails. Needs the PostgreSQL server
# binaries (postgresql-15), wrk, perl, curl and Go.
set -Eeuo pipefail # -E: the ERR trap below also fires inside functions
cd "$(dirname "$0")/../.."

DURATION=${DURATION:-15}
WARMUP=${WARMUP:-5}
KINDS=${KINDS-lookup page embed insert rpc count csv}
CONNS=${CONNS:-32 128}
MODES=${MODES:-prepared extended}
COLD=${COLD:-1}
BULK=${BULK:-1}
FAULTS=${FAULTS:-0}
SOAK=${SOAK:-$([ "$FAULTS" = 1 ] && echo 600 || echo 0)}
CHECK_SQL=${CHECK_SQL:-1}
EQUAL=${EQUAL:-1}
PAIRS=${PAIRS:-3}
PAIR_SECONDS=${PAIR_SECONDS:-10}
UNPREPARED=${UNPREPARED:-1}
RATE=${RATE:-}
PERF_DIR=${PERF_DIR:-}
TOPOLOGY=${TOPOLOGY:-shared}
VARIANTS=${VARIANTS:-}
AT_ONCE=${AT_ONCE:-0}
ROUNDS=${ROUNDS:-5}
ROUND_WARMUP=${ROUND_WARMUP:-3}
LAYOUTS=${LAYOUTS:-1}
PG_MALLOC=${PG_MALLOC-glibc.malloc.trim_threshold=67108864:glibc.malloc.top_pad=16777216}
PGPORT=${PGPORT:-55432}
HTTPPORT=${HTTPPORT:-3100}
ADMINPORT=$((HTTPPORT + 2))
PRESTPORT=$((HTTPPORT + 3))
FLOORPORT=$((HTTPPORT + 4))
UNPREPPORT=$((HTTPPORT + 5))
ATONCEPORT=$((HTTPPORT + 6))
FLOORHPORT=$((HTTPPORT + 7))
PREST=${PREST:-1}
# SVC's pool, and pgbench's connections: the database sees 10 sessions
# either way, so the ratio compares like with like.
POOL=10
BIN=${SVC_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)}
HTTP=http://127.0.0.1:$HTTPPORT

log() { echo "[$(date +%T)] $*" >&2; }
die() { log "error: $*"; exit 1; }
command -v wrk >/dev/null || die "wrk not found (apt-get install wrk)"
if [ "${FOOTPRINT:-0}" = 1 ]; then
  [ -n "$VARIANTS" ] || die "FOOTPRINT=1 profiles the VARIANTS, and none are set"
  command -v valgrind >/dev/null || die "valgrind not found (apt-get install valgrind)"
fi
[ -x "$BIN/pgbench" ] && [ -x "$BIN/initdb" ] || die "no PostgreSQL server binaries in $BIN (set SVC_PG_BIN)"
for kind in $KINDS; do
  # wrk runs a plain GET / when its script is missing; refuse instead.
  [ -f "deploy/bench/$kind.lua" ] && [ -f "deploy/bench/$kind.pgbench" ] || die "no workload $kind (deploy/bench/$kind.lua and .pgbench)"
done
for port in "$PGPORT" "$HTTPPORT" $((HTTPPORT + 1)) $([ "$FAULTS" = 1 ] && echo "$ADMINPORT") "$PRESTPORT" "$FLOORPORT" "$FLOORHPORT" "$UNPREPPORT" $([ "$AT_ONCE" = 1 ] && echo "$ATONCEPORT"); do
  # A server already listening there would answer in SVC's place.
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then die "port $port is in use"; fi
done

# ON_SVC and ON_OTHER prefix the commands that start svc-serve, and
# PostgreSQL and the load generators: taskset under TOPOLOGY=split,
# nothing otherwise.
ON_SVC=()
ON_OTHER=()
case $TOPOLOGY in
shared) ;;
split)
  command -v taskset >/dev/null || die "taskset not found (util-linux)"
  [ "$(nproc)" -ge 2 ] || die "TOPOLOGY=split needs two cores at least"
  SVC_CPUS=${SVC_CPUS:-$(($(nproc) - 1))}
  OTHER_CPUS=${OTHER_CPUS:-0-$(($(nproc) - 2))}
  ON_SVC=(taskset -c "$SVC_CPUS")
  ON_OTHER=(taskset -c "$OTHER_CPUS")
  ;;
*) die "TOPOLOGY is shared or split, not $TOPOLOGY" ;;
esac
for v in $VARIANTS; do
  [[ $v =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || die "variant name $v: letters, digits and _ only (it names VARIANT_$v)"
done

LOADAVG=$(cut -d' ' -f1-3 /proc/loadavg)
awk '$1 > 0.5 {exit 1}' /proc/loadavg || log "warning: load average $LOADAVG: the machine is busy, figures will be low"

WORK=$(mktemp -d /tmp/svc-bench-XXXXXX)
chmod 755 "$WORK"
SVC_PID=
PREST_PID=
FLOOR_PID=
FLOORH_PID=
UNPREP_PID=
SAMPLER_PID=
FAULT_PID=
FAULT_CHECKS_FAILED=0
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
cleanup() {
  set +e # clean up all we can, whatever already stopped
  trap - ERR # a step of the clean-up that finds nothing to stop is no failure
  [ -n "$SAMPLER_PID" ] && kill "$SAMPLER_PID" 2>/dev/null
  [ -n "$FAULT_PID" ] && kill "$FAULT_PID" 2>/dev/null
  [ -n "$SVC_PID" ] && kill "$SVC_PID" 2>/dev/null && wait "$SVC_PID" 2>/dev/null
  [ -n "$PREST_PID" ] && kill "$PREST_PID" 2>/dev/null && wait "$PREST_PID" 2>/dev/null
  [ -n "$FLOOR_PID" ] && kill "$FLOOR_PID" 2>/dev/null && wait "$FLOOR_PID" 2>/dev/null
  [ -n "$FLOORH_PID" ] && kill "$FLOORH_PID" 2>/dev/null && wait "$FLOORH_PID" 2>/dev/null
  [ -n "$UNPREP_PID" ] && kill "$UNPREP_PID" 2>/dev/null && wait "$UNPREP_PID" 2>/dev/null
  as_pg "$BIN/pg_ctl" -D "$WORK/data" -m immediate stop >/dev/null 2>&1
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM # through the EXIT trap
on_error() {
  # Once, from the main shell, not again from each subshell the error crossed.
  [ "$BASHPID" = "$$" ] || return 0
  log "failed at line $1: $2; the logs end with:"
  tail -n 20 "$WORK"/*.log >&2 2>/dev/null || true
}
trap 'on_error $LINENO "$BASH_COMMAND"' ERR

# ---- PostgreSQL -------------------------------------------------------------
# Tuned for a benchmark, not for safety: no fsync, asynchronous commit, the
# dataset (about 400 MB) fits in shared_buffers, no JIT (it would only add
# compile time to these short queries), and wal_level = minimal so the
# fixture's tables skip the WAL while loading. PG_MALLOC keeps glibc from
# handing freed memory back to the kernel after each request: with its
# default 128 KiB trim threshold a backend's heap can settle where every
# request shrinks it with brk and grows it again, faulting the pages back
# in. Whether a backend falls into that depends on what it ran before:
# pgbench's fresh sessions did on page (about 50 us more of PostgreSQL's
# system time a request), SVC's pooled ones on csv after page or lookup ran.
# Left alone, it lands on either side of the ratio at random.
[ "$(id -u)" = 0 ] && chown postgres "$WORK"
as_pg "$BIN/initdb" -D "$WORK/data" -U postgres -A trust >/dev/null
cat >>"$WORK/data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $PGPORT
unix_socket_directories = '$WORK'
max_connections = 100
shared_buffers = 1GB
fsync = off
synchronous_commit = off
full_page_writes = off
wal_level = minimal
max_wal_senders = 0
max_wal_size = 8GB
checkpoint_timeout = 30min
jit = off
CONF
# pg_ctl_tuned ARGS: pg_ctl on the suite's cluster, so that whatever starts
# PostgreSQL (here, and the fault soak's restart) starts it with PG_MALLOC.
# Under TOPOLOGY=split the postmaster, and so every backend, inherits
# ON_OTHER's cores.
pg_ctl_tuned() { as_pg env GLIBC_TUNABLES="$PG_MALLOC" "${ON_OTHER[@]}" "$BIN/pg_ctl" -D "$WORK/data" -l "$WORK/pg.log" "$@"; }
pg_ctl_tuned -w start >/dev/null
PM_PID=$(head -1 "$WORK/data/postmaster.pid")
ADMIN_URI="postgres://postgres@127.0.0.1:$PGPORT/postgres"
APP_URI="postgres://authenticator@127.0.0.1:$PGPORT/postgres"
psql_admin() { "$BIN/psql" -q -X -v ON_ERROR_STOP=1 "$ADMIN_URI" "$@"; }

log "building svc-serve, svc-introspect and the bench helpers ..."
go build -o "$WORK/bin/" ./cmd/svc-serve ./cmd/svc-introspect ./deploy/bench/coldstart ./deploy/bench/synthschema \
  ./deploy/bench/floorserver ./deploy/bench/footprint

# layout_pad CASES: a Go file for package apierr holding a function of
# CASES cases that never runs (an init keeps it linked). apierr imports
# none of SVC's packages, so the linker places it ahead of those a request
# runs through, and the padding shifts all of their code.
layout_pad() {
  local i
  echo 'package apierr'
  echo
  echo 'import "os"'
  echo
  echo 'func init() {'
  echo '	if len(os.Args) > 1<<30 {'
  echo '		layoutPad(os.Args[0])'
  echo '	}'
  echo '}'
  echo
  echo 'func layoutPad(s string) (n int) {'
  echo '	for i := 0; i < len(s); i++ {'
  echo "		switch int(s[i]) % $1 {"
  for i in $(seq 0 $(($1 - 1))); do
    echo "		case $i:"
    echo "			n += $((i + 1))*int(s[i]) ^ $((i * 7 + 3))"
  done
  echo '		}'
  echo '	}'
  echo '	return n'
  echo '}'
}

# build_layouts SRC OUT SEED: svc-serve built from the source tree SRC, a
# copy of its own, LAYOUTS times into OUT, each build padded by another
# layout_pad (its size drawn from SEED, SEED + 1, ...; see LAYOUTS);
# prints the binaries. With LAYOUTS=1, one build as it is.
build_layouts() {
  local k pad=$1/server/apierr/zz_layout_pad.go
  if [ "$LAYOUTS" = 1 ]; then
    (cd "$1" && go build -o "$2/" ./cmd/svc-serve)
    echo "$2/svc-serve"
    return
  fi
  for k in $(seq 0 $((LAYOUTS - 1))); do
    # 1 to 170 cases, about 24 bytes each: shifts of up to 4 KiB, which
    # reach every cache-line offset within a page.
    layout_pad $((($3 + k) * 37 % 170 + 1)) >"$pad"
    (cd "$1" && go build -o "$2/svc-serve-$k" ./cmd/svc-serve)
    rm "$pad"
    echo "$2/svc-serve-$k"
  done
}

# The variants: VARIANT_EXE[name] is its binaries (one per layout, see
# LAYOUTS), VARIANT_ENV[name] the VAR=VALUE words. A REV is built from git
# archive's copy of that commit, and with LAYOUTS the work tree is copied
# too, so the work tree is left alone. Each variant's layouts take seeds
# of their own.
declare -A VARIANT_EXE VARIANT_ENV
variant_seed=1
for v in $VARIANTS; do
  spec_var=VARIANT_$v
  src=.
  VARIANT_ENV[$v]=
  VARIANT_EXE[$v]=
  for word in ${!spec_var-}; do
    case $word in
    REV=*)
      rev=$(git rev-parse --verify "${word#REV=}^{commit}") || die "VARIANT_$v: no commit ${word#REV=}"
      log "taking svc-serve's source at ${rev:0:9} for $v ..."
      mkdir -p "$WORK/src-$v"
      git archive "$rev" | tar -x -C "$WORK/src-$v"
      src=$WORK/src-$v
      ;;
    BIN=*) VARIANT_EXE[$v]=${word#BIN=} ;;
    *=*) VARIANT_ENV[$v]+=" $word" ;;
    *) die "VARIANT_$v: $word is none of REV=, BIN= and VAR=VALUE" ;;
    esac
  done
  if [ -z "${VARIANT_EXE[$v]}" ] && [ "$src" = . ] && [ "$LAYOUTS" != 1 ]; then
    mkdir -p "$WORK/src-$v"
    git ls-files -z --cached --others --exclude-standard | tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -xf - -C "$WORK/src-$v"
    src=$WORK/src-$v
  fi
  if [ -z "${VARIANT_EXE[$v]}" ] && [ "$src" != . ]; then
    log "building svc-serve for $v ($LAYOUTS layouts) ..."
    VARIANT_EXE[$v]=$(build_layouts "$src" "$WORK/bin-$v" "$variant_seed" | tr '\n' ' ')
    variant_seed=$((variant_seed + LAYOUTS))
  fi
  : "${VARIANT_EXE[$v]:=$WORK/bin/svc-serve}"
  for exe in ${VARIANT_EXE[$v]}; do
    [ -x "$exe" ] || die "VARIANT_$v: $exe is not an executable"
  done
done

# variant_exe NAME ROUND: the binary variant NAME runs in round ROUND, its
# layouts taken in turn.
variant_exe() {
  local exes
  read -ra exes <<<"${VARIANT_EXE[$1]}"
  echo "${exes[$((($2 - 1) % ${#exes[@]}))]}"
}

if [ -n "$KINDS" ] || [ "$SOAK" != 0 ] || [ "$LARGE" = 1 ]; then
  log "loading 10k authors, 1M books, 2M reviews ..."
  start=$SECONDS
  psql_admin -f deploy/bench/fixture.sql
  FIXTURE_SECONDS=$((SECONDS - start))
  log "loaded in ${FIXTURE_SECONDS} s"
fi

# ---- SVC --------------------------------------------------------------------
# await_server NAME PID LOG URL waits (AWAIT_SECONDS, 10, at most) until
# the server just started as PID answers URL, and stops the suite with
# LOG's tail if it exits first.
await_server() {
  local name=$1 pid=$2 log=$3 url=$4 secs=${AWAIT_SECONDS:-10}
  for _ in $(seq $((secs * 10))); do
    kill -0 "$pid" 2>/dev/null || { tail -n 20 "$log" >&2; die "$name exited"; }
    curl -sf -o /dev/null "$url" && return
    sleep 0.1
  done
  die "$name did not answer within $secs s"
}

# start_svc LOG_LEVEL [VAR=VALUE ...] starts svc-serve (SVC_EXE, or the
# work tree's; under the command SVC_UNDER's words make, if any) on the
# bench schema and waits (AWAIT_SECONDS, 10, at most) until it answers.
# The pool keeps its connections for the whole suite, as under steady
# load, rather than closing them while pgbench runs.
start_svc() {
  local level=$1
  shift
  # shellcheck disable=SC2086 # SVC_UNDER's words, split on purpose
  env SVC_DB_URI="$APP_URI" SVC_DB_SCHEMAS=bench SVC_DB_ANON_ROLE=bench_anon SVC_DB_POOL=$POOL \
    SVC_DB_POOL_MAX_IDLETIME=7200 SVC_DB_POOL_MAX_LIFETIME=7200 \
    SVC_SERVER_HOST=127.0.0.1 SVC_SERVER_PORT="$HTTPPORT" SVC_LOG_LEVEL="$level" "$@" \
    "${ON_SVC[@]}" ${SVC_UNDER:-} "${SVC_EXE:-$WORK/bin/svc-serve}" >>"$WORK/svc.log" 2>&1 &
  SVC_PID=$!
  await_server svc-serve "$SVC_PID" "$WORK/svc.log" "$HTTP/books?id=eq.1"
}
stop_svc() { kill "$SVC_PID" && wait "$SVC_PID" || true; SVC_PID=; }
# start_unprepared starts a second svc-serve, UNPREP_PID, on UNPREPPORT
# with db-prepared-statements = false: every statement parsed and planned
# on each request, as behind a transaction pooler.
UNPREP_HTTP=http://127.0.0.1:$UNPREPPORT
start_unprepared() {
  local main=$SVC_PID
  HTTPPORT=$UNPREPPORT HTTP=$UNPREP_HTTP start_svc error SVC_DB_PREPARED_STATEMENTS=false
  UNPREP_PID=$SVC_PID SVC_PID=$main
}
# pREST, the peer: build_prestd, start_prest, stop_prest, prest_kind.
. deploy/bench/prest.sh
# PostgreSQL's floor: run_floor, floor_report.
. deploy/bench/floor.sh
# Large results: run_large, large_report.
. deploy/bench/large.sh
# The code a request runs through: run_footprint, footprint_report.
. deploy/bench/footprint.sh

# ---- Measuring --------------------------------------------------------------
# wrk_on_other KIND CONNS ARGS...: wrk on the load generator's cores with
# CONNS connections, paced to KIND's rate when RATE or RATE_<KIND> is set
# (pace.lua reads WRK_DELAY_MS).
wrk_on_other() {
  local rate_var=RATE_$1 conns=$2 delay=0
  shift 2
  local rate=${!rate_var:-$RATE}
  [ -n "$rate" ] && delay=$(((conns * 1000 + rate / 2) / rate))
  WRK_DELAY_MS=$delay "${ON_OTHER[@]}" wrk -t2 -c"$conns" "$@"
}

# rss_kb PID: the process's resident set now, in kB.
rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }

# cpu_ticks [PID]: a line of CPU times so far, in clock ticks, for
# cpu_split: the server's (PID's, by default svc-serve's); this script's
# exited children's (the load generator, once waited for); the whole
# machine's busy time (user, nice, system, irq, softirq; not steal, which
# the hypervisor took); the postmaster's own plus its reaped children's;
# then pid:ticks for each of its live children (the backends).
# /proc/PID/stat fields 14-17 are utime, stime, cutime and cstime; field 4
# is the parent.
cpu_ticks() {
  local svc=0 pid=${1:-$SVC_PID}
  [ -n "$pid" ] && svc=$(proc_ticks "$pid")
  echo "$svc $(awk '{print $16 + $17}' "/proc/$$/stat") $(awk '/^cpu / {print $2 + $3 + $4 + $7 + $8}' /proc/stat)" \
    "$(cat /proc/[0-9]*/stat 2>/dev/null | # cat: a process may exit between glob and read
      awk -v pm="$PM_PID" '$1 == pm {own = $14 + $15 + $16 + $17} $4 == pm {live = live " " $1 ":" ($14 + $15)} END {print own live}')"
}

# proc_ticks PID: the process's own user and system time, in clock ticks.
proc_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# cpu_split BEFORE AFTER SECONDS: "server PostgreSQL load-generator other" as
# percent of one core over the run. A backend that exits during the run
# lands in the postmaster's reaped-children time with its whole life, so
# what it had used before the run is taken off again. Other is whatever
# else ran on the machine (kernel work not charged to a process, other
# users' jobs): more than a few percent means the run was disturbed.
cpu_split() {
  printf '%s\n%s\n' "$1" "$2" | awk -v s="$3" -v hz="$(getconf CLK_TCK)" '
    NR == 1 {svc = -$1; gen = -$2; all = -$3; pg = -$4; for (i = 5; i <= NF; i++) {split($i, a, ":"); before[a[1]] = a[2]}}
    NR == 2 {svc += $1; gen += $2; all += $3; pg += $4
             for (i = 5; i <= NF; i++) {split($i, a, ":"); pg += a[2] - before[a[1]]; delete before[a[1]]}
             for (p in before) pg -= before[p]}
    END {f = 100 / hz / s; other = all - svc - pg - gen; if (other < 0) other = 0 # tick rounding
         printf "%.1f %.0f %.0f %.0f\n", svc * f, pg * f, gen * f, other * f}'
}

# run_wrk KIND CONNS: one timed wrk run against SVC, or against pREST
# when PEER=prest, or floorserver when PEER=floor, with the server's RSS
# sampled every half second;
# appends a line to $ROWS (rows.tsv).
ROWS=rows.tsv
PGROWS=pgbench.tsv
run_wrk() {
  local kind=$1 conns=$2 before after out="$WORK/wrk-$1-$2.txt"
  local pid=$SVC_PID url=$HTTP script=deploy/bench/$1.lua
  if [ "${PEER:-}" = prest ]; then pid=$PREST_PID url=$PREST_HTTP script=deploy/bench/prest/$1.lua; fi
  if [ "${PEER:-}" = floor ]; then pid=$FLOOR_PID url=$FLOOR_HTTP; fi
  if [ "${PEER:-}" = floorh ]; then pid=$FLOORH_PID url=$FLOORH_HTTP; fi
  if [ "${PEER:-}" = unprepared ]; then pid=$UNPREP_PID url=$UNPREP_HTTP; fi
  (while :; do rss_kb "$pid"; sleep 0.5; done) >"$WORK/rss.txt" 2>/dev/null &
  SAMPLER_PID=$!
  before=$(cpu_ticks "$pid")
  wrk_on_other "$kind" "$conns" -d"${DURATION}s" --latency -s "$script" "$url" >"$out"
  # wrk's last requests are cut off when it stops, and SVC closes the pool
  # connections whose statements it cancels; let their backends exit and be
  # reaped first, so this run counts them whole.
  sleep 0.5
  after=$(cpu_ticks "$pid")
  kill "$SAMPLER_PID"; wait "$SAMPLER_PID" 2>/dev/null || true; SAMPLER_PID=
  # Latencies in ms whatever unit wrk chose; errors are non-2xx/3xx
  # answers plus socket errors.
  awk -v kind="$kind" -v conns="$conns" -v rss="$(sort -n "$WORK/rss.txt" | tail -1)" -v cpu="$(cpu_split "$before" "$after" "$DURATION")" '
    function ms(v) {
      if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0
      if (v ~ /s$/) return v * 1000; if (v ~ /m$/) return v * 60000; return v
    }
    $1 == "50%" {p50 = ms($2)} $1 == "99%" {p99 = ms($2)} /^Requests\/sec/ {rps = $2}
    /Non-2xx/ {errors += $NF}
    /Socket errors/ {gsub(/,/, ""); errors += $4 + $6 + $8 + $10}
    END {printf "%s\t%s\t%.0f\t%.2f\t%.2f\t%.0f\t%d\t%s\n", kind, conns, rps, p50, p99, rss / 1024, errors, cpu}
  ' "$out" | tee -a "$WORK/$ROWS" | awk -F'\t' -v peer="${PEER:+$PEER, }" '{
    printf "  %swrk %3d conns: %7.0f req/s, p50 %.2f ms, p99 %.2f ms, RSS %s MiB, errors %s, CPU%% server/pg/loadgen/other %s\n", peer, $2, $3, $4, $5, $6, $7, $8 }' >&2
}

# run_pgbench KIND MODE [CLIENTS]: the same statements straight to PostgreSQL
# at the pool's 10 connections, or CLIENTS (another script when PGBENCH_FILE
# is set, as another role when PGBENCH_URI is, on svc-serve's cores when
# PGBENCH_CORES is svc); latency percentiles from
# pgbench's per-transaction log (-l: third field, microseconds). Appends a
# line to $PGROWS (pgbench.tsv), its mode field MODE, or MODE@CLIENTS for
# CLIENTS.
run_pgbench() {
  local kind=$1 mode=$2 clients=${3:-$POOL} label=$2${3:+@$3}
  local before after out="$WORK/pgbench-$1-$label.txt" logs="$WORK/pgblog/$1-$label"
  mkdir -p "$WORK/pgblog"
  local backends
  backends=$(pgrep -c -P "$PM_PID")
  before=$(cpu_ticks)
  local on=("${ON_OTHER[@]}")
  [ "${PGBENCH_CORES:-other}" = svc ] && on=("${ON_SVC[@]}")
  "${on[@]}" "$BIN/pgbench" -n -M "$mode" -c "$clients" -j 2 -T "$DURATION" -l --log-prefix="$logs" \
    -f "${PGBENCH_FILE:-deploy/bench/$kind.pgbench}" "${PGBENCH_URI:-$APP_URI}" >"$out" 2>"$WORK/pgbench.log"
  # pgbench's backends exit just after it does; count them in this run.
  for _ in $(seq 100); do [ "$(pgrep -c -P "$PM_PID")" -le "$backends" ] && break; sleep 0.02; done
  after=$(cpu_ticks)
  local tps failed
  tps=$(awk '/^tps/ {print $3; exit}' "$out")
  failed=$(awk '/failed transactions:/ {print $5}' "$out")
  cat "$logs".* | awk '{print $3}' | sort -n | awk -v kind="$kind" -v mode="$label" -v tps="$tps" -v failed="${failed:-?}" \
    -v cpu="$(cpu_split "$before" "$after" "$DURATION")" '
    {v[NR] = $1} END {printf "%s\t%s\t%.0f\t%.2f\t%.2f\t%s\t%s\n", kind, mode, tps, v[int(NR * 0.50) + 1] / 1000, v[int(NR * 0.99) + 1] / 1000, cpu, failed}
  ' | tee -a "$WORK/$PGROWS" | awk -F'\t' '{
    printf "  pgbench -M %-8s: %7.0f tps,   p50 %.2f ms, p99 %.2f ms, CPU%% svc/pg/loadgen/other %s, failed %s\n", $2, $3, $4, $5, $6, $7 }' >&2
  rm -f "$logs".*
}

# run_pairs KIND: PAIRS rounds of SVC under wrk at 32 connections and
# pgbench at 10, and pREST at 32 when it runs KIND, PAIR_SECONDS each, one
# straight after the other, into pairs-wrk.tsv, pairs-pgbench.tsv and
# pairs-prest.tsv. The machine's speed drifts over minutes (a whole
# workload's runs take two or three), and a ratio of two runs far apart
# carries that drift; within a round it falls on all alike. Each round
# starts with the next one, so a steady drift favours none.
run_pairs() {
  local kind=$1 i j parts=(svc pgbench)
  [ -n "$UNPREP_PID" ] && parts+=(unprepared extended)
  prest_kind "$kind" && parts+=(prest)
  floor_kind "$kind" && parts+=(floor floorh)
  for i in $(seq "$PAIRS"); do
    log "$kind: paired round $i of $PAIRS"
    for j in $(seq 0 $((${#parts[@]} - 1))); do
      case ${parts[$(((i - 1 + j) % ${#parts[@]}))]} in
      svc) DURATION=$PAIR_SECONDS ROWS=pairs-wrk.tsv run_wrk "$kind" 32 ;;
      pgbench) DURATION=$PAIR_SECONDS PGROWS=pairs-pgbench.tsv run_pgbench "$kind" prepared ;;
      prest) PEER=prest DURATION=$PAIR_SECONDS ROWS=pairs-prest.tsv run_wrk "$kind" 32 ;;
      floor) PEER=floor DURATION=$PAIR_SECONDS ROWS=pairs-floor.tsv run_wrk "$kind" 32 ;;
      floorh) PEER=floorh DURATION=$PAIR_SECONDS ROWS=pairs-floorh.tsv run_wrk "$kind" 32 ;;
      unprepared) PEER=unprepared DURATION=$PAIR_SECONDS ROWS=pairs-unprepared.tsv run_wrk "$kind" 32 ;;
      extended) DURATION=$PAIR_SECONDS PGROWS=pairs-extended.tsv run_pgbench "$kind" extended ;;
      esac
    done
  done
}

# ---- Checking the pgbench scripts against SVC --------------------------------
# pipeline_main FILE: the pgbench script's main statement as written: the
# pipeline's statement that is not the set-up (nor begin or commit, which
# SVC sends only for transactions that need them, nor the settings read
# after a streamed read, query.SettingsSQL).
pipeline_main() {
  awk '/^\\startpipeline/ {on = 1; next} /^\\endpipeline/ {on = 0}
       on && !/^begin / && !/^commit;/ && !/set_config\(.role./ && !/^select null::bigint as total_count, null::boolean/' "$1"
}

# main_statement FILE: pipeline_main in SVC's form: a /*$N*/-marked
# expression turned back into $N, and otherwise each pgbench variable
# numbered $1, $2, ... in order.
main_statement() {
  pipeline_main "$1" |
    perl -pe 's{/\*\$(\d+)\*/(\((?:[^()]++|(?2))*\))}{\$$1}g; s/;$//;
              my $n = 0; s/(?<![:\w]):[A-Za-z_]\w*/"\$" . ++$n/ge'
}

# check_sql: for each workload, one second of its wrk script against SVC
# logging its main statements (log-query), compared with the pgbench script's.
check_sql() {
  log "checking the pgbench scripts against the statements SVC sends ..."
  start_svc info SVC_LOG_QUERY=main-query SVC_LOG_FORMAT=json
  local kind svc_sql pgbench_sql failed=0
  for kind in $KINDS; do
    : >"$WORK/svc.log"
    "${ON_OTHER[@]}" wrk -t1 -c1 -d1s -s "deploy/bench/$kind.lua" "$HTTP" >/dev/null
    svc_sql=$(perl -MJSON::PP -ne 'my $l = eval { decode_json($_) } or next; $s = $l->{sql} if $l->{msg} eq "query"; END { print $s }' "$WORK/svc.log")
    pgbench_sql=$(main_statement "deploy/bench/$kind.pgbench")
    [ -n "$svc_sql" ] || die "SVC logged no statement for $kind.lua"
    if [ "$svc_sql" != "$pgbench_sql" ]; then
      failed=1
      log "$kind.pgbench no longer matches what SVC sends for $kind.lua. SVC sends:"
      echo "$svc_sql" >&2
    fi
  done
  stop_svc
  [ "$failed" = 0 ] || die "update the pgbench scripts above (or run with CHECK_SQL=0)"
}

# run_variants KIND: ROUNDS rounds of each variant in turn (see VARIANTS),
# into variants.tsv: the variant, the round, then run_wrk's line. Round i
# starts with the i-th variant (modulo their number), so none always runs
# first or after the same one.
run_variants() {
  local kind=$1 names i j v
  read -ra names <<<"$VARIANTS"
  for i in $(seq "$ROUNDS"); do
    for j in $(seq 0 $((${#names[@]} - 1))); do
      v=${names[$(((i - 1 + j) % ${#names[@]}))]}
      log "$kind: round $i of $ROUNDS, $v"
      # shellcheck disable=SC2086 # VAR=VALUE words, split on purpose
      SVC_EXE=$(variant_exe "$v" "$i") start_svc error ${VARIANT_ENV[$v]}
      wrk_on_other "$kind" 32 -d"${ROUND_WARMUP}s" -s "deploy/bench/$kind.lua" "$HTTP" >/dev/null
      : >"$WORK/variant-row.tsv"
      local perf_pid=
      if [ -n "$PERF_DIR" ]; then
        perf record -q -e cpu-clock -F 999 -g -o "$PERF_DIR/$kind-$v-$i.data" -p "$SVC_PID" -- sleep "$PAIR_SECONDS" 2>/dev/null &
        perf_pid=$!
      fi
      DURATION=$PAIR_SECONDS ROWS=variant-row.tsv run_wrk "$kind" 32
      [ -z "$perf_pid" ] || wait "$perf_pid" || log "perf record failed for $kind $v $i"
      stop_svc
      awk -v v="$v" -v i="$i" '{print v "\t" i "\t" $0}' "$WORK/variant-row.tsv" >>"$WORK/variants.tsv"
    done
  done
}

# run_at_once KIND: ROUNDS rounds in which the first variant and each other
# one serve at once (see AT_ONCE), into at-once.tsv: the workload, the
# variant, the round, then for the first and the variant: req/s, CPU µs
# per request (svc-serve's user and system time over the requests wrk
# completed) and wrk's errors. Which of the two starts first alternates.
run_at_once() {
  local kind=$1 names first i v
  read -ra names <<<"$VARIANTS"
  first=${names[0]}
  for i in $(seq "$ROUNDS"); do
    for v in "${names[@]:1}"; do
      log "$kind: round $i of $ROUNDS, $first and $v at once"
      local a b pid_a pid_b
      if ((i % 2)); then a=$first b=$v; else a=$v b=$first; fi
      # shellcheck disable=SC2086 # VAR=VALUE words, split on purpose
      SVC_EXE=$(variant_exe "$a" "$i") start_svc error ${VARIANT_ENV[$a]}
      pid_a=$SVC_PID
      # shellcheck disable=SC2086
      HTTPPORT=$ATONCEPORT HTTP=http://127.0.0.1:$ATONCEPORT SVC_EXE=$(variant_exe "$b" "$i") start_svc error ${VARIANT_ENV[$b]}
      pid_b=$SVC_PID
      SVC_PID=$pid_a # the clean-up stops it; pid_b is stopped below
      wrk_both "$kind" "$ROUND_WARMUP" /dev/null /dev/null
      local ta tb
      ta=$(proc_ticks "$pid_a") tb=$(proc_ticks "$pid_b")
      wrk_both "$kind" "$PAIR_SECONDS" "$WORK/at-once-a.txt" "$WORK/at-once-b.txt"
      ta="$ta $(proc_ticks "$pid_a")" tb="$tb $(proc_ticks "$pid_b")"
      kill "$pid_b" && wait "$pid_b" || true
      stop_svc
      local row_first row_v
      # shellcheck disable=SC2086 # the two tick counts, split on purpose
      row_first=$(at_once_row "$WORK/at-once-a.txt" $ta)
      # shellcheck disable=SC2086
      row_v=$(at_once_row "$WORK/at-once-b.txt" $tb)
      if [ "$a" != "$first" ]; then
        local t=$row_first
        row_first=$row_v row_v=$t
      fi
      printf '%s\t%s\t%s\t%s\t%s\n' "$kind" "$v" "$i" "$row_first" "$row_v" >>"$WORK/at-once.tsv"
      log "  $first: $(echo "$row_first" | awk '{print $1 " req/s, " $2 " µs/req"}'); $v: $(echo "$row_v" | awk '{print $1 " req/s, " $2 " µs/req"}')"
    done
  done
}

# wrk_both KIND SECONDS OUT_A OUT_B: KIND's load on both servers of an
# at-once round at the same time, wrk's reports into OUT_A and OUT_B.
wrk_both() {
  local script=deploy/bench/$1.lua wrk_pid # wait for it alone: the servers run in the background too
  wrk_on_other "$1" 16 -d"$2s" -s "$script" "$HTTP" >"$3" &
  wrk_pid=$!
  wrk_on_other "$1" 16 -d"$2s" -s "$script" "http://127.0.0.1:$ATONCEPORT" >"$4"
  wait "$wrk_pid"
}

# variants_legend: what each variant runs, for the report, and in how many
# layouts (LAYOUTS).
variants_legend() {
  local v spec_var
  for v in $VARIANTS; do
    spec_var=VARIANT_$v
    echo "- $v: ${!spec_var:-the work tree, as configured}"
  done
  if [ "$LAYOUTS" != 1 ]; then
    echo "- each variant built from source in $LAYOUTS layouts (its code shifted by padding of another size"
    echo "  in each), round i running each one's i-th"
  fi
}

# at_once_row WRK_OUTPUT TICKS_BEFORE TICKS_AFTER: "req/s<TAB>µs/req<TAB>errors"
# for one server of an at-once round.
at_once_row() {
  awk -v t0="$2" -v t1="$3" -v s="$PAIR_SECONDS" -v hz="$(getconf CLK_TCK)" '
    / requests in / {n = $1}
    /Non-2xx/ {errors += $NF}
    /Socket errors/ {gsub(/,/, ""); errors += $4 + $6 + $8 + $10}
    END {printf "%.0f\t%.1f\t%d\n", n / s, n ? (t1 - t0) / hz * 1e6 / n : 0, errors}' "$1"
}

# ---- Workloads ---------------------------------------------------------------
: >"$WORK/rows.tsv"
: >"$WORK/pgbench.tsv"
: >"$WORK/pairs-wrk.tsv"
: >"$WORK/pairs-pgbench.tsv"
: >"$WORK/pairs-prest.tsv"
: >"$WORK/pairs-floor.tsv"
: >"$WORK/pairs-floorh.tsv"
: >"$WORK/pairs-unprepared.tsv"
: >"$WORK/pairs-extended.tsv"
: >"$WORK/variants.tsv"
: >"$WORK/at-once.tsv"
: >"$WORK/footprint.tsv"
: >"$WORK/floor.tsv"
if [ -n "$KINDS" ] && [ -n "$VARIANTS" ]; then
  [ "$CHECK_SQL" = 1 ] && check_sql
  if [ "$FOOTPRINT" = 1 ]; then
    for kind in $KINDS; do run_footprint "$kind"; done
  elif [ "$AT_ONCE" = 1 ]; then
    for kind in $KINDS; do run_at_once "$kind"; done
  else
    for kind in $KINDS; do run_variants "$kind"; done
  fi
elif [ -n "$KINDS" ]; then
  [ "$CHECK_SQL" = 1 ] && check_sql
  start_svc error
  for kind in $KINDS; do
    if [ "$PAIRS" != 0 ] && prest_kind "$kind" && [ -z "$PREST_PID" ]; then
      build_prestd
      start_prest
    fi
    if [ "$PAIRS" != 0 ] && floor_kind "$kind" && [ -z "$FLOOR_PID" ]; then start_floorserver; fi
    if [ "$PAIRS" != 0 ] && [ "$UNPREPARED" = 1 ] && [ -z "$UNPREP_PID" ]; then start_unprepared; fi
    log "$kind: warming up for ${WARMUP} s, then ${DURATION} s per run"
    # Warms the pool's prepared statements and PostgreSQL's caches, for
    # pgbench's runs too.
    wrk_on_other "$kind" 32 -d"${WARMUP}s" -s "deploy/bench/$kind.lua" "$HTTP" >/dev/null
    if [ -n "$PREST_PID" ] && prest_kind "$kind"; then
      wrk_on_other "$kind" 32 -d"${WARMUP}s" -s "deploy/bench/prest/$kind.lua" "$PREST_HTTP" >/dev/null
    fi
    if [ -n "$UNPREP_PID" ]; then
      wrk_on_other "$kind" 32 -d"${WARMUP}s" -s "deploy/bench/$kind.lua" "$UNPREP_HTTP" >/dev/null
    fi
    if [ -n "$FLOOR_PID" ] && floor_kind "$kind"; then
      wrk_on_other "$kind" 32 -d"${WARMUP}s" -s "deploy/bench/$kind.lua" "$FLOOR_HTTP" >/dev/null
      wrk_on_other "$kind" 32 -d"${WARMUP}s" -s "deploy/bench/$kind.lua" "$FLOORH_HTTP" >/dev/null
    fi
    for conns in $CONNS; do run_wrk "$kind" "$conns"; done
    for mode in $MODES; do run_pgbench "$kind" "$mode"; done
    # The issue's p99 target can be read against pgbench at 10 connections
    # or at SVC's 32; this run gives the second.
    if [ "$EQUAL" = 1 ]; then run_pgbench "$kind" prepared 32; fi
    run_pairs "$kind"
    if [ "$FLOOR" = 1 ]; then run_floor "$kind"; fi
  done
fi

# ---- Bulk insert -------------------------------------------------------------
# 10,000 reviews in one request (JSON and CSV bodies) against COPY of the
# same rows in one psql session; best of five each.
if [ -n "$SVC_PID" ] && [ "$BULK" = 1 ]; then
  log "bulk insert of 10,000 rows ..."
  seq 1 10000 | awk 'BEGIN {printf "["} NR > 1 {printf ","} {printf "{\"book_id\":%d,\"rating\":%d,\"body\":\"bulk %d\"}", $1, 1 + $1 % 5, $1} END {print "]"}' >"$WORK/bulk.json"
  seq 1 10000 | awk 'BEGIN {print "book_id,rating,body"} {printf "%d,%d,bulk %d\n", $1, 1 + $1 % 5, $1}' >"$WORK/bulk.csv"
  best_post() {
    for _ in 1 2 3 4 5; do
      curl -sf -o /dev/null -w "%{time_total}\n" -X POST -H "Content-Type: $1" --data-binary "@$2" "$HTTP/reviews"
    done | sort -n | head -1 | awk '{printf "%.1f", $1 * 1000}'
  }
  BULK_JSON_MS=$(best_post application/json "$WORK/bulk.json")
  BULK_CSV_MS=$(best_post text/csv "$WORK/bulk.csv")
  BULK_COPY_MS=$(for _ in 1 2 3 4 5; do echo "\\copy bench.reviews(book_id, rating, body) from '$WORK/bulk.csv' csv header"; done |
    "$BIN/psql" -q -X -c '\timing on' -f - "$ADMIN_URI" | awk '/^Time:/ {print $2}' | sort -n | head -1 | awk '{printf "%.1f", $1}')
fi

# ---- Large results -------------------------------------------------------------
if [ "$LARGE" = 1 ]; then run_large; fi

# ---- Soak --------------------------------------------------------------------
# Mixed load for SOAK seconds at 32 connections, SVC's RSS sampled every
# 10 s, so growth over time shows; with FAULTS=1, faults.sh's soak instead.
if [ "$SOAK" != 0 ] && [ "$FAULTS" = 1 ]; then
  . deploy/bench/faults.sh
  soak_with_faults
elif [ "$SOAK" != 0 ]; then
  [ -n "$SVC_PID" ] || start_svc error
  log "soak: mixed load for ${SOAK} s ..."
  (start=$SECONDS; while :; do echo "$((SECONDS - start)) $(rss_kb "$SVC_PID")"; sleep 10; done) >"$WORK/soak-rss.txt" &
  SAMPLER_PID=$!
  wrk_on_other mixed 32 -d"${SOAK}s" -s deploy/bench/mixed.lua "$HTTP" >"$WORK/soak-wrk.txt"
  echo "$SOAK $(rss_kb "$SVC_PID")" >>"$WORK/soak-rss.txt"
  kill "$SAMPLER_PID"; wait "$SAMPLER_PID" 2>/dev/null || true; SAMPLER_PID=
fi
[ -n "$SVC_PID" ] && stop_svc
[ -n "$PREST_PID" ] && stop_prest

# ---- Cold start --------------------------------------------------------------
# The catalog benchmarks' synthetic schema (2,000 tables, 500 views, 500
# functions) in a database of its own, dumped to a snapshot; svc-serve then
# starts from that file five times, timed to its first 200.
if [ "$COLD" = 1 ]; then
  log "cold start: loading the synthetic schema ..."
  psql_admin -c "create database synth"
  "$WORK/bin/synthschema" -tables 2000 -views 500 -functions 500 |
    "$BIN/psql" -q -X -v ON_ERROR_STOP=1 "postgres://postgres@127.0.0.1:$PGPORT/synth" -f -
  # The roles are the fixture's, made here when the fixture was not loaded.
  "$BIN/psql" -q -X -v ON_ERROR_STOP=1 "postgres://postgres@127.0.0.1:$PGPORT/synth" <<'SQL'
do $$ begin
  if not exists (select from pg_roles where rolname = 'bench_anon') then
    create role bench_anon nologin;
    create role authenticator login noinherit;
    grant bench_anon to authenticator;
  end if;
end $$;
grant usage on schema synth to bench_anon;
grant select on all tables in schema synth to bench_anon;
SQL
  "$WORK/bin/svc-introspect" dump --db-uri "postgres://postgres@127.0.0.1:$PGPORT/synth" --db-schemas synth \
    -o "$WORK/synth.msgpack" >"$WORK/dump.txt"
  log "$(cat "$WORK/dump.txt")"
  : >"$WORK/cold.log"
  env SVC_DB_URI="postgres://authenticator@127.0.0.1:$PGPORT/synth" SVC_DB_SCHEMAS=synth SVC_DB_ANON_ROLE=bench_anon \
    SVC_SERVER_HOST=127.0.0.1 SVC_SERVER_PORT=$((HTTPPORT + 1)) SVC_LOG_LEVEL=info SVC_SNAPSHOT="$WORK/synth.msgpack" \
    "$WORK/bin/coldstart" -url "http://127.0.0.1:$((HTTPPORT + 1))/t1?limit=1" -runs 5 -log "$WORK/cold.log" \
    -- "$WORK/bin/svc-serve" >"$WORK/cold.txt"
  cat "$WORK/cold.txt" >&2
  # What svc-serve itself logs for reading the file, decoding and indexing.
  SNAP_LOAD_MS=$(grep -o 'schema snapshot loaded in [0-9]* ms' "$WORK/cold.log" | awk '{print $5}' | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
  log "BenchmarkLoadSnapshot (starts its own cluster) ..."
  LOADBENCH=$(go test -run '^$' -bench BenchmarkLoadSnapshot -benchtime 10x ./sql/catalog/ 2>&1 |
    awk '/^BenchmarkLoadSnapshot/ {
      for (i = 3; i < NF; i += 2) v[$(i + 1)] = $i
      printf "%.1f ms/op, %.1f MB/s, %.1f MiB allocated and %d allocations per load, %.1f MiB kept on the heap by a loaded snapshot",
        v["ns/op"] / 1e6, v["MB/s"], v["B/op"] / 1048576, v["allocs/op"], v["retained-MiB"]
    }')
fi

# ---- Report ------------------------------------------------------------------
echo "## SVC load benchmark, $(date -u +%F)"
echo
echo "- machine: $(nproc) cores, $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo), $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo) RAM"
echo "- SVC $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet HEAD 2>/dev/null || echo ' (with local changes)'), $(go version | awk '{print $3}'), PostgreSQL $("$BIN/postgres" --version | awk '{print $3}'), wrk $(wrk -v 2>&1 | awk 'NR == 1 {print $2}')"
echo "- load average before the run: $LOADAVG (other work on the machine skews every figure)"
echo "- PostgreSQL's glibc tunables (PG_MALLOC): ${PG_MALLOC:-none}"
if [ "$TOPOLOGY" = split ]; then
  echo "- topology: split, svc-serve on CPU $SVC_CPUS, PostgreSQL and the load generators on CPU $OTHER_CPUS (taskset)"
else
  echo "- topology: shared, svc-serve, PostgreSQL and the load generators on all $(nproc) cores"
fi
echo "- ${DURATION} s per run after a ${WARMUP} s warm-up; wrk -t2; SVC db-pool $POOL; pgbench -c $POOL -j 2${FIXTURE_SECONDS:+; dataset loaded in ${FIXTURE_SECONDS} s}"
if [ -s "$WORK/rows.tsv" ]; then
  # A run is disturbed when something else took more than 10% of a core.
  echo
  echo "| workload | wrk conns | SVC req/s | SVC p50 ms | SVC p99 ms | SVC max RSS MiB | pgbench tps (prepared) | pgbench p50 ms | pgbench p99 ms | SVC / pgbench |"
  echo "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
  awk -F'\t' 'NR == FNR {if ($2 == "prepared") {tps[$1] = $3; p50[$1] = $4; p99[$1] = $5; split($6, c, " "); bad[$1] = c[4] > 10}; next}
    {split($8, c, " "); mark = (c[4] > 10 || bad[$1]) ? " *" : ""
     r = ($1 in tps) && tps[$1] > 0 ? sprintf("%.2f%s", $3 / tps[$1], mark) : "-"
     printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6,
       ($1 in tps) ? tps[$1] : "-", ($1 in tps) ? p50[$1] : "-", ($1 in tps) ? p99[$1] : "-", r}' \
    "$WORK/pgbench.tsv" "$WORK/rows.tsv" | tee "$WORK/table.md"
  if grep -q ' \* |' "$WORK/table.md"; then
    echo
    echo "\\* one of the two runs was disturbed (other work took more than 10% of a core; see below): repeat it."
  fi
  echo
  echo "Every run: where the CPU went, in percent of one core ($(nproc) cores = $(($(nproc) * 100))%), and per request in"
  echo "microseconds; \"other\" is anything else on the machine. Errors are wrk's non-2xx answers and socket"
  echo "errors, pgbench's failed transactions. pgbench's extended mode parses and plans every statement."
  echo
  echo "| run | throughput | p50 ms | p99 ms | CPU SVC % | CPU PostgreSQL % | CPU load generator % | CPU other % | SVC µs/req | PostgreSQL µs/req | errors |"
  echo "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
  # Per request: percent of a core / 100 / (requests per second), in µs.
  awk -F'\t' '{split($8, c, " "); printf "| %s, wrk %s conns | %s req/s | %s | %s | %s | %s | %s | %s%s | %.0f | %.0f | %s |\n",
    $1, $2, $3, $4, $5, c[1], c[2], c[3], c[4], (c[4] > 10 ? " *" : ""), c[1] * 1e4 / $3, c[2] * 1e4 / $3, $7}' "$WORK/rows.tsv"
  awk -F'\t' '{split($6, c, " "); sub(/@/, ", clients ", $2); printf "| %s, pgbench -M %s | %s tps | %s | %s | %s | %s | %s | %s%s | - | %.0f | %s |\n",
    $1, $2, $3, $4, $5, c[1], c[2], c[3], c[4], (c[4] > 10 ? " *" : ""), c[2] * 1e4 / $3, $7}' "$WORK/pgbench.tsv"
  if grep -q $'\tprepared@32\t' "$WORK/pgbench.tsv"; then
    echo
    echo "p99 at 32 connections: SVC's against pgbench's at its 10 connections (the ratio's yardstick)"
    echo "and at 32, SVC's concurrency. By Little's law SVC's mean latency is 32 over its throughput,"
    echo "pgbench's at 10 clients 10 over its own: while SVC's throughput is below pgbench's, its mean"
    echo "latency is at least 3.2 times pgbench's at 10 clients."
    echo
    echo "| workload | SVC p99 ms | pgbench p99 ms, 10 clients | SVC / pgbench | pgbench p99 ms, 32 clients | SVC / pgbench |"
    echo "|---|--:|--:|--:|--:|--:|"
    awk -F'\t' 'NR == FNR {p99[$1 "/" $2] = $5; next}
      $2 == 32 && ($1 "/prepared") in p99 && ($1 "/prepared@32") in p99 {
        a = p99[$1 "/prepared"]; b = p99[$1 "/prepared@32"]
        printf "| %s | %s | %s | %.1fx | %s | %.1fx |\n", $1, $5, a, $5 / a, b, $5 / b}' \
      "$WORK/pgbench.tsv" "$WORK/rows.tsv"
  fi
fi
if [ -s "$WORK/pairs-wrk.tsv" ]; then
  echo
  echo "The ratio in $PAIRS rounds per workload of SVC at 32 connections and pgbench at 10, ${PAIR_SECONDS} s each,"
  echo "one straight after the other (alternating which goes first): the machine's speed drifts between"
  echo "runs minutes apart, as the table's are, and within a round it falls on both alike. Medians of the"
  echo "rounds; CPU in µs per request. \* marks a round disturbed by other work."
  echo
  echo "| workload | ratio per round | median ratio | SVC µs/req | PostgreSQL µs/req under SVC | PostgreSQL µs/req under pgbench |"
  echo "|---|---|--:|--:|--:|--:|"
  awk -F'\t' -f deploy/bench/stats.awk -f deploy/bench/pairs.awk "$WORK/pairs-pgbench.tsv" "$WORK/pairs-wrk.tsv"
fi
if [ -s "$WORK/pairs-unprepared.tsv" ]; then
  echo
  echo "Prepared statements off (db-prepared-statements = false, as behind a transaction pooler), in the"
  echo "same rounds: SVC unprepared against SVC prepared, and pgbench -M extended (every statement parsed"
  echo "and planned, as SVC then sends them) against -M prepared. Medians of the rounds, lowest to highest"
  echo "in parentheses; CPU in µs per request. \\* marks a disturbed round."
  echo
  echo "| workload | rounds | SVC unprepared req/s | SVC unprepared / prepared | pgbench -M extended tps | extended / prepared | SVC µs/req unprepared | PostgreSQL µs/req under SVC unprepared / prepared |"
  echo "|---|--:|--:|--:|--:|--:|--:|--:|"
  awk -F'\t' -f deploy/bench/stats.awk -f deploy/bench/modes.awk "$WORK/pairs-wrk.tsv" "$WORK/pairs-unprepared.tsv" \
    "$WORK/pairs-pgbench.tsv" "$WORK/pairs-extended.tsv"
fi
if [ -s "$WORK/pairs-prest.tsv" ]; then
  echo
  echo "SVC against pREST $PREST_VERSION (a Go server of the same kind) in the same rounds, each at 32 connections"
  echo "on svc-serve's cores, with pgbench on the same SQL as SVC beside them: medians of the rounds, lowest to"
  echo "highest in parentheses. µs/req is the server's own CPU time (/proc, user and system) per request;"
  echo "\"SVC / pREST\" divides SVC's figure by pREST's in each round. pREST runs lookup, page and insert"
  echo "(it answers an insert with the new row; SVC's insert returns nothing). \\* marks a disturbed round."
  echo
  echo "| workload | rounds | SVC req/s | pREST req/s | pgbench tps | req/s SVC / pREST | SVC µs/req | pREST µs/req | µs/req SVC / pREST | PostgreSQL µs/req under SVC / pREST / pgbench |"
  echo "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
  awk -F'\t' -f deploy/bench/stats.awk -f deploy/bench/peers.awk "$WORK/pairs-pgbench.tsv" "$WORK/pairs-prest.tsv" "$WORK/pairs-wrk.tsv"
fi
floor_report
if [ -s "$WORK/at-once.tsv" ]; then
  read -ra names <<<"$VARIANTS"
  echo
  echo "Variants at once (AT_ONCE): $ROUNDS rounds per workload; in each, ${names[0]} and another variant"
  echo "serve at the same time on svc-serve's core, each a fresh server under its own wrk -t2 -c16,"
  echo "${ROUND_WARMUP} s of warm-up, then ${PAIR_SECONDS} s. Each round's figure is the variant's CPU per request"
  echo "(svc-serve's user and system time) over ${names[0]}'s in the same seconds; with the two"
  echo "sharing the core and PostgreSQL, the figures alone are not a server's on its own."
  variants_legend
  echo
  echo "| workload | variant | CPU per request over ${names[0]}, rounds | median | ${names[0]} µs/req | variant µs/req | req/s ${names[0]} / variant | errors |"
  echo "|---|---|---|--:|--:|--:|--:|--:|"
  awk -F'\t' -f deploy/bench/stats.awk -f deploy/bench/atonce.awk "$WORK/at-once.tsv"
fi
if [ -s "$WORK/variants.tsv" ]; then
  read -ra names <<<"$VARIANTS"
  echo
  echo "Variants: $ROUNDS rounds per workload, each variant in turn (the order rotating), a fresh"
  echo "server each, ${ROUND_WARMUP} s of warm-up, then wrk -t2 -c32 for ${PAIR_SECONDS} s."
  paced=
  for kind in $KINDS; do
    rate_var=RATE_$kind
    [ -z "${!rate_var:-$RATE}" ] || paced+=" $kind ${!rate_var:-$RATE} req/s,"
  done
  [ -z "$paced" ] || echo "wrk paced (RATE; pace.lua) for about:${paced%,}."
  variants_legend
  echo
  echo "Medians of the rounds, lowest to highest in parentheses; SVC µs/req is svc-serve's CPU"
  echo "time (/proc, user and system) per request. \"vs ${names[0]}\" compares each round's req/s with"
  echo "${names[0]}'s in the same round (median difference, range). SVC's CPU per request rises as the"
  echo "throughput PostgreSQL allows falls, so the last two columns give it at one throughput for every"
  echo "variant, from a fit of SVC's CPU against its throughput (variants.awk says how), ± twice its"
  echo "standard error, and its difference from ${names[0]}'s. \\* marks a variant disturbed in a round"
  echo "(other work took more than 10% of a core)."
  echo
  echo "| workload | variant | rounds | req/s | SVC µs/req | p99 ms | req/s vs ${names[0]} | SVC µs/req at one throughput | vs ${names[0]} |"
  echo "|---|---|--:|--:|--:|--:|--:|--:|--:|"
  awk -F'\t' -v first="${names[0]}" -f deploy/bench/stats.awk -f deploy/bench/variants.awk "$WORK/variants.tsv"
fi
footprint_report
if [ -n "${BULK_JSON_MS:-}" ]; then
  echo
  echo "Bulk insert of 10,000 reviews, best of 5: SVC JSON body ${BULK_JSON_MS} ms, SVC CSV body ${BULK_CSV_MS} ms, psql \\copy ${BULK_COPY_MS} ms."
fi
if [ -s "$WORK/soak-rss.txt" ]; then
  echo
  echo "### Soak: ${SOAK} s of mixed load, 32 connections"
  echo
  awk '/^Requests\/sec/ {printf "%s req/s", $2} /Non-2xx/ {printf ", %s non-2xx", $NF} END {print ""}' "$WORK/soak-wrk.txt"
  echo
  echo "SVC RSS (MiB) every 10 s: $(awk '{printf "%s%.0f", (NR > 1 ? " " : ""), $2 / 1024}' "$WORK/soak-rss.txt")"
fi
if [ -s "$WORK/fault-checks.txt" ]; then
  fault_report
fi
large_report
if [ "$COLD" = 1 ]; then
  echo
  echo "### Cold start: process start to first 200, snapshot of 2,000 tables, 500 views, 500 functions"
  echo
  echo "- $(sed 's/^wrote [^:]*: //' "$WORK/dump.txt")"
  echo "- $(tr '\n' ';' <"$WORK/cold.txt" | sed 's/;$//; s/;/; /g')"
  echo "- svc-serve's own \"schema snapshot loaded\" (read, decode, index), median: ${SNAP_LOAD_MS:-?} ms"
  echo "- BenchmarkLoadSnapshot (warm, in-process): ${LOADBENCH:-not run}"
fi
exit "$FAULT_CHECKS_FAILED"
