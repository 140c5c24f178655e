# variants.awk: run.sh's table of the variants' rounds (VARIANTS), one
# markdown row per workload and variant.
#
#   awk -F'\t' -v first=NAME -f variants.awk variants.tsv
#
# Each line is run_variants': variant, round, then run_wrk's kind, conns,
# req/s, p50, p99, RSS, errors and "CPU% svc pg loadgen other".
#
# Columns: the medians of the variant's rounds with their range (req/s,
# SVC's CPU per request, p99); its req/s against the first variant's in
# the same round (the median difference in percent and its range); and
# SVC's CPU per request at the workload's median throughput, with its
# difference from the first variant's.
#
# The last figure is there because SVC's CPU per request depends on the
# load it is under: where svc-serve has a core of its own and PostgreSQL
# sets the pace, a round in which the machine ran PostgreSQL's core slower
# serves fewer requests, and SVC, waking more often for fewer of them,
# spends more on each. Across rounds that swamps differences of a few
# percent. So the CPU SVC used (cores) is fitted, per workload, as a
# straight line in its throughput with one slope for every variant and an
# intercept of each variant's own (an analysis of covariance); a variant's
# figure is its line's value at the workload's median throughput, per
# request, and ± is twice its standard error. A variant is marked * when
# other work took more than 10% of a core during one of its rounds.

# lowest, highest: the extremes of a space-separated list.
function lowest(list,   v, n, i, m) {
  n = split(list, v, " "); m = v[1]
  for (i = 2; i <= n; i++) if (v[i] + 0 < m + 0) m = v[i]
  return m
}
function highest(list,   v, n, i, m) {
  n = split(list, v, " "); m = v[1]
  for (i = 2; i <= n; i++) if (v[i] + 0 > m + 0) m = v[i]
  return m
}

# pct: a signed percentage.
function pct(x) { return sprintf("%+.1f%%", x) }

{
  v = $1; r = $2; k = $3; split($10, c, " ")
  if ($5 <= 0) next
  if (!(k in seenKind)) {seenKind[k] = 1; kinds[++nk] = k}
  if (!((k, v) in seen)) {seen[k, v] = 1; vars[k, ++nv[k]] = v}
  x = $5; y = c[1] / 100 # req/s; SVC's CPU in cores
  rps[k, v, r] = x
  n[k, v]++; N[k]++
  sx[k, v] += x; sy[k, v] += y; sxx[k, v] += x * x; sxy[k, v] += x * y; syy[k, v] += y * y
  rpsList[k, v] = rpsList[k, v] " " x
  allRps[k] = allRps[k] " " x
  usList[k, v] = usList[k, v] " " y * 1e6 / x
  p99List[k, v] = p99List[k, v] " " $7
  if (c[4] > 10) bad[k, v] = 1
  if (r > rounds[k]) rounds[k] = r
}

END {
  for (i = 1; i <= nk; i++) {
    k = kinds[i]
    # The common slope from the variants' deviations from their own means.
    Sxx = 0; Sxy = 0; Syy = 0
    for (j = 1; j <= nv[k]; j++) {
      v = vars[k, j]
      Sxx += sxx[k, v] - sx[k, v] ^ 2 / n[k, v]
      Sxy += sxy[k, v] - sx[k, v] * sy[k, v] / n[k, v]
      Syy += syy[k, v] - sy[k, v] ^ 2 / n[k, v]
    }
    slope = Sxx > 0 ? Sxy / Sxx : 0
    df = N[k] - nv[k] - 1
    s2 = df > 0 && Sxx > 0 ? (Syy - slope * Sxy) / df : 0
    if (s2 < 0) s2 = 0
    at = median(allRps[k])
    for (j = 1; j <= nv[k]; j++) {
      v = vars[k, j]
      mx = sx[k, v] / n[k, v]
      adj[v] = (sy[k, v] / n[k, v] + slope * (at - mx)) * 1e6 / at
      se[v] = sqrt(s2 * (1 / n[k, v] + (Sxx > 0 ? (at - mx) ^ 2 / Sxx : 0))) * 1e6 / at
    }
    for (j = 1; j <= nv[k]; j++) {
      v = vars[k, j]
      mark = ((k, v) in bad) ? " *" : ""
      d = ""; m = 0
      if (v != first)
        for (r = 1; r <= rounds[k]; r++)
          if (((k, v, r) in rps) && ((k, first, r) in rps)) {d = d " " 100 * (rps[k, v, r] / rps[k, first, r] - 1); m++}
      printf "| %s | %s%s | %d | %.0f (%.0f-%.0f) | %.1f (%.1f-%.1f) | %.2f |", k, v, mark, n[k, v],
        median(rpsList[k, v]), lowest(rpsList[k, v]), highest(rpsList[k, v]),
        median(usList[k, v]), lowest(usList[k, v]), highest(usList[k, v]), median(p99List[k, v])
      printf " %s |", (m > 0 ? sprintf("%s (%s to %s)", pct(median(d)), pct(lowest(d)), pct(highest(d))) : "-")
      printf " %.1f ± %.1f at %.0f req/s |", adj[v], 2 * se[v], at
      printf " %s |\n", (v != first && (first in adj) && adj[first] > 0) ? pct(100 * (adj[v] / adj[first] - 1)) : "-"
    }
    delete adj; delete se
  }
}
