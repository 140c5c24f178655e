# modes.awk: run.sh's table of the paired rounds with prepared statements
# off: per workload, SVC unprepared's throughput and its ratio to SVC
# prepared's in the same round, pgbench -M extended's and its ratio to -M
# prepared's, and CPU per request.
#
#   awk -F'\t' -f stats.awk -f modes.awk pairs-wrk.tsv pairs-unprepared.tsv \
#     pairs-pgbench.tsv pairs-extended.tsv
#
# The first two files are run_wrk's lines (kind, conns, req/s, p50, p99,
# RSS, errors, "CPU% svc pg loadgen other"), the last two run_pgbench's
# (kind, mode, tps, p50, p99, "CPU% ...", failed); the n-th round of a
# workload is its n-th line in each. A round is marked * when other work
# took more than 10% of a core during one of its runs.

{file = FILENAME == ARGV[1] ? 1 : FILENAME == ARGV[2] ? 2 : FILENAME == ARGV[3] ? 3 : 4}

file == 1 || file == 2 {
  n = ++count[file, $1]; split($8, c, " ")
  rate[file, $1, n] = $3; svccpu[file, $1, n] = c[1]; pgcpu[file, $1, n] = c[2]; bad[$1, n] = bad[$1, n] || c[4] > 10
  if (file == 2 && !($1 in seen)) {seen[$1] = 1; order[++kinds] = $1}
  next
}

{
  n = ++count[file, $1]; split($6, c, " ")
  rate[file, $1, n] = $3; bad[$1, n] = bad[$1, n] || c[4] > 10
}

END {
  for (k = 1; k <= kinds; k++) {
    w = order[k]; rounds = 0
    un = ""; ratio = ""; ext = ""; extratio = ""; svcus = ""; pgun = ""; pgpre = ""; marks = ""
    for (n = 1; n <= count[2, w]; n++) {
      if (rate[1, w, n] <= 0 || rate[2, w, n] <= 0) continue
      rounds++
      un = un " " rate[2, w, n]
      ratio = ratio " " rate[2, w, n] / rate[1, w, n]
      svcus = svcus " " svccpu[2, w, n] * 1e4 / rate[2, w, n]
      pgun = pgun " " pgcpu[2, w, n] * 1e4 / rate[2, w, n]
      pgpre = pgpre " " pgcpu[1, w, n] * 1e4 / rate[1, w, n]
      if (rate[3, w, n] > 0 && rate[4, w, n] > 0) {
        ext = ext " " rate[4, w, n]
        extratio = extratio " " rate[4, w, n] / rate[3, w, n]
      }
      if (bad[w, n]) marks = " *"
    }
    printf "| %s | %d%s | %s | %s | %s | %s | %s | %.0f / %.0f |\n", w, rounds, marks, spread(un, "%.0f"), spread(ratio, "%.2f"),
      spread(ext, "%.0f"), spread(extratio, "%.2f"), spread(svcus, "%.0f"), median(pgun), median(pgpre)
  }
}
