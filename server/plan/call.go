package plan

import (
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/server/suggest"
	"github.com/svc-dev/svc/snapshot"
)

// Call is a planned function call: /rpc/<function>.
type Call struct {
	Function *snapshot.Function
	// Args are the arguments supplied, in the function's order.
	Args []CallArg
	// Body is the JSON object the arguments are read from (POST); nil when
	// they come from the query string (GET, HEAD), as Args' Values.
	Body []byte
	// Read shapes the result rows: its root reads the function's rows, so
	// filters, select, embeds, order and window apply as on a relation.
	// Unused for a single scalar and for void.
	Read *Read
	// Handler renders a scalar result when the negotiated media type is
	// one the function returns itself (Read.Handler renders rows).
	Handler *Handler
	// vendor is the vendor of the naming planned under (plan.Options),
	// which the aliases below start with.
	vendor string
}

// Alias is the name the statement gives the call's result: PostgREST's
// pgrst_call under its naming, svc_call under SVC's, so errors and plans
// that name it read as PostgREST's do.
func (c *Call) Alias() string { return c.vendor + "_call" }

// ScalarColumn names the one column of the rows of a function returning a
// set of scalars: PostgREST's pgrst_scalar under its naming, svc_scalar
// under SVC's. Filters, order and select address the values by it.
func (c *Call) ScalarColumn() string { return c.vendor + "_scalar" }

// ArgsAlias names the row the arguments are read from, as PostgREST's
// pgrst_body does.
func (c *Call) ArgsAlias() string { return c.vendor + "_body" }

// CallArg is one argument given to a call.
type CallArg struct {
	// Name is "" for a function's single unnamed argument, passed by
	// position.
	Name, Type string
	// Value is the query-string value (GET), or the whole body when it is
	// the argument; unused when the arguments come from a JSON object.
	Value string
	// Variadic marks the variadic argument, passed as an array.
	Variadic bool
	// Slot is the query parameter Value is, in full (request.Pair.Slot);
	// 0 when Value is built otherwise (a body, a variadic array).
	Slot int
}

// ReturnsRows reports whether the result is read as rows (of a composite,
// a set of them, or a set of scalars: see scalarRows) rather than as one
// value.
func (c *Call) ReturnsRows() bool {
	switch c.Function.Returns {
	case snapshot.ReturnsComposite, snapshot.ReturnsSetOfComposite, snapshot.ReturnsSetOfScalar:
		return true
	}
	return false
}

// BuildCall plans a call of the function req targets. body is the JSON
// object of a POST's arguments (nil on GET and HEAD, whose arguments are
// query parameters naming the function's arguments). raw is a POST's body
// as sent and media its type, for functions that take the whole body as
// their one argument.
func BuildCall(req *request.Request, body *request.Payload, raw []byte, media string, snap *snapshot.Snapshot, opts Options) (*Call, error) {
	name, err := targetName(req, opts)
	if err != nil {
		return nil, err
	}
	candidates := snap.Functions(name)
	// A body another function's named arguments cannot take, or that
	// params=single-object hands whole, is the one argument of a function
	// taking it whole; a JSON object tries the named arguments first, the
	// whole-body overload being their fallback (PostgREST).
	wholeFirst := body == nil || req.Prefer.Params == "single-object"
	if raw != nil && wholeFirst {
		c, err := wholeBodyCall(req, candidates, raw, media, snap, opts)
		if c != nil || err != nil {
			return c, err
		}
		if body == nil {
			return nil, noFunction(snap, name, nil, candidates, opts)
		}
	}

	// The names supplied: the body's keys (those columns= keeps), or the
	// query parameters that are no filters (request.MayBeFilter), named
	// as arguments or not: an unknown name finds no function.
	var supplied []string
	values := map[string][]request.Pair{}
	var filters []request.Pair
	if body != nil {
		// Of an array of objects, the first is the arguments (PostgREST);
		// the query parameters all filter the result.
		supplied = body.Keys
		if req.Columns != nil {
			supplied = slices.DeleteFunc(slices.Clone(supplied), func(k string) bool { return !slices.Contains(req.Columns, k) })
		}
		filters = req.Unparsed
	} else {
		for _, p := range req.Unparsed {
			if request.MayBeFilter(p.Value) {
				filters = append(filters, p)
				continue
			}
			if _, dup := values[p.Key]; !dup {
				supplied = append(supplied, p.Key)
			}
			values[p.Key] = append(values[p.Key], p)
		}
		slices.Sort(supplied)
	}
	fn, err := chooseOverload(candidates, supplied)
	if fn == nil && err == nil {
		// No overload takes the names: the whole body may be one's
		// argument.
		if raw != nil && !wholeFirst {
			if c, err := wholeBodyCall(req, candidates, raw, media, snap, opts); c != nil || err != nil {
				return c, err
			}
		}
		return nil, noFunction(snap, name, supplied, candidates, opts)
	}
	if err != nil {
		return nil, err
	}
	c := &Call{Function: fn}
	if body != nil {
		c.Body = body.First
		if c.Body == nil {
			c.Body = []byte("{}")
		}
		if media == "application/x-www-form-urlencoded" {
			c.Body = formVariadic(c.Body, fn)
		}
	}
	for _, a := range fn.Arguments {
		if slices.Contains(supplied, a.Name) && a.Mode != snapshot.ArgOut && a.Mode != snapshot.ArgTable {
			arg := CallArg{Name: a.Name, Type: a.Type, Variadic: a.Mode == snapshot.ArgVariadic}
			if ps := values[a.Name]; len(ps) > 0 {
				last := ps[len(ps)-1]
				arg.Value, arg.Slot = last.Value, last.Slot
				if arg.Variadic {
					// Repeated query parameters are the variadic array.
					vs := make([]string, len(ps))
					for i, p := range ps {
						vs[i] = p.Value
					}
					arg.Value, arg.Slot = ArrayLiteral(vs), 0
				}
			}
			c.Args = append(c.Args, arg)
		}
	}
	return finishCall(req, c, filters, snap, opts)
}

// finishCall adds the result's handling to a call whose function and
// arguments are chosen: the query parameters left over are filters, and
// rows get a read tree.
func finishCall(req *request.Request, c *Call, filters []request.Pair, snap *snapshot.Snapshot, opts Options) (*Call, error) {
	fn := c.Function
	c.vendor = opts.Names.Vendor
	if pr := req.Prefer; pr.Handling == "strict" && pr.MaxAffected != nil &&
		fn.Returns != snapshot.ReturnsSetOfComposite && fn.Returns != snapshot.ReturnsSetOfScalar {
		// Only a set's rows can be counted against the bound; refusing
		// before the call means it writes nothing.
		return nil, apierr.MaxAffectedNotSet()
	}
	for _, p := range filters {
		f, err := request.ParseFilter(p.Key, p.Value)
		if err != nil {
			return nil, err
		}
		f.Slot = p.Slot
		req.Filters = append(req.Filters, f)
	}
	if !c.ReturnsRows() {
		if len(req.Filters) > 0 || len(req.Logic) > 0 || len(req.Order) > 0 || len(req.Embedded) > 0 {
			// A bare value has no columns to filter or order by.
			return nil, apierr.UndefinedColumn(fn.Name, firstColumnNamed(req), "")
		}
		var t mediaTarget
		if fn.Returns == snapshot.ReturnsScalar {
			t.fn = fn
		}
		var err error
		if req.Media, c.Handler, err = negotiate(opts.Names, req, snap, t); err != nil {
			return nil, err
		}
		return c, nil
	}
	scalars := fn.Returns == snapshot.ReturnsSetOfScalar
	rel := resultRelation(snap, fn)
	if scalars {
		rel = scalarRows(fn, c.ScalarColumn())
	}
	c.Read = &Read{Head: req.Method == "HEAD", Media: req.Media, Count: req.Prefer.Count, MaxRows: opts.MaxRows, Product: opts.Names.Product,
		Single: fn.Returns == snapshot.ReturnsComposite, Scalars: scalars}
	c.Read.Alias = c.Alias()
	if c.Read.Count == "planned" || c.Read.Count == "estimated" {
		// Estimates come from a separate EXPLAIN, which cannot see the
		// call's arguments; a call's rows are counted exactly.
		c.Read.Count = "exact"
	}
	if err := buildNode(&c.Read.Node, snap, rel, req.Select, opts.Refresh); err != nil {
		return nil, err
	}
	c.Read.Filters, c.Read.Logic, c.Read.Order = req.Filters, req.Logic, req.Order
	c.Read.Offset, c.Read.Limit = req.Range.Offset, capLimit(req.Range.Limit, opts.MaxRows)
	if err := applyEmbedParams(&c.Read.Node, req.Embedded, opts.MaxRows, opts.LegacyTargetNames); err != nil {
		return nil, err
	}
	if err := checkStructure(&c.Read.Node, snap, req.Select, opts); err != nil {
		return nil, err
	}
	if err := checkColumns(&c.Read.Node, snap, opts.Refresh); err != nil {
		return nil, err
	}
	t := mediaTarget{rows: fn.ReturnType, wholeRows: wholeRows(&c.Read.Node)}
	if scalars {
		if err := checkScalarSelect(&c.Read.Node); err != nil {
			return nil, err
		}
		// The rows are of no relation: of the schema's handlers, only an
		// aggregate over any rows (anyelement) renders them, as in
		// PostgREST.
		t.wholeRows = false
	}
	var err error
	if c.Read.Media, c.Read.Handler, err = negotiate(opts.Names, req, snap, t); err != nil {
		return nil, err
	}
	req.Media = c.Read.Media
	return c, nil
}

// wholeBodyCall plans a call of the overload that takes a POST's whole
// body as its one argument (see wholeBodyOverloads); nil and no error
// when there is none, SVC203 when several could (json and jsonb).
func wholeBodyCall(req *request.Request, candidates []*snapshot.Function, raw []byte, media string, snap *snapshot.Snapshot, opts Options) (*Call, error) {
	fns, args := wholeBodyOverloads(candidates, media, req.Prefer.Params == "single-object")
	switch len(fns) {
	case 0:
		return nil, nil
	case 1:
	default:
		sigs := make([]string, len(fns))
		for i, f := range fns {
			sigs[i] = signature(f, true)
		}
		return nil, apierr.AmbiguousFunction(sigs)
	}
	arg := args[0]
	if media == "application/octet-stream" {
		// bytea's text input: hex after \x.
		raw = []byte(`\x` + hex.EncodeToString(raw))
	}
	arg.Value = string(raw)
	// Every query parameter filters the result (PostgREST).
	return finishCall(req, &Call{Function: fns[0], Args: []CallArg{arg}}, req.Unparsed, snap, opts)
}

// wholeBodyOverloads finds the overloads taking a POST's whole body as
// their one argument: a single unnamed json or jsonb argument for JSON,
// bytea for application/octet-stream, text for text/plain, xml for
// text/xml; or, with Prefer: params=single-object, a single json or jsonb
// argument of any name.
func wholeBodyOverloads(fns []*snapshot.Function, media string, singleObject bool) ([]*snapshot.Function, []CallArg) {
	wants := map[string][]string{
		"application/json": {"json", "jsonb"}, "application/octet-stream": {"bytea"},
		"text/plain": {"text"}, "text/xml": {"xml"},
	}[media]
	var found []*snapshot.Function
	var args []CallArg
	for _, f := range fns {
		var in []snapshot.Argument
		for _, a := range f.Arguments {
			if a.Mode != snapshot.ArgOut && a.Mode != snapshot.ArgTable {
				in = append(in, a)
			}
		}
		if len(in) != 1 || !slices.Contains(wants, in[0].Type) {
			continue
		}
		if in[0].Name == "" || singleObject && media == "application/json" {
			found = append(found, f)
			args = append(args, CallArg{Name: in[0].Name, Type: in[0].Type})
		}
	}
	return found, args
}

// firstColumnNamed names what a request filters or orders a scalar
// result by, for the error.
func firstColumnNamed(req *request.Request) string {
	switch {
	case len(req.Filters) > 0:
		return req.Filters[0].Field.Name
	case len(req.Order) > 0:
		return req.Order[0].Field.Name
	}
	return "?"
}

// formVariadic makes a form field given once for fn's variadic argument
// the one element of its array, as repeating the field makes the array
// (PostgREST: `v=hi` passes {hi}).
func formVariadic(object []byte, fn *snapshot.Function) []byte {
	i := slices.IndexFunc(fn.Arguments, func(a snapshot.Argument) bool { return a.Mode == snapshot.ArgVariadic })
	if i < 0 {
		return object
	}
	var fields map[string]json.RawMessage
	name := fn.Arguments[i].Name
	if json.Unmarshal(object, &fields) != nil || len(fields[name]) == 0 || fields[name][0] != '"' {
		return object
	}
	fields[name] = append(append(json.RawMessage{'['}, fields[name]...), ']')
	out, err := json.Marshal(fields)
	if err != nil {
		return object
	}
	return out
}

// chooseOverload picks the overload whose arguments the supplied names
// fit: every name is an input argument, and every input argument without
// a default is supplied. It returns neither an overload nor an error
// when none fits, and SVC203 when several do.
func chooseOverload(fns []*snapshot.Function, supplied []string) (*snapshot.Function, error) {
	var fits []*snapshot.Function
	for _, f := range fns {
		if fitsArguments(f, supplied) {
			fits = append(fits, f)
		}
	}
	switch len(fits) {
	case 1:
		return fits[0], nil
	case 0:
		return nil, nil
	}
	sigs := make([]string, len(fits))
	for i, f := range fits {
		sigs[i] = signature(f, true)
	}
	return nil, apierr.AmbiguousFunction(sigs)
}

func fitsArguments(f *snapshot.Function, supplied []string) bool {
	inputs := 0
	for _, a := range f.Arguments {
		if a.Mode == snapshot.ArgOut || a.Mode == snapshot.ArgTable {
			continue
		}
		inputs++
		if a.Name == "" || !a.HasDefault && !slices.Contains(supplied, a.Name) {
			return false
		}
	}
	for _, s := range supplied {
		found := false
		for _, a := range f.Arguments {
			found = found || a.Name == s && a.Mode != snapshot.ArgOut && a.Mode != snapshot.ArgTable
		}
		if !found {
			return false
		}
	}
	return inputs > 0 || len(supplied) == 0
}

// signature renders "schema.fn(a, b)" or, with types, "schema.fn(a => int4, ...)".
func signature(f *snapshot.Function, types bool) string {
	var args []string
	for _, a := range f.Arguments {
		if a.Mode == snapshot.ArgOut || a.Mode == snapshot.ArgTable {
			continue
		}
		if types {
			args = append(args, a.Name+" => "+a.Type)
		} else {
			args = append(args, a.Name)
		}
	}
	return f.QualifiedName.String() + "(" + strings.Join(args, ", ") + ")"
}

// noFunction is SVC202 with PostgREST's hint, an overload's signature when
// the name exists or the closest function name in the schema, and the
// advice naming the snapshot looked in (notFoundAdvice), or the missing
// schema (missingSchemaHint).
func noFunction(snap *snapshot.Snapshot, name snapshot.QualifiedName, supplied []string, fns []*snapshot.Function, opts Options) *apierr.Error {
	if h := missingSchemaHint(snap, name.Schema); h != "" {
		return apierr.NoFunction(name.String(), supplied, "").WithAdvice(h)
	}
	return apierr.NoFunction(name.String(), supplied, closestFunction(snap, name, fns)).WithAdvice(notFoundAdvice(snap, opts))
}

func closestFunction(snap *snapshot.Snapshot, name snapshot.QualifiedName, fns []*snapshot.Function) string {
	if len(fns) > 0 {
		return "Perhaps you meant to call the function " + signature(fns[0], false) + "."
	}
	var names []string
	for i := range snap.Content.Functions {
		if f := &snap.Content.Functions[i]; f.Schema == name.Schema {
			names = append(names, f.Name)
		}
	}
	if best := suggest.Typo(name.Name, names); best != "" {
		return "Perhaps you meant to call the function " + name.Schema + "." + best + "."
	}
	return ""
}

// resultRelation is the relation a function's rows have: the table or
// view its return type names, or one made from its OUT/TABLE arguments.
func resultRelation(snap *snapshot.Snapshot, fn *snapshot.Function) *snapshot.Relation {
	if rel := snap.Relation(fn.ReturnType); rel != nil {
		return rel
	}
	rel := &snapshot.Relation{QualifiedName: fn.ReturnType, Kind: snapshot.KindView}
	for _, a := range fn.Arguments {
		if a.Mode == snapshot.ArgOut || a.Mode == snapshot.ArgTable || a.Mode == snapshot.ArgInOut {
			rel.Columns = append(rel.Columns, snapshot.Column{Name: a.Name, Type: a.Type, BaseType: a.Type})
		}
	}
	return rel
}
