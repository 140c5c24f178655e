# atonce.awk: the table of AT_ONCE rounds (run.sh), from at-once.tsv:
# workload, variant, round, then the first variant's req/s, µs/req and
# errors, and the variant's. Load stats.awk first:
#
#   awk -F'\t' -f stats.awk -f atonce.awk at-once.tsv
#
# A row per workload and variant: the variant's CPU per request over the
# first's in each round, their median, each one's median µs/req and
# req/s, and the errors of both.
{
  key = $1 SUBSEP $2
  if (!(key in rounds)) order[++keys] = key
  rounds[key] = rounds[key] (rounds[key] == "" ? "" : ", ") sprintf("%.3f", $8 / $5)
  ratios[key] = ratios[key] " " $8 / $5
  usf[key] = usf[key] " " $5
  usv[key] = usv[key] " " $8
  rpsf[key] = rpsf[key] " " $4
  rpsv[key] = rpsv[key] " " $7
  errors[key] += $6 + $9
}
END {
  for (k = 1; k <= keys; k++) {
    key = order[k]
    split(key, part, SUBSEP)
    printf "| %s | %s | %s | %.3f | %.1f | %.1f | %.0f / %.0f | %d |\n", part[1], part[2], rounds[key],
      median(ratios[key]), median(usf[key]), median(usv[key]), median(rpsf[key]), median(rpsv[key]), errors[key]
  }
}
