# peers.awk: run.sh's table of SVC against pREST in the paired rounds, one
# markdown row per workload pREST ran: each server's req/s and own CPU per
# request, their ratios per round, pgbench's tps beside them, and
# PostgreSQL's CPU per request under each.
#
#   awk -F'\t' -f stats.awk -f peers.awk pairs-pgbench.tsv pairs-prest.tsv pairs-wrk.tsv
#
# The files are run_pgbench's and run_wrk's lines (see run.sh); the n-th
# round of a workload is its n-th line in each. A round is marked * when
# other work took more than 10% of a core during one of its runs.

# pgbench: kind, mode, tps, p50, p99, "CPU% server pg loadgen other", failed.
FILENAME == ARGV[1] {
  n = ++pgn[$1]; split($6, c, " ")
  tps[$1, n] = $3; pgcpu[$1, n] = c[2]; bad[$1, n] = c[4] > 10
  next
}

# pREST, under wrk: kind, conns, req/s, p50, p99, RSS, errors, "CPU% ...".
FILENAME == ARGV[2] {
  n = ++pn[$1]; split($8, c, " ")
  prps[$1, n] = $3; pcpu[$1, n] = c[1]; ppg[$1, n] = c[2]; pbad[$1, n] = c[4] > 10; perr[$1] += $7
  next
}

# SVC, under wrk: the same fields.
{
  n = ++sn[$1]; split($8, c, " ")
  if (!(($1, n) in prps) || prps[$1, n] <= 0 || $3 <= 0 || pcpu[$1, n] <= 0) next
  if (!($1 in seen)) {seen[$1] = 1; order[++kinds] = $1}
  rounds[$1]++
  if (c[4] > 10 || pbad[$1, n] || bad[$1, n]) marked[$1] = " *"
  svcrps[$1] = svcrps[$1] " " $3
  prestrps[$1] = prestrps[$1] " " prps[$1, n]
  if (($1, n) in tps) pgtps[$1] = pgtps[$1] " " tps[$1, n]
  rr[$1] = rr[$1] " " $3 / prps[$1, n]
  # Percent of a core / 100 / (requests per second), in µs.
  s = c[1] * 1e4 / $3; p = pcpu[$1, n] * 1e4 / prps[$1, n]
  svcus[$1] = svcus[$1] " " s; prestus[$1] = prestus[$1] " " p; cr[$1] = cr[$1] " " s / p
  pgsvc[$1] = pgsvc[$1] " " c[2] * 1e4 / $3
  pgprest[$1] = pgprest[$1] " " ppg[$1, n] * 1e4 / prps[$1, n]
  if (($1, n) in tps && tps[$1, n] > 0) pgpg[$1] = pgpg[$1] " " pgcpu[$1, n] * 1e4 / tps[$1, n]
}

END {
  for (k = 1; k <= kinds; k++) {
    w = order[k]
    printf "| %s%s | %d | %s | %s | %s | %s | %s | %s | %s | %.0f / %.0f / %s |\n", w, marked[w], rounds[w],
      spread(svcrps[w], "%.0f"), spread(prestrps[w], "%.0f"), pgtps[w] == "" ? "-" : spread(pgtps[w], "%.0f"),
      spread(rr[w], "%.2f"), spread(svcus[w], "%.0f"), spread(prestus[w], "%.0f"), spread(cr[w], "%.2f"),
      median(pgsvc[w]), median(pgprest[w]), pgpg[w] == "" ? "-" : sprintf("%.0f", median(pgpg[w]))
    if (perr[w] > 0) printf "\npREST answered %d requests of %s with an error.\n\n", perr[w], w > "/dev/stderr"
  }
}
