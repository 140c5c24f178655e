package request

import (
	"maps"
	"net/http"
	"slices"
	"strings"
)

// Kind is what a request path addresses.
type Kind int

// The path kinds: the root description, a relation, or a function under /rpc.
const (
	KindRoot Kind = iota
	KindRelation
	KindFunction
)

// Request is a parsed HTTP request, still unresolved against the schema.
type Request struct {
	Method string
	Kind   Kind
	// Target is the relation or function name from the path.
	Target string
	// Schema is the schema a profile header asked for; "" means the default.
	Schema  string
	Select  []SelectItem
	Filters []Filter
	// Logic holds the top-level or/and groups; they are ANDed with Filters.
	Logic []LogicTree
	Order []OrderTerm
	Range Range
	// Prefer holds the Prefer header's preferences.
	Prefer Preferences
	// Media is the negotiated response representation.
	Media Media
}

// Parse reads the parts of r that shape the query. Path routing (which Kind
// and Target) is decided by the router and passed in.
func Parse(r *http.Request, kind Kind, target string) (*Request, error) {
	req := &Request{Method: r.Method, Kind: kind, Target: target, Schema: profile(r), Prefer: ParsePrefer(r)}
	accept := strings.Join(r.Header.Values("Accept"), ", ")
	var err error
	if kind == KindRoot {
		req.Media, err = NegotiateRoot(accept)
	} else {
		req.Media, err = NegotiateRelation(accept)
	}
	if err != nil {
		return nil, err
	}
	var limit, offset *int64
	query := r.URL.Query()
	// Keys in sorted order: the SQL text must depend only on the request's
	// shape, so reordered parameters must not reorder conditions.
	for _, key := range slices.Sorted(maps.Keys(query)) {
		for _, v := range query[key] {
			switch key {
			case "select":
				req.Select, err = parseSelect(v)
			case "order":
				req.Order, err = parseOrder(v)
			case "limit":
				limit, err = parseCount("limit", v)
			case "offset":
				offset, err = parseCount("offset", v)
			default:
				if or, negate, ok := logicKey(key); ok {
					var t LogicTree
					if t, err = parseLogic(key, v, or, negate); err == nil {
						req.Logic = append(req.Logic, t)
					}
					break
				}
				var f Filter
				if f, err = parseFilter(key, v); err == nil {
					req.Filters = append(req.Filters, f)
				}
			}
			if err != nil {
				return nil, err
			}
		}
	}
	rng, err := newRange(limit, offset, r)
	if err != nil {
		return nil, err
	}
	req.Range = rng
	return req, nil
}

// profile returns the schema asked for by Accept-Profile (reads) or
// Content-Profile (writes).
func profile(r *http.Request) string {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		return strings.TrimSpace(r.Header.Get("Accept-Profile"))
	default:
		return strings.TrimSpace(r.Header.Get("Content-Profile"))
	}
}
