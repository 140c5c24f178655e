package request

import (
	"net/http"
	"strings"

	"github.com/svc-dev/svc/server/apierr"
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
	Schema string
	Select []SelectItem
	// Params are the top-level filters, logic trees (ANDed with the
	// filters), order and the raw limit and offset (see Range).
	Params
	Range Range
	// Prefer holds the Prefer header's preferences.
	Prefer Preferences
	// Media is the representation SVC renders itself that the Accept
	// header asks for first, or MediaNone; planning may pick a media
	// handler of the schema instead (see AcceptRanges).
	Media Media
	// Accept is the Accept header as sent (for error messages),
	// AcceptRanges the ranges it accepts in order of preference, and
	// AcceptRefused those it refuses (q=0; see ParseAccept).
	Accept        string
	AcceptRanges  []MediaRange
	AcceptRefused []MediaRange
	// Columns is the columns= parameter of writes, nil when absent.
	Columns []string
	// OnConflict is the on_conflict= parameter of upserts, nil when absent.
	OnConflict []string
	// Embedded holds the parameters addressed to embedded resources
	// (`rel.order`, `rel.rel2.col=eq.1`), keyed by the embed path joined
	// with dots.
	Embedded map[string]*Params
	// Unparsed holds, for function calls, the top-level parameters that
	// are neither reserved nor logic trees: planning decides against the
	// function's arguments which are arguments and which are filters.
	Unparsed []Pair
}

// Pair is one query parameter.
type Pair struct {
	Key, Value string
	// Slot is the parameter's position, from 1, in Parse's order (see
	// Filter.Slot); 0 when unknown.
	Slot int
}

// Params are the parameters that apply to one level of a read: the
// relation itself or one embedded resource.
type Params struct {
	Filters []Filter
	Logic   []LogicTree
	Order   []OrderTerm
	Limit   *int64
	Offset  *int64
}

// embedded returns the parameters for path, creating them on first use.
func (r *Request) embedded(path string) *Params {
	if r.Embedded == nil {
		r.Embedded = map[string]*Params{}
	}
	p := r.Embedded[path]
	if p == nil {
		p = &Params{}
		r.Embedded[path] = p
	}
	return p
}

// splitEmbedPath separates a parameter key into the embed path it is
// addressed to and the parameter proper: "tasks.users.order" ->
// ("tasks.users", "order"). Segments holding a JSON arrow or a quote belong
// to a column, so "meta->a.b" stays whole.
func splitEmbedPath(key string) (path, rest string) {
	rest = key
	for {
		i := strings.IndexByte(rest, '.')
		if i <= 0 || strings.Contains(rest[:i], "->") || strings.ContainsRune(rest[:i], '"') {
			return path, rest
		}
		if _, _, ok := logicKey(rest); ok {
			return path, rest
		}
		if i == len(rest)-1 {
			return path, rest
		}
		if path != "" {
			path += "."
		}
		path += rest[:i]
		rest = rest[i+1:]
	}
}

// Parse reads the parts of r that shape the query, for a server under
// naming n (its vendor media types, its error codes' advice). Path routing
// (which Kind and Target) is decided by the router and passed in.
func Parse(n apierr.Naming, r *http.Request, kind Kind, target string) (*Request, error) {
	req := &Request{Method: r.Method, Kind: kind, Target: target, Schema: profile(r), Prefer: ParsePrefer(r)}
	accept := strings.Join(headerValues(r, headerAccept), ", ")
	var err error
	if kind == KindRoot {
		if req.Media, err = NegotiateRoot(n, accept); err != nil {
			return nil, err
		}
	} else {
		// Nothing SVC renders itself may still be something the schema
		// renders: planning decides (see MediaNone).
		req.Accept = accept
		req.AcceptRanges, req.AcceptRefused = ParseAccept(accept)
		req.Media = Media{Kind: MediaNone}
		for _, mr := range req.AcceptRanges {
			if m, ok := req.BuiltinMedia(n, mr); ok {
				req.Media = m
				break
			}
		}
	}
	// Keys in sorted order: the SQL text must depend only on the request's
	// shape, so reordered parameters must not reorder conditions.
	pairs, err := queryPairs(nil, r.URL.RawQuery)
	if err != nil {
		return nil, err
	}
	for i, p := range pairs {
		slot := i + 1
		key, v := p.Key, p.Value
		switch path, param, class := classify(key); {
		case class == paramSelect:
			req.Select, err = parseSelect(v)
		case class == paramColumns:
			req.Columns, err = parseNames(key, v)
		case class == paramOnConflict:
			req.OnConflict, err = parseNames(key, v)
		case path != "":
			err = req.embedded(path).parse(key, param, class, v, slot)
		case kind == KindFunction && class == paramFilter:
			req.Unparsed = append(req.Unparsed, Pair{key, v, slot})
		default:
			err = req.Params.parse(key, param, class, v, slot)
		}
		if err != nil {
			return nil, err
		}
	}
	rng, err := newRange(req.Limit, req.Offset, r)
	if err != nil {
		return nil, err
	}
	req.Range = rng
	return req, nil
}

// ParseFilter parses one filter parameter, for keys whose meaning was left
// to planning (see Request.Unparsed).
func ParseFilter(key, value string) (Filter, error) { return parseFilter(key, value) }

// parseNames reads a comma-separated list of column names.
func parseNames(param, v string) ([]string, error) {
	s := &scanner{param: param, src: v}
	var names []string
	for {
		name, err := s.name()
		if err != nil {
			return nil, err
		}
		names = append(names, name)
		if s.eof() {
			return names, nil
		}
		if !s.accept(",") {
			return nil, s.fail(`"," or end of input`)
		}
	}
}

// paramClass is what a query parameter is, told from its key alone.
type paramClass int

const (
	paramFilter paramClass = iota
	paramSelect
	paramColumns
	paramOnConflict
	paramOrder
	paramLimit
	paramOffset
	paramLogic
)

// classify tells what the parameter key is, and splits off the embed path
// it is addressed to (see splitEmbedPath). Parse and Template.Read both
// go by it, so the two cannot disagree on a parameter's part in the shape.
func classify(key string) (path, param string, class paramClass) {
	switch key {
	case "select":
		return "", key, paramSelect
	case "columns":
		return "", key, paramColumns
	case "on_conflict":
		return "", key, paramOnConflict
	}
	path, param = splitEmbedPath(key)
	switch param {
	case "order":
		class = paramOrder
	case "limit":
		class = paramLimit
	case "offset":
		class = paramOffset
	default:
		if _, _, ok := logicKey(param); ok {
			class = paramLogic
		}
	}
	return path, param, class
}

// parse reads one parameter of a level: the top (param is key) or an
// embed (param is the part of key after the embed path; key names the
// parameter in error messages). slot is the parameter's position in
// Parse's order, recorded in its filter.
func (p *Params) parse(key, param string, class paramClass, v string, slot int) error {
	var err error
	switch class {
	case paramOrder:
		var terms []OrderTerm
		if terms, err = parseOrder(v); err == nil {
			p.Order = append(p.Order, terms...)
		}
	case paramLimit:
		p.Limit, err = parseLimit(key, v)
	case paramOffset:
		p.Offset, err = parseOffset(key, v)
	case paramLogic:
		or, negate, _ := logicKey(param)
		var t LogicTree
		if t, err = parseLogic(key, v, or, negate); err == nil {
			p.Logic = append(p.Logic, t)
		}
	default:
		var f Filter
		if f, err = parseFilter(param, v); err == nil {
			f.Slot = slot
			p.Filters = append(p.Filters, f)
		}
	}
	return err
}

// profile returns the schema asked for by Accept-Profile (reads) or
// Content-Profile (writes).
func profile(r *http.Request) string {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		return strings.TrimSpace(headerValue(r, headerAcceptProfile))
	default:
		return strings.TrimSpace(headerValue(r, headerContentProfile))
	}
}
