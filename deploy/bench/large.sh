# Large results (LARGE=1): what a read of 10 MB, 200 MB and 2 GB costs,
# as JSON, CSV and JSON Lines, one at a time and 16 at once (2 GB: one at
# a time only, 16 would be 32 GB), against COPY ... TO STDOUT through psql
# on the same rows as the limit. Sourced by run.sh after its functions are
# defined; svc-serve runs as it starts by default (db-pool 10, the
# response buffers' defaults).
#
# For each run: the time to the first byte (median of the clients) and to
# the last (the slowest), the throughput of all clients together in MB/s,
# svc-serve's peak RSS over its idle RSS (VmHWM, reset before the run
# through /proc/PID/clear_refs), and the most a PostgreSQL backend's
# private memory (RssAnon, sampled every 100 ms) grew over what it held
# before the run. Non-200 answers are counted: with 16 clients and a pool
# of 10, the six that wait for a session past db-pool-acquisition-timeout
# (10 s) are answered 504.
#
# The rows: bench.large, LARGE_ROWS (21,000,000) of about 95 bytes of JSON
# each, unlogged; a size reads the first rows that make it up.

LARGE=${LARGE:-0}
LARGE_ROWS=${LARGE_ROWS:-21000000}
LARGE_SIZES=${LARGE_SIZES:-10 200 2000}
LARGE_MEDIA=${LARGE_MEDIA:-json csv jsonl}

# large_rows MB: the rows whose JSON makes about MB megabytes.
large_rows() { echo $(($1 * 1000000 / 95)); }

# large_accept MEDIA: the Accept header of MEDIA.
large_accept() {
  case $1 in
  json) echo application/json ;;
  csv) echo text/csv ;;
  jsonl) echo application/x-ndjson ;;
  esac
}

# backend_anon: "pid RssAnon-kB" of every PostgreSQL backend now.
backend_anon() {
  local pid
  for pid in $(pgrep -P "$PM_PID"); do
    awk -v p="$pid" '/^RssAnon/ {print p, $2}' "/proc/$pid/status" 2>/dev/null || true
  done
}

# run_large_one MB MEDIA CLIENTS: one run, a line of large.tsv.
run_large_one() {
  local mb=$1 media=$2 clients=$3 rows idle
  rows=$(large_rows "$mb")
  backend_anon >"$WORK/large-before.txt"
  (while :; do backend_anon; sleep 0.1; done) >"$WORK/large-samples.txt" &
  SAMPLER_PID=$!
  idle=$(rss_kb "$SVC_PID")
  echo 5 >"/proc/$SVC_PID/clear_refs"
  local start=$EPOCHREALTIME pids=()
  : >"$WORK/large-curl.txt"
  for _ in $(seq "$clients"); do
    curl -s -o /dev/null -H "Accept: $(large_accept "$media")" \
      -w "%{time_starttransfer} %{time_total} %{size_download} %{http_code}\n" \
      "$HTTP/large?limit=$rows" >>"$WORK/large-curl.txt" &
    pids+=($!)
  done
  wait "${pids[@]}" || true
  local secs
  secs=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN {print b - a}')
  kill "$SAMPLER_PID" && wait "$SAMPLER_PID" 2>/dev/null || true
  SAMPLER_PID=
  local peak
  peak=$(awk '/^VmHWM/ {print $2}' "/proc/$SVC_PID/status")
  local backend
  backend=$(awk 'NR == FNR {base[$1] = $2; next} ($1 in base) && $2 - base[$1] > max {max = $2 - base[$1]} END {print max + 0}' \
    "$WORK/large-before.txt" "$WORK/large-samples.txt")
  # Sorted by the first byte's time, so the median is the middle line.
  sort -n "$WORK/large-curl.txt" | awk -v mb="$mb" -v media="$media" -v clients="$clients" -v secs="$secs" \
    -v idle="$idle" -v peak="$peak" -v backend="$backend" '
    { first[NR] = $1; if ($2 > last) last = $2; bytes += $3; if ($4 != 200) bad++ }
    END {
      printf "%s\t%s\t%d\t%.3f\t%.2f\t%.0f\t%.0f\t%.0f\t%.1f\t%d\n", mb, media, clients, first[int((NR + 1) / 2)], last,
        bytes / 1e6 / secs, (peak - idle) / 1024, backend / 1024, bytes / 1e6 / clients, bad
    }' >>"$WORK/large.tsv"
}

# run_large: the large-result runs, and COPY's for each size.
run_large() {
  log "large results: loading ${LARGE_ROWS} rows ..."
  psql_admin <<SQL
create unlogged table bench.large as
  select g as id, md5(g::text) as a, g * 7 as b, timestamptz '2026-01-01' + g * interval '1 second' as c
  from generate_series(1, $LARGE_ROWS) g;
alter table bench.large add primary key (id);
grant select on bench.large to bench_anon;
vacuum analyze bench.large;
SQL
  [ -n "$SVC_PID" ] && stop_svc
  start_svc error
  curl -s -o /dev/null "$HTTP/large?limit=1"
  for mb in $LARGE_SIZES; do
    local rows
    rows=$(large_rows "$mb")
    for media in $LARGE_MEDIA; do
      for clients in 1 16; do
        [ "$mb" -ge 1000 ] && [ "$clients" != 1 ] && continue
        log "large results: $mb MB as $media, $clients at once ..."
        run_large_one "$mb" "$media" "$clients"
      done
    done
    log "large results: $mb MB through COPY ..."
    local start=$EPOCHREALTIME bytes
    bytes=$("$BIN/psql" -X -q "$ADMIN_URI" -c "copy (select * from bench.large limit $rows) to stdout with (format csv)" | wc -c)
    awk -v mb="$mb" -v bytes="$bytes" -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN {printf "%s\t%.2f\t%.0f\n", mb, b - a, bytes / 1e6 / (b - a)}' >>"$WORK/large-copy.tsv"
  done
}

# large_report: the table of the runs.
large_report() {
  [ -s "$WORK/large.tsv" ] || return 0
  echo
  echo "### Large results"
  echo
  echo "bench.large's first rows, as svc-serve starts by default; first byte: the clients' median, s;"
  echo "total: the slowest client, s; MB/s: all clients' bytes over the run's time; RSS: svc-serve's"
  echo "peak over its idle, MiB; backend: the most a PostgreSQL backend's private memory grew, MiB;"
  echo "body: MB each; errors: answers other than 200."
  echo
  echo "| size | media | clients | first byte | total | MB/s | svc-serve RSS | backend | body | errors |"
  echo "|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|"
  awk -F'\t' '{printf "| %s MB | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10}' "$WORK/large.tsv"
  echo
  echo "COPY (select * from bench.large limit N) TO STDOUT (FORMAT csv) through psql, the limit:"
  echo
  awk -F'\t' '{printf "- %s MB of JSON'"'"'s rows: %s s, %s MB/s of CSV\n", $1, $2, $3}' "$WORK/large-copy.tsv"
}
