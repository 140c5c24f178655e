# The soak with faults, sourced by run.sh when FAULTS=1 (it uses run.sh's
# settings and functions: start_svc, rss_kb, psql_admin, as_pg, log):
# SOAK seconds of mixed load at 32 connections while SVC's database
# sessions are terminated, its database restarts and it is told to reload,
# then checks, after the load, that SVC still serves and has leaked neither
# goroutines, database sessions nor memory.
#
# SVC's sessions are those named "svc", the application_name it gives
# every session when db-uri names none. Every loop ends by itself after
# SOAK seconds; run.sh's clean-up stops what is left.

ADMIN=http://127.0.0.1:$ADMINPORT
# Above the warm baseline after the load: a scrape, a probe or a closing
# connection may be in flight, but a goroutine leaked per fault (dozens of
# faults) would show.
GOROUTINE_MARGIN=10

# svc_sessions: SVC's sessions as "pool listening": the pool's (and
# reloads') sessions, and the LISTEN one, whose last statement is its
# LISTEN; "- -" when the database does not answer.
svc_sessions() {
  PGCONNECT_TIMEOUT=3 psql_admin -At -F' ' -c "select count(*) filter (where query !~* '^\s*listen '),
    count(*) filter (where query ~* '^\s*listen ') from pg_stat_activity where application_name = 'svc'" 2>/dev/null ||
    echo "- -"
}

# metric SERIES: its value in SVC's /metrics, or - when it does not answer.
metric() {
  curl -s --max-time 3 "$ADMIN/metrics" 2>/dev/null | awk -v s="$1" '$1 == s {v = $2} END {print (v == "" ? "-" : v)}'
}

# answers: SVC's answers so far by status class, "2xx 4xx 5xx", from
# svc_http_requests_total.
answers() {
  curl -s --max-time 3 "$ADMIN/metrics" 2>/dev/null | awk '/^svc_http_requests_total\{/ {
    match($1, /code="[0-9]xx"/); n[substr($1, RSTART + 6, 3)] += $2} END {printf "%d %d %d\n", n["2xx"], n["4xx"], n["5xx"]}'
}

# status URL: the HTTP status URL answers, 000 for none.
status() { curl -s -o /dev/null --max-time 3 -w '%{http_code}' "$1" 2>/dev/null || true; }

# fault_sample LABEL: "LABEL rss_kb goroutines pool listening".
fault_sample() {
  echo "$1 $(rss_kb "$SVC_PID" 2>/dev/null || echo -) $(metric go_goroutines) $(svc_sessions)"
}

# fault_loop: every 5 s a NOTIFY, alternately 'reload schema' and 'reload
# config'; every 15 s pg_terminate_backend of all SVC's sessions; once, at
# half-time, a fast restart of the database (sessions cut, a checkpoint,
# start-up). Each on a schedule of its own, so a slow restart does not
# space out the rest. One "t event" line per fault.
fault_loop() {
  local start=$SECONDS t notify_at=5 kill_at=15 restart_at=$((SOAK / 2)) n=0 payload
  while t=$((SECONDS - start)); [ "$t" -lt "$SOAK" ]; do
    if [ "$restart_at" -ge 0 ] && [ "$t" -ge "$restart_at" ]; then
      restart_at=-1
      if pg_ctl_tuned -m fast -w -t 60 restart >/dev/null 2>&1; then
        echo "$t restart $((SECONDS - start - t))"
      else
        echo "$t restart-failed"
      fi
    fi
    if [ "$t" -ge "$notify_at" ]; then
      notify_at=$((notify_at + 5))
      payload=$([ $((n % 2)) = 0 ] && echo 'reload schema' || echo 'reload config')
      n=$((n + 1))
      if PGCONNECT_TIMEOUT=3 psql_admin -c "notify svc, '$payload'" 2>/dev/null; then
        echo "$t notify"
      else
        echo "$t notify-failed"
      fi
    fi
    if [ "$t" -ge "$kill_at" ]; then
      kill_at=$((kill_at + 15))
      echo "$t terminate $(PGCONNECT_TIMEOUT=3 psql_admin -At -c "select count(*) filter (where pg_terminate_backend(pid))
        from pg_stat_activity where application_name = 'svc'" 2>/dev/null || echo -)"
    fi
    sleep 1
  done
}

# fault_sampler: a fault_sample every 10 s of the soak.
fault_sampler() {
  local start=$SECONDS t
  while t=$((SECONDS - start)); [ "$t" -lt "$SOAK" ]; do
    fault_sample "$t"
    sleep $((10 - (SECONDS - start) % 10))
  done
}

# fault_checks BASE FIRST END: the verdict lines, "PASS ..." or "FAIL
# ...", for samples BASE (quiet, after the warm-up), FIRST (the soak's
# first) and END (quiet, after the soak).
fault_checks() {
  local ready items
  ready=$(status "$ADMIN/ready")
  items=$(status "$HTTP/books?id=eq.1")
  if kill -0 "$SVC_PID" 2>/dev/null && [ "$ready" = 200 ] && [ "$items" = 200 ]; then
    echo "PASS svc-serve runs, /ready $ready, GET /books $items"
  else
    echo "FAIL svc-serve: $(kill -0 "$SVC_PID" 2>/dev/null && echo runs || echo exited), /ready $ready, GET /books $items"
  fi
  printf '%s %s %s\n' "$1" "$2" "$3" | awk -v margin="$GOROUTINE_MARGIN" -v pool="$POOL" -v listener="$(metric svc_listener_connected)" '
    function check(ok, what) {printf "%s %s\n", ok ? "PASS" : "FAIL", what}
    {base_g = $3; first_rss = $7; end_rss = $12; end_g = $13; end_pool = $14; end_listen = $15}
    END {
      check(end_g != "-" && end_g <= base_g + margin, sprintf("goroutines after the load: %s; %s after the warm-up (limit %d)", end_g, base_g, base_g + margin))
      check(end_pool != "-" && end_pool <= pool, sprintf("SVC sessions after the load: %s (limit: db-pool %d) besides the LISTEN one", end_pool, pool))
      check(end_listen == 1 && listener == 1, sprintf("LISTEN sessions after the load: %s, svc_listener_connected %s (want 1 and 1)", end_listen, listener))
      check(end_rss != "-" && end_rss <= 1.5 * first_rss, sprintf("RSS after the load: %s MiB; %.0f MiB at the first sample (limit %.0f)",
        end_rss == "-" ? "-" : sprintf("%.0f", end_rss / 1024), first_rss / 1024, 1.5 * first_rss / 1024))
    }'
}

# soak_with_faults: the soak; the report's parts go to fault-*.txt files
# for fault_report, and FAULT_CHECKS_FAILED is set to 1 when a check fails.
soak_with_faults() {
  # A fresh SVC with its admin server, whose /metrics counts goroutines.
  [ -n "$SVC_PID" ] && stop_svc
  start_svc error SVC_ADMIN_SERVER_HOST=127.0.0.1 SVC_ADMIN_SERVER_PORT="$ADMINPORT"
  log "soak with faults: warming up for ${WARMUP} s ..."
  "${ON_OTHER[@]}" wrk -t2 -c32 -d"${WARMUP}s" -s deploy/bench/mixed.lua "$HTTP" >/dev/null
  sleep 5 # quiet: wrk's connections close and their goroutines end
  fault_sample warm >"$WORK/fault-base.txt"
  answers >"$WORK/fault-answers.txt"
  log "soak: mixed load for ${SOAK} s with faults ..."
  fault_loop >"$WORK/fault-events.txt" &
  FAULT_PID=$!
  fault_sampler >"$WORK/fault-samples.txt" &
  SAMPLER_PID=$!
  "${ON_OTHER[@]}" wrk -t2 -c32 -d"${SOAK}s" -s deploy/bench/mixed.lua "$HTTP" >"$WORK/fault-wrk.txt"
  answers >>"$WORK/fault-answers.txt"
  wait "$FAULT_PID" "$SAMPLER_PID" || true
  FAULT_PID= SAMPLER_PID=
  PM_PID=$(head -1 "$WORK/data/postmaster.pid") # the restart's postmaster
  # Quiet: 5 s, then up to 10 s more while sessions cut by the last
  # fault are noticed and the LISTEN session reconnects.
  log "soak: load stopped; settling ..."
  sleep 5
  local checks
  for _ in $(seq 10); do
    fault_sample end >"$WORK/fault-end.txt"
    checks=$(fault_checks "$(cat "$WORK/fault-base.txt")" "$(head -1 "$WORK/fault-samples.txt")" "$(cat "$WORK/fault-end.txt")")
    grep -q '^FAIL' <<<"$checks" || break
    sleep 1
  done
  echo "$checks" >"$WORK/fault-checks.txt"
  if grep -q '^FAIL' "$WORK/fault-checks.txt"; then FAULT_CHECKS_FAILED=1; fi
  echo "$(metric 'svc_snapshot_reloads_total{result="success"}') $(metric 'svc_snapshot_reloads_total{result="failure"}')" \
    "$(metric 'svc_config_reloads_total{result="success"}') $(metric 'svc_config_reloads_total{result="failure"}')" >"$WORK/fault-reloads.txt"
  sed 's/^/  /' "$WORK/fault-checks.txt" >&2
}

# fault_report: the soak's section of the report (markdown).
fault_report() {
  echo
  echo "### Soak with faults: ${SOAK} s of mixed load, 32 connections, SVC db-pool $POOL"
  echo
  # wrk's errors: non-2xx/3xx answers and socket errors, expected while
  # the faults last, so reported and not checked.
  awk '/requests in/ {n = $1} /^Requests\/sec/ {rps = $2} /Non-2xx/ {non2xx = $NF}
    /Socket errors/ {gsub(/,/, ""); sock = sprintf("connect %d, read %d, write %d, timeout %d", $4, $6, $8, $10)}
    END {printf "- wrk: %s requests, %.0f req/s; %d non-2xx answers; socket errors: %s\n", n, rps, non2xx, sock == "" ? "none" : sock}' \
    "$WORK/fault-wrk.txt"
  awk '$2 == "notify" {ok++} $2 == "notify-failed" {failed++} $2 == "terminate" {k++; s += $3}
    $2 == "restart" {r = sprintf("at %d s, back after %d s", $1, $3)} $2 == "restart-failed" {r = sprintf("at %d s FAILED", $1)}
    END {printf "- faults: %d NOTIFYs (alternately reload schema and reload config; %d failed); " \
      "%d rounds of pg_terminate_backend, %d sessions ended; database restart (pg_ctl restart -m fast) %s\n", ok, failed, k, s, r}' \
    "$WORK/fault-events.txt"
  # A 4xx here is normally a 499: a request wrk cut off when it stopped.
  awk 'NR == 1 {for (i = 1; i <= 3; i++) before[i] = $i}
    NR == 2 {printf "- SVC answered during the soak (svc_http_requests_total): %d 2xx, %d 4xx, %d 5xx\n", $1 - before[1], $2 - before[2], $3 - before[3]}' \
    "$WORK/fault-answers.txt"
  read -r ss sf cs cf <"$WORK/fault-reloads.txt"
  echo "- SVC's reloads: schema $ss succeeded, $sf failed; configuration $cs succeeded, $cf failed"
  echo
  echo "| sample (s) | SVC RSS MiB | goroutines | SVC sessions (pool, reloads) | LISTEN sessions |"
  echo "|---|--:|--:|--:|--:|"
  cat "$WORK/fault-base.txt" "$WORK/fault-samples.txt" "$WORK/fault-end.txt" | awk '
    {label = $1 == "warm" ? "after the warm-up, quiet" : $1 == "end" ? "after the load, quiet" : $1
     printf "| %s | %s | %s | %s | %s |\n", label, $2 == "-" ? "-" : sprintf("%.0f", $2 / 1024), $3, $4, $5}'
  echo
  sed 's/^\(PASS\|FAIL\) /- **\1** /' "$WORK/fault-checks.txt"
}
