package request

import (
	"sort"
	"strings"

	"github.com/svc-dev/svc/server/apierr"
)

// acceptAny is what a request without Accept accepts, shared by every such
// request rather than made for each; no caller writes to the ranges, and
// the slice is full, so an append copies it.
var acceptAny = [1]MediaRange{{Type: "*/*", Q: 1}}

// ParseAccept reads an Accept header: the ranges it accepts, ordered by
// q-value, then by position, and those it refuses (q=0). An element
// whose weight is not a qvalue (RFC 9110 section 12.4.2: 0 to 1, at most
// three decimals, as q=0.5 or q=1.000) is left out, as if it had not been
// sent, rather than taken for q=1: what its sender meant is unknown. The
// rest of the header still counts, the way ParseMediaType drops a
// parameter it cannot read. An empty header accepts anything.
func ParseAccept(h string) (accepted, refused []MediaRange) {
	if strings.TrimSpace(h) == "" {
		return acceptAny[:1:1], nil
	}
	for _, part := range splitOutsideQuotes(h, ',') {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		r := ParseMediaType(part)
		r.Q = 1
		if qs, ok := r.Params["q"]; ok {
			q, valid := parseQValue(qs)
			if !valid {
				continue
			}
			r.Q = q
		}
		if r.Q == 0 {
			refused = append(refused, r)
		} else {
			accepted = append(accepted, r)
		}
	}
	sort.SliceStable(accepted, func(i, j int) bool { return accepted[i].Q > accepted[j].Q })
	return accepted, refused
}

// parseQValue reads a qvalue: "0" or "1", or either with a point and at
// most three digits, those of "1" zeros.
func parseQValue(s string) (float64, bool) {
	if s == "" || s[0] != '0' && s[0] != '1' {
		return 0, false
	}
	v := float64(s[0] - '0')
	if len(s) == 1 {
		return v, true
	}
	frac := s[2:]
	if s[1] != '.' || len(frac) > 3 {
		return 0, false
	}
	scale := 0.1
	for i := 0; i < len(frac); i++ {
		d := frac[i]
		if d < '0' || d > '9' || s[0] == '1' && d != '0' {
			return 0, false
		}
		v += float64(d-'0') * scale
		scale /= 10
	}
	return v, true
}

// builtinFor maps the accepted range r to the representation SVC renders
// itself for it under naming n, if any. A wildcard range (*/*, type/*) stands only for
// media types the header does not refuse: `application/json;q=0, */*`
// accepts anything but JSON (RFC 9110 section 12.5.1), and for a
// relation */* then means CSV, the other type SVC renders for any table.
// A range that names its type is answered as asked.
func builtinFor(n apierr.Naming, r MediaRange, accepted, refused []MediaRange, root bool) (Media, bool) {
	m, ok := mediaFor(n, r, root)
	if !ok || len(refused) == 0 || !strings.HasSuffix(r.Type, "/*") {
		return m, ok
	}
	if !refuses(accepted, refused, m.mediaType()) {
		return m, true
	}
	if r.Type == "*/*" && !root && !refuses(accepted, refused, "text/csv") {
		return Media{Kind: MediaCSV}, true
	}
	return Media{}, false
}

// mediaType is m's type/subtype, without parameters.
func (m Media) mediaType() string {
	t, _, _ := strings.Cut(m.ContentType(), ";")
	return t
}

// refuses reports whether the header gives media type typ a q-value of
// 0: the most specific ranges that match typ (a type/subtype before a
// type/*, before */*) are refused ones, and none of them accepts it.
// Parameters are not compared.
func refuses(accepted, refused []MediaRange, typ string) bool {
	best := -1
	for _, r := range refused {
		best = max(best, matchRank(r.Type, typ))
	}
	if best < 0 {
		return false
	}
	for _, r := range accepted {
		if matchRank(r.Type, typ) >= best {
			return false
		}
	}
	return true
}

// matchRank is how specifically the range rng matches media type typ: 2
// for the type itself, 1 for its type/*, 0 for */*, -1 for no match.
func matchRank(rng, typ string) int {
	switch {
	case rng == typ:
		return 2
	case rng == "*/*":
		return 0
	}
	if major, ok := strings.CutSuffix(rng, "/*"); ok && strings.HasPrefix(typ, major+"/") {
		return 1
	}
	return -1
}
