package request

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/svc-dev/svc/server/apierr"
)

// Range is the window of rows asked for: from limit/offset parameters
// intersected with a `Range: <from>-<to>` header.
type Range struct {
	Offset int64
	// Limit is nil for no limit.
	Limit *int64
}

// parseLimit reads a limit parameter: a whole number, which a negative
// value makes an unsatisfiable range (416), as in PostgREST.
func parseLimit(param, v string) (*int64, error) {
	n, err := parseWhole(param, v)
	if err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, apierr.InvalidRange("Limit should be greater than or equal to zero.")
	}
	return &n, nil
}

// parseOffset reads an offset parameter: a whole number, a negative one
// counting as no offset, as in PostgREST.
func parseOffset(param, v string) (*int64, error) {
	n, err := parseWhole(param, v)
	if err != nil {
		return nil, err
	}
	n = max(n, 0)
	return &n, nil
}

func parseWhole(param, v string) (int64, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		s := &scanner{param: param, src: v}
		return 0, s.fail("a whole number")
	}
	return n, nil
}

// newRange combines the limit/offset parameters with the Range header,
// which applies to GET only (as in PostgREST).
func newRange(limit, offset *int64, r *http.Request) (Range, error) {
	rng := Range{Limit: limit}
	if offset != nil {
		rng.Offset = *offset
	}
	h := strings.TrimSpace(headerValue(r, headerRange))
	if h == "" || r.Method != http.MethodGet {
		return rng, nil
	}
	from, to, ok := parseRangeHeader(h)
	if !ok {
		// An unparsable Range header is ignored, as HTTP allows.
		return rng, nil
	}
	if to != nil && *to < from {
		return Range{}, apierr.InvalidRange("The upper boundary must be greater than or equal to the lower boundary")
	}
	// Intersect [offset, offset+limit) with [from, to].
	lo := max(rng.Offset, from)
	var hi *int64 // exclusive upper bound
	if rng.Limit != nil {
		v := rng.Offset + *rng.Limit
		hi = &v
	}
	if to != nil {
		v := *to + 1
		if hi == nil || v < *hi {
			hi = &v
		}
	}
	rng.Offset = lo
	rng.Limit = nil
	if hi != nil {
		n := max(*hi-lo, 0)
		rng.Limit = &n
	}
	return rng, nil
}

// parseRangeHeader reads `<from>-<to>` or `<from>-`, optionally prefixed
// by the unit (`items=0-9`).
func parseRangeHeader(h string) (from int64, to *int64, ok bool) {
	if i := strings.IndexByte(h, '='); i >= 0 {
		h = h[i+1:]
	}
	a, b, found := strings.Cut(h, "-")
	if !found {
		return 0, nil, false
	}
	from, err := strconv.ParseInt(strings.TrimSpace(a), 10, 64)
	if err != nil || from < 0 {
		return 0, nil, false
	}
	if strings.TrimSpace(b) == "" {
		return from, nil, true
	}
	t, err := strconv.ParseInt(strings.TrimSpace(b), 10, 64)
	if err != nil {
		return 0, nil, false
	}
	return from, &t, true
}
