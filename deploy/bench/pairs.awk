# pairs.awk: run.sh's table of the paired rounds, one markdown row per
# workload: each round's ratio SVC/pgbench, their median, and the medians of
# SVC's and PostgreSQL's CPU per request.
#
#   awk -F'\t' -f stats.awk -f pairs.awk pairs-pgbench.tsv pairs-wrk.tsv
#
# The files are run_pgbench's and run_wrk's lines (see run.sh); the n-th
# round of a workload is its n-th line in each. A round is marked * when
# other work took more than 10% of a core during either of its runs.

# pgbench: kind, mode, tps, p50, p99, "CPU% svc pg loadgen other", failed.
FILENAME == ARGV[1] {
  n = ++pgn[$1]; split($6, c, " ")
  tps[$1, n] = $3; pgcpu[$1, n] = c[2]; bad[$1, n] = c[4] > 10
  next
}

# wrk: kind, conns, req/s, p50, p99, RSS, errors, "CPU% svc pg loadgen other".
{
  n = ++svcn[$1]; split($8, c, " ")
  if (!(($1, n) in tps) || tps[$1, n] <= 0 || $3 <= 0) next
  if (!($1 in seen)) {seen[$1] = 1; order[++kinds] = $1}
  r = $3 / tps[$1, n]
  rounds[$1] = rounds[$1] sprintf("%s%.2f%s", rounds[$1] == "" ? "" : ", ", r, (c[4] > 10 || bad[$1, n]) ? " *" : "")
  ratios[$1] = ratios[$1] " " r
  # Percent of a core / 100 / (requests per second), in µs.
  svc[$1] = svc[$1] " " c[1] * 1e4 / $3
  pgsvc[$1] = pgsvc[$1] " " c[2] * 1e4 / $3
  pgpg[$1] = pgpg[$1] " " pgcpu[$1, n] * 1e4 / tps[$1, n]
}

END {
  for (k = 1; k <= kinds; k++) {
    w = order[k]
    printf "| %s | %s | %.2f | %.0f | %.0f | %.0f |\n", w, rounds[w], median(ratios[w]), median(svc[w]), median(pgsvc[w]), median(pgpg[w])
  }
}
