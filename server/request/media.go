package request

import (
	"mime"
	"sort"
	"strconv"
	"strings"

	"github.com/svc-dev/svc/server/apierr"
)

// MediaKind is a response representation SVC can produce.
type MediaKind int

// The representations. Their media type names come from apierr.Names so
// the vendor prefix is one switch.
const (
	MediaJSON MediaKind = iota
	MediaCSV
	MediaObject // application/vnd.svc.object+json: one row as a bare object
	MediaArray  // application/vnd.svc.array+json;nulls=stripped: an array without null keys
	MediaPlan   // application/vnd.svc.plan: the execution plan
	MediaGeoJSON
	MediaOpenAPI
)

// Media is the negotiated response representation.
type Media struct {
	Kind MediaKind
	// StripNulls is set by `nulls=stripped` on the array and object types.
	StripNulls bool
	// PlanJSON selects `+json` plan output (default is text).
	PlanJSON bool
	// PlanFor is the media type whose query is explained.
	PlanFor MediaKind
	// PlanOptions are EXPLAIN options: analyze, verbose, settings, buffers, wal.
	PlanOptions []string
}

// ContentType renders the Content-Type header for m.
func (m Media) ContentType() string {
	v := apierr.Names.Vendor
	switch m.Kind {
	case MediaCSV:
		return "text/csv; charset=utf-8"
	case MediaObject:
		if m.StripNulls {
			return "application/vnd." + v + ".object+json;nulls=stripped; charset=utf-8"
		}
		return "application/vnd." + v + ".object+json; charset=utf-8"
	case MediaArray:
		return "application/vnd." + v + ".array+json;nulls=stripped; charset=utf-8"
	case MediaPlan:
		format := "text"
		if m.PlanJSON {
			format = "json"
		}
		inner := Media{Kind: m.PlanFor}.ContentType()
		inner, _, _ = strings.Cut(inner, ";")
		var opts string
		if len(m.PlanOptions) > 0 {
			// The options are echoed as asked, so a client can tell which
			// EXPLAIN options the plan it holds was made with.
			opts = "; options=" + strings.Join(m.PlanOptions, "|")
		}
		return "application/vnd." + v + ".plan+" + format + `; for="` + inner + `"` + opts + "; charset=utf-8"
	case MediaGeoJSON:
		return "application/geo+json; charset=utf-8"
	case MediaOpenAPI:
		return "application/openapi+json; charset=utf-8"
	}
	return "application/json; charset=utf-8"
}

// acceptRange is one entry of an Accept header.
type acceptRange struct {
	typ    string
	params map[string]string
	q      float64
	order  int
}

// NegotiateRelation picks the representation for a relation or function
// response from the Accept header. Nothing acceptable is SVC107.
func NegotiateRelation(accept string) (Media, error) {
	return negotiate(accept, false)
}

// NegotiateRoot picks the representation for the root description.
func NegotiateRoot(accept string) (Media, error) {
	return negotiate(accept, true)
}

func negotiate(accept string, root bool) (Media, error) {
	ranges := parseAccept(accept)
	for _, r := range ranges {
		if r.q <= 0 {
			continue
		}
		if m, ok := mediaFor(r, root); ok {
			return m, nil
		}
	}
	return Media{}, apierr.UnsupportedMediaType(accept)
}

// mediaFor maps one accepted range to a representation, if SVC has one.
func mediaFor(r acceptRange, root bool) (Media, bool) {
	vendor := "application/vnd." + apierr.Names.Vendor
	if root {
		switch r.typ {
		case "*/*", "application/*", "application/openapi+json", "application/json":
			return Media{Kind: MediaOpenAPI}, true
		}
		return Media{}, false
	}
	stripped := r.params["nulls"] == "stripped"
	switch r.typ {
	case "*/*", "application/*", "application/json":
		return Media{Kind: MediaJSON}, true
	case "text/csv", "text/*":
		return Media{Kind: MediaCSV}, true
	case vendor + ".object+json", vendor + ".object":
		return Media{Kind: MediaObject, StripNulls: stripped}, true
	case vendor + ".array+json", vendor + ".array":
		// Without nulls=stripped the array is plain JSON, and is
		// answered as application/json, as in PostgREST.
		if !stripped {
			return Media{Kind: MediaJSON}, true
		}
		return Media{Kind: MediaArray, StripNulls: true}, true
	case "application/geo+json":
		return Media{Kind: MediaGeoJSON}, true
	case vendor + ".plan", vendor + ".plan+text", vendor + ".plan+json":
		m := Media{Kind: MediaPlan, PlanJSON: strings.HasSuffix(r.typ, "+json")}
		if f, ok := r.params["for"]; ok {
			inner, ok := mediaFor(acceptRange{typ: f}, false)
			if !ok || inner.Kind == MediaPlan {
				return Media{}, false
			}
			m.PlanFor = inner.Kind
		}
		if opts := r.params["options"]; opts != "" {
			for _, o := range strings.Split(opts, "|") {
				switch o {
				case "analyze", "verbose", "settings", "buffers", "wal":
					m.PlanOptions = append(m.PlanOptions, o)
				default:
					return Media{}, false
				}
			}
		}
		return m, true
	}
	return Media{}, false
}

// parseAccept splits an Accept header into ranges ordered by q-value, then
// by position. An empty header accepts anything.
func parseAccept(h string) []acceptRange {
	if strings.TrimSpace(h) == "" {
		return []acceptRange{{typ: "*/*", q: 1}}
	}
	var out []acceptRange
	for i, part := range splitHeaderList(h) {
		typ, params, err := mime.ParseMediaType(part)
		if err != nil {
			// Lenient fallback: keep the type, drop malformed parameters.
			typ = strings.ToLower(strings.TrimSpace(strings.SplitN(part, ";", 2)[0]))
			params = map[string]string{}
		}
		q := 1.0
		if qs, ok := params["q"]; ok {
			if v, err := strconv.ParseFloat(qs, 64); err == nil {
				q = v
			}
		}
		out = append(out, acceptRange{typ: typ, params: params, q: q, order: i})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].q > out[j].q })
	return out
}

// splitHeaderList splits a comma-separated header value, keeping commas
// inside quoted parameter values.
func splitHeaderList(h string) []string {
	var parts []string
	inQuote, start := false, 0
	for i := 0; i < len(h); i++ {
		switch h[i] {
		case '"':
			inQuote = !inQuote
		case ',':
			if !inQuote {
				parts = append(parts, strings.TrimSpace(h[start:i]))
				start = i + 1
			}
		}
	}
	parts = append(parts, strings.TrimSpace(h[start:]))
	return parts
}
