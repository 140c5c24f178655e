# floor.awk: floor.sh's table, one markdown row per workload: PostgreSQL's
# CPU per transaction for each part (median of the rounds, lowest to
# highest), and SVC's pipeline less pREST's statement.
#
#   awk -F'\t' -f stats.awk -f floor.awk floor.tsv
#
# floor.tsv lines are run_pgbench's with the part in the mode's field:
# kind, part, tps, p50, p99, "svc pg loadgen other" (percent of a core),
# failed transactions.

function cell(k, p,   v, n) {
  if (!((k, p) in us)) return "-"
  n = sorted(us[k, p], v)
  return sprintf("%.0f (%.0f-%.0f)%s", median(us[k, p]), v[1], v[n], bad[k, p] ? " *" : "")
}

{
  split($6, c, " ")
  if ($3 > 0) us[$1, $2] = us[$1, $2] " " c[2] * 1e4 / $3
  if (c[4] > 10 || $7 + 0 > 0) bad[$1, $2] = 1
  if (!($1 in seen)) {seen[$1] = 1; order[++kinds] = $1}
}

END {
  for (i = 1; i <= kinds; i++) {
    k = order[i]
    diff = ((k, "svc") in us && (k, "prest") in us) ? sprintf("%+.0f", median(us[k, "svc"]) - median(us[k, "prest"])) : "-"
    printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", k, cell(k, "trip"), cell(k, "setup"), cell(k, "main"), cell(k, "svc"), cell(k, "far"), cell(k, "prest"), diff
  }
}
