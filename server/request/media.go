package request

import (
	"strings"

	"github.com/svc-dev/svc/server/apierr"
)

// MediaKind is a response representation SVC can produce.
type MediaKind int

// The representations. The vendor types' names take the vendor of the
// naming they were negotiated under (Media.Vendor).
const (
	MediaJSON MediaKind = iota
	MediaCSV
	MediaObject // application/vnd.svc.object+json: one row as a bare object
	MediaArray  // application/vnd.svc.array+json;nulls=stripped: an array without null keys
	MediaPlan   // application/vnd.svc.plan: the execution plan
	MediaGeoJSON
	MediaOpenAPI
	// MediaHandler is a media type the schema renders: an aggregate or a
	// function returning a domain named after it (planning finds which).
	MediaHandler
	// MediaJSONLines is JSON Lines (application/x-ndjson, application/jsonl):
	// one JSON object a row, each ended by a newline.
	MediaJSONLines
	// MediaNone marks a request whose Accept names nothing SVC renders
	// itself: only a media handler of the schema can answer it.
	MediaNone
)

// Media is the negotiated response representation.
type Media struct {
	Kind MediaKind
	// StripNulls is set by `nulls=stripped` on the array and object types.
	StripNulls bool
	// PlanJSON selects `+json` plan output (default is text).
	PlanJSON bool
	// PlanFor is the media type whose query is explained; PlanForName
	// names it when it is MediaHandler.
	PlanFor     MediaKind
	PlanForName string
	// PlanOptions are EXPLAIN options: analyze, verbose, settings, buffers, wal.
	PlanOptions []string
	// Name is the media type a MediaHandler answers with, or the name
	// JSON Lines was asked for by.
	Name string
	// Binary marks a MediaHandler body that PostgreSQL sends hex-encoded,
	// for the server to decode: the bytes of a value that is not text.
	Binary bool
	// Vendor is the vendor part of the naming a vendor type (MediaObject,
	// MediaArray, MediaPlan) was negotiated under: "svc" answers
	// application/vnd.svc.object+json. A name of the naming table, never
	// of the request, so it costs a shape kept nothing.
	Vendor string
	// OpenAPI is the version of the root description the Accept header's
	// version parameter asks for ("2.0" or "3.1"); empty leaves it to the
	// configuration (openapi-version).
	OpenAPI string
}

// openAPIVersions maps the version parameters of application/openapi+json
// SVC serves to the description's version; another version is refused
// (SVC107), as a document of another version is not what was asked.
var openAPIVersions = map[string]string{"2.0": "2.0", "2": "2.0", "3.1": "3.1", "3.1.0": "3.1"}

// charsetTypes are the textual media types answered with a charset.
var charsetTypes = map[string]bool{
	"application/json": true, "application/geo+json": true, "text/csv": true, "text/plain": true, "text/xml": true,
}

// ContentType renders the Content-Type header for m.
func (m Media) ContentType() string {
	v := m.Vendor
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
		inner := Media{Kind: m.PlanFor, Name: m.PlanForName, Vendor: m.Vendor}.ContentType()
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
	case MediaJSONLines:
		// JSON Lines is UTF-8 by definition: no charset.
		return m.Name
	case MediaOpenAPI:
		return "application/openapi+json; charset=utf-8"
	case MediaHandler:
		if charsetTypes[m.Name] {
			return m.Name + "; charset=utf-8"
		}
		return m.Name
	}
	return "application/json; charset=utf-8"
}

// MediaRange is one entry of an Accept header: a media type (lowercased,
// possibly with wildcards), its parameters, and its q-value.
type MediaRange struct {
	Type   string
	Params map[string]string
	Q      float64
}

// NegotiateRelation picks the representation SVC renders itself for a
// relation or function response from the Accept header, the vendor types
// those of naming n. Nothing acceptable is SVC107; the schema's media
// handlers are planning's to try (see Request.AcceptRanges).
func NegotiateRelation(n apierr.Naming, accept string) (Media, error) {
	return negotiate(n, accept, false)
}

// NegotiateRoot picks the representation for the root description.
func NegotiateRoot(n apierr.Naming, accept string) (Media, error) {
	return negotiate(n, accept, true)
}

// NegotiateRootSpec picks the media type of a db-root-spec function's
// answer to GET /: the function is called as any other, so an Accept whose
// first range the root takes is application/json gets application/json,
// as PostgREST labels a function's JSON; any other range the root takes
// gets the description's application/openapi+json, */* included (SPEC.md).
func NegotiateRootSpec(n apierr.Naming, accept string) (json bool, err error) {
	ranges, refused := ParseAccept(accept)
	for _, r := range ranges {
		if _, ok := builtinFor(n, r, ranges, refused, true); ok {
			return r.Type == "application/json", nil
		}
	}
	return false, apierr.UnsupportedMediaType(n, accept)
}

func negotiate(n apierr.Naming, accept string, root bool) (Media, error) {
	ranges, refused := ParseAccept(accept)
	for _, r := range ranges {
		if m, ok := builtinFor(n, r, ranges, refused, root); ok {
			return m, nil
		}
	}
	return Media{}, apierr.UnsupportedMediaType(n, accept)
}

// BuiltinMedia maps one of the request's accepted ranges to a
// representation SVC renders itself under naming n, if there is one the Accept header
// does not refuse (see builtinFor). A plan whose `for` names a media type
// SVC does not render is MediaPlan for MediaHandler: the schema may have
// a handler.
func (req *Request) BuiltinMedia(n apierr.Naming, r MediaRange) (Media, bool) {
	return builtinFor(n, r, req.AcceptRanges, req.AcceptRefused, false)
}

// IsVendor reports whether m is one of SVC's own vendor types, which the
// schema's media handlers cannot take over.
func (m Media) IsVendor() bool {
	return m.Kind == MediaObject || m.Kind == MediaArray || m.Kind == MediaPlan
}

// mediaFor maps one accepted range to a representation, if SVC has one
// under naming n.
func mediaFor(n apierr.Naming, r MediaRange, root bool) (Media, bool) {
	vendor := "application/vnd." + n.Vendor
	if root {
		switch r.Type {
		case "*/*", "application/*", "application/json":
			return Media{Kind: MediaOpenAPI}, true
		case "application/openapi+json":
			v, asked := r.Params["version"]
			if !asked {
				return Media{Kind: MediaOpenAPI}, true
			}
			if v = openAPIVersions[v]; v != "" {
				return Media{Kind: MediaOpenAPI, OpenAPI: v}, true
			}
		}
		return Media{}, false
	}
	stripped := r.Params["nulls"] == "stripped"
	switch r.Type {
	case "*/*", "application/*", "application/json":
		return Media{Kind: MediaJSON}, true
	case "text/csv", "text/*":
		return Media{Kind: MediaCSV}, true
	case vendor + ".object+json", vendor + ".object":
		return Media{Kind: MediaObject, StripNulls: stripped, Vendor: n.Vendor}, true
	case vendor + ".array+json", vendor + ".array":
		// Without nulls=stripped the array is plain JSON, and is
		// answered as application/json, as in PostgREST.
		if !stripped {
			return Media{Kind: MediaJSON}, true
		}
		return Media{Kind: MediaArray, StripNulls: true, Vendor: n.Vendor}, true
	case "application/geo+json":
		return Media{Kind: MediaGeoJSON}, true
	case "application/x-ndjson", "application/jsonl":
		return Media{Kind: MediaJSONLines, Name: r.Type}, true
	case vendor + ".plan", vendor + ".plan+text", vendor + ".plan+json":
		m := Media{Kind: MediaPlan, PlanJSON: strings.HasSuffix(r.Type, "+json"), Vendor: n.Vendor}
		if f, ok := r.Params["for"]; ok {
			f = strings.ToLower(strings.TrimSpace(f))
			inner, ok := mediaFor(n, MediaRange{Type: f}, false)
			switch {
			case ok && inner.Kind == MediaPlan:
				return Media{}, false
			case ok:
				m.PlanFor = inner.Kind
			case validMediaType(f):
				m.PlanFor, m.PlanForName = MediaHandler, f
			default:
				return Media{}, false
			}
		}
		if opts := r.Params["options"]; opts != "" {
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

// validMediaType reports whether t is type/subtype: what a media
// handler's domain can be named.
func validMediaType(t string) bool {
	typ, sub, ok := strings.Cut(t, "/")
	return ok && typ != "" && sub != "" && !strings.ContainsAny(t, " \t;,\"")
}

// ParseMediaType reads a media type and its parameters leniently, as
// PostgREST does: the type is lowercased, a parameter without a value or
// with characters a token cannot hold is dropped rather than refusing
// the whole header. Q is left zero; Params is nil when there are none.
func ParseMediaType(s string) MediaRange {
	if strings.IndexByte(s, ';') < 0 {
		// Most are a bare type: no parameters to split off.
		return MediaRange{Type: strings.ToLower(strings.TrimSpace(s))}
	}
	parts := splitOutsideQuotes(s, ';')
	r := MediaRange{Type: strings.ToLower(strings.TrimSpace(parts[0]))}
	for _, p := range parts[1:] {
		k, v, ok := strings.Cut(p, "=")
		k = strings.ToLower(strings.TrimSpace(k))
		if !ok || k == "" || strings.ContainsAny(k, " \t\"") {
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
			v = strings.ReplaceAll(v[1:len(v)-1], `\"`, `"`)
		}
		if r.Params == nil {
			r.Params = map[string]string{}
		}
		r.Params[k] = v
	}
	return r
}

// splitOutsideQuotes splits s at each sep outside a quoted string, so
// that a quoted parameter value may hold the separator: the semicolons of
// a media type's parameters, the commas of a header list (ParseAccept).
// The parts are not trimmed.
func splitOutsideQuotes(s string, sep byte) []string {
	var parts []string
	inQuote, start := false, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			inQuote = !inQuote
		case sep:
			if !inQuote {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}
