# The code a request runs through (FOOTPRINT=1, with VARIANTS): each
# variant serves each workload once under valgrind's callgrind, one
# connection for FOOTPRINT_SECONDS (5) after a warm-up, and
# deploy/bench/footprint counts the lines of code run on at least half of
# the requests. On this machine a request's CPU follows those lines far
# more than its instructions (docs/benchmarks.md, "Where a request's CPU
# goes"), and outside Go's runtime the count stays within a few lines from
# one run of a build to the next, so it says at once which way a cut goes,
# where a CPU reading needs rounds across layouts; the load benchmark
# still says what the cut is worth. Needs valgrind. Sourced by run.sh
# after its functions are defined.

FOOTPRINT=${FOOTPRINT:-0}
FOOTPRINT_SECONDS=${FOOTPRINT_SECONDS:-5}
# FOOTPRINT_DIR (a directory): the profiles are kept there as
# KIND-VARIANT.out, for footprint's listing by function and its -base
# comparison of two variants; the run's own directory goes at its end.
FOOTPRINT_DIR=${FOOTPRINT_DIR:-}

# run_footprint KIND: each variant's first build under callgrind for KIND,
# into footprint.tsv: the workload, the variant, the requests profiled,
# instructions per request, the lines of code run, and the three packages
# with the most of them.
run_footprint() {
  local kind=$1 v out n
  mkdir -p "$WORK/footprint"
  for v in $VARIANTS; do
    out=$WORK/footprint/$kind-$v.out
    log "$kind: $v under callgrind"
    # Under valgrind a start takes many times as long; the runtime's
    # preemption signals, which valgrind may fail to deliver, are off, and
    # one thread runs Go code, as on svc-serve's own core.
    # shellcheck disable=SC2086 # VAR=VALUE words, split on purpose
    SVC_EXE=$(variant_exe "$v" 1) AWAIT_SECONDS=60 \
      SVC_UNDER="valgrind --tool=callgrind --dump-instr=yes --instr-atstart=no --callgrind-out-file=$out" \
      start_svc error ${VARIANT_ENV[$v]} GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1
    wrk_on_other "$kind" 4 -d3s -s "deploy/bench/$kind.lua" "$HTTP" >/dev/null
    callgrind_control -i on "$SVC_PID" >/dev/null 2>&1
    wrk_on_other "$kind" 1 -t1 -d"${FOOTPRINT_SECONDS}s" -s "deploy/bench/$kind.lua" "$HTTP" >"$WORK/footprint/wrk.txt"
    callgrind_control -i off "$SVC_PID" >/dev/null 2>&1
    callgrind_control -d "$SVC_PID" >/dev/null 2>&1
    stop_svc
    n=$(awk '/requests in/ {print $1}' "$WORK/footprint/wrk.txt")
    [ "${n:-0}" -gt 0 ] && [ -s "$out.1" ] || die "$v answered no request under callgrind (see $WORK/svc.log)"
    if [ -n "$FOOTPRINT_DIR" ]; then
      mkdir -p "$FOOTPRINT_DIR"
      cp "$out.1" "$FOOTPRINT_DIR/$kind-$v.out"
    fi
    "$WORK/bin/footprint" -requests "$n" -top 3 "$out.1" | awk -v k="$kind" -v v="$v" -v n="$n" '
      /^requests/ {ipr = $NF}
      /^hot/ {lines = $5; outside = $(NF - 3)}
      /^lines by package/ {p = 1; next}
      p && NF == 2 {pk = pk (pk == "" ? "" : ", ") $2 " " $1; if (++c == 3) p = 0}
      END {gsub("github.com/svc-dev/svc/", "", pk); print k "\t" v "\t" n "\t" ipr "\t" lines "\t" outside "\t" pk}' >>"$WORK/footprint.tsv"
  done
}

# footprint_report prints footprint.tsv's table.
footprint_report() {
  [ -s "$WORK/footprint.tsv" ] || return 0
  echo
  echo "The code a request runs through (FOOTPRINT): each variant under callgrind, one connection for"
  echo "${FOOTPRINT_SECONDS} s after a warm-up; lines of code (64 bytes) holding an instruction run on at least half of the"
  echo "requests, those outside Go's runtime (whose count moves with how often the collector ran), and the"
  echo "packages with the most."
  [ -z "$FOOTPRINT_DIR" ] || echo "The profiles are in $FOOTPRINT_DIR, KIND-VARIANT.out, for deploy/bench/footprint."
  echo
  echo "| workload | variant | requests | instructions per request | lines of code | outside the runtime | most lines |"
  echo "|---|---|--:|--:|--:|--:|---|"
  awk -F'\t' '{printf "| %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7}' "$WORK/footprint.tsv"
}
