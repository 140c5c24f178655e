package config

import "strings"

// maxSuggestDistance is the largest edit distance at which a known key is
// offered as "did you mean": enough for a dropped letter plus a swap, not so
// much that unrelated keys are proposed.
const maxSuggestDistance = 3

// suggest returns the known key closest to name, or "" when none is close.
func suggest(name string) string {
	norm := normalize(name)
	if s := suggestAppSetting(norm, name); s != "" {
		return s
	}
	best, bestDist := "", maxSuggestDistance+1
	for _, k := range sortedKeyNames { // sorted, so ties resolve the same way every run
		if d := levenshtein(norm, k); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}

// normalize makes separator and case slips (db_schemas, DB.SCHEMAS) cost
// nothing, since env habits and other tools' spellings produce them.
func normalize(s string) string {
	return strings.NewReplacer("_", "-", ".", "-").Replace(strings.ToLower(s))
}

// suggestAppSetting catches a misspelt "app.settings." prefix
// (app.setting.x, app_settings_x) and keeps the user's setting name.
func suggestAppSetting(norm, name string) string {
	const want = "app-settings-"
	first := strings.IndexByte(norm, '-')
	if first < 0 {
		return ""
	}
	second := strings.IndexByte(norm[first+1:], '-')
	if second < 0 {
		return ""
	}
	end := first + 1 + second + 1
	if end == len(norm) || levenshtein(norm[:end], want) > maxSuggestDistance {
		return ""
	}
	return appSettingsPrefix + name[end:]
}

// levenshtein is the edit distance between a and b (insertions, deletions,
// substitutions, each costing 1), over bytes: keys are ASCII.
func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
