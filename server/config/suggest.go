package config

import (
	"strings"

	"github.com/svc-dev/svc/server/suggest"
)

// maxSuggestDistance is the largest edit distance at which a known key is
// offered as "did you mean": enough for a dropped letter plus a swap, not so
// much that unrelated keys are proposed.
const maxSuggestDistance = 3

// closestKey returns the known key closest to name, or "" when none is close.
func closestKey(name string) string {
	norm := normalize(name)
	if s := suggestAppSetting(norm, name); s != "" {
		return s
	}
	return suggest.Closest(norm, sortedKeyNames, maxSuggestDistance) // sorted: ties resolve alike every run
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
	if end == len(norm) || suggest.Distance(norm[:end], want) > maxSuggestDistance {
		return ""
	}
	return appSettingsPrefix + name[end:]
}
