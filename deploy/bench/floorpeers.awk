# floorpeers.awk: floor.sh's table of SVC against floorserver, floorh and pREST in
# the paired rounds, one markdown row per workload floorserver ran: each
# server's own CPU per request, and the ratios taken round by round, SVC's
# req/s over floorserver's among them: the throughput floorserver reaches
# with SVC's statements is the most any server on svc-serve's core could.
#
#   awk -F'\t' -f stats.awk -f floorpeers.awk pairs-wrk.tsv pairs-floor.tsv pairs-floorh.tsv pairs-prest.tsv
#
# The files are run_wrk's lines (see run.sh); the n-th round of a workload
# is its n-th line in each. A round is marked * when other work took more
# than 10% of a core during one of its runs.

# A run_wrk line: kind, conns, req/s, p50, p99, RSS, errors, "server pg
# loadgen other" in percent of a core.
{
  split($8, c, " ")
  file = FILENAME ~ /pairs-floor\.tsv$/ ? "floor" : FILENAME ~ /pairs-floorh\.tsv$/ ? "floorh" : FILENAME ~ /pairs-prest\.tsv$/ ? "prest" : "svc"
  n = ++count[file, $1]
  rps[file, $1, n] = $3
  us[file, $1, n] = $3 > 0 ? c[1] * 1e4 / $3 : 0
  if (c[4] > 10) bad[$1, n] = 1
  if (file == "floor" && !($1 in seen)) {seen[$1] = 1; order[++kinds] = $1}
}

END {
  for (i = 1; i <= kinds; i++) {
    k = order[i]
    rounds = count["floor", k]
    sv = fl = fh = pr = sf = sh = fp = sp = rf = ""
    for (n = 1; n <= rounds; n++) {
      sv = sv " " us["svc", k, n]; fl = fl " " us["floor", k, n]
      if (us["floor", k, n] > 0) sf = sf " " us["svc", k, n] / us["floor", k, n]
      if (count["floorh", k] >= n) {
        fh = fh " " us["floorh", k, n]
        if (us["floorh", k, n] > 0) sh = sh " " us["svc", k, n] / us["floorh", k, n]
      }
      if (rps["floor", k, n] > 0) rf = rf " " rps["svc", k, n] / rps["floor", k, n]
      if (count["prest", k] >= n) {
        pr = pr " " us["prest", k, n]
        if (us["prest", k, n] > 0) {fp = fp " " us["floor", k, n] / us["prest", k, n]; sp = sp " " us["svc", k, n] / us["prest", k, n]}
      }
      if (bad[k, n]) marked = 1
    }
    rs = sprintf("%.0f / %.0f / %s", median(rpsList("svc", k, rounds)), median(rpsList("floor", k, rounds)),
      count["prest", k] ? sprintf("%.0f", median(rpsList("prest", k, count["prest", k]))) : "-")
    printf "| %s | %d%s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", k, rounds, marked ? " *" : "",
      spread(sv, "%.0f"), spread(fl, "%.0f"), spread(fh, "%.0f"), spread(pr, "%.0f"), spread(sf, "%.2f"), spread(sh, "%.2f"),
      spread(fp, "%.2f"), spread(sp, "%.2f"), rs, spread(rf, "%.2f")
    marked = 0
  }
}

function rpsList(file, k, rounds,   n, l) {
  for (n = 1; n <= rounds; n++) l = l " " rps[file, k, n]
  return l
}
