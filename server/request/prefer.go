package request

import (
	"net/http"
	"strconv"
	"strings"
)

// Preferences are the Prefer header values SVC understands (RFC 7240;
// SPEC.md "Preferences"). Zero values mean "not asked for".
type Preferences struct {
	Return     string // minimal, headers-only, representation
	Count      string // exact, planned, estimated
	Resolution string // merge-duplicates, ignore-duplicates
	Missing    string // default
	Handling   string // lenient, strict
	Timezone   string
	Tx         string // commit, rollback
	Params     string // single-object
	// MaxAffected is nil when not given.
	MaxAffected *int64
	// Invalid lists preferences not understood, in the order given, for
	// handling=strict's error.
	Invalid []string
}

// preferenceValues lists the accepted values of each enumerated preference.
var preferenceValues = map[string][]string{
	"return":     {"minimal", "headers-only", "representation"},
	"count":      {"exact", "planned", "estimated"},
	"resolution": {"merge-duplicates", "ignore-duplicates"},
	"missing":    {"default"},
	"handling":   {"lenient", "strict"},
	"tx":         {"commit", "rollback"},
	"params":     {"single-object"},
}

// ParsePrefer reads every Prefer header of r. The first occurrence of a
// preference wins, as RFC 7240 asks.
func ParsePrefer(r *http.Request) Preferences {
	var p Preferences
	seen := map[string]bool{}
	for _, h := range headerValues(r, headerPrefer) {
		for _, item := range strings.Split(h, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			name, value, _ := strings.Cut(item, "=")
			name, value = strings.TrimSpace(name), strings.Trim(strings.TrimSpace(value), `"`)
			if seen[name] {
				continue
			}
			seen[name] = true
			if !p.set(name, value) {
				p.Invalid = append(p.Invalid, item)
			}
		}
	}
	return p
}

// set records one preference, reporting whether it is understood.
func (p *Preferences) set(name, value string) bool {
	switch name {
	case "timezone":
		if value == "" {
			return false
		}
		p.Timezone = value
		return true
	case "max-affected":
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil || n < 0 {
			return false
		}
		p.MaxAffected = &n
		return true
	}
	allowed, ok := preferenceValues[name]
	if !ok {
		return false
	}
	for _, a := range allowed {
		if a == value {
			switch name {
			case "return":
				p.Return = value
			case "count":
				p.Count = value
			case "resolution":
				p.Resolution = value
			case "missing":
				p.Missing = value
			case "handling":
				p.Handling = value
			case "tx":
				p.Tx = value
			case "params":
				p.Params = value
			}
			return true
		}
	}
	return false
}
