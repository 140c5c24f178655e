# stats.awk: the figures every report table of run.sh takes of a round's
# numbers, loaded before the table's own script:
#
#   awk -F'\t' -f stats.awk -f peers.awk ...
#
# A list is a space-separated string of numbers.

# sorted: the numbers of a list in v[1..n], ascending; n.
function sorted(list, v,   n, i, j, t) {
  n = split(list, v, " ")
  for (i = 2; i <= n; i++)
    for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) {t = v[j]; v[j] = v[j - 1]; v[j - 1] = t}
  return n
}

# median: the median of a list.
function median(list,   v, n) {
  n = sorted(list, v)
  return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}

# spread: "median (lowest-highest)" of a list, with fmt for each number;
# "-" for an empty list.
function spread(list, fmt,   v, n) {
  if (list == "") return "-"
  n = sorted(list, v)
  return sprintf(fmt " (" fmt "-" fmt ")", median(list), v[1], v[n])
}
