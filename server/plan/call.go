package plan

import (
	"encoding/hex"
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
	// Unused for scalar and void results.
	Read *Read
}

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

// ReturnsRows reports whether the result is read as rows of a relation
// (a composite or a set of them) rather than as one value.
func (c *Call) ReturnsRows() bool {
	r := c.Function.Returns
	return r == snapshot.ReturnsComposite || r == snapshot.ReturnsSetOfComposite
}

// BuildCall plans a call of the function req targets. body is the JSON
// object of a POST's arguments (nil on GET and HEAD, whose arguments are
// query parameters naming the function's arguments). raw is a POST's body
// as sent and media its type, for functions that take the whole body as
// their one argument.
func BuildCall(req *request.Request, body *request.Payload, raw []byte, media string, snap *snapshot.Snapshot, opts Options) (*Call, error) {
	if req.Prefer.Handling == "strict" && len(req.Prefer.Invalid) > 0 {
		return nil, apierr.InvalidPreferences(req.Prefer.Invalid)
	}
	schema, err := Schema(req, opts)
	if err != nil {
		return nil, err
	}
	name := snapshot.QualifiedName{Schema: schema, Name: req.Target}
	candidates := snap.Functions(name)
	if raw != nil {
		if fn, arg := wholeBodyArgument(candidates, media, req.Prefer.Params == "single-object"); fn != nil {
			if media == "application/octet-stream" {
				// bytea's text input: hex after \x.
				raw = []byte(`\x` + hex.EncodeToString(raw))
			}
			arg.Value = string(raw)
			// Every query parameter filters the result (PostgREST).
			return finishCall(req, &Call{Function: fn, Args: []CallArg{arg}}, req.Unparsed, snap, opts)
		}
		if body == nil {
			return nil, apierr.NoFunction(name.String(), nil, functionHint(snap, name, candidates))
		}
	}

	// The names supplied: the body's keys, or the query parameters that
	// name an argument of some overload (the others filter the result).
	var supplied []string
	values := map[string][]request.Pair{}
	var filters []request.Pair
	if body != nil {
		// Of an array of objects, the first is the arguments (PostgREST);
		// the query parameters all filter the result.
		supplied = body.Keys
		filters = req.Unparsed
	} else {
		for _, p := range req.Unparsed {
			if isArgument(candidates, p.Key) {
				if _, dup := values[p.Key]; !dup {
					supplied = append(supplied, p.Key)
				}
				values[p.Key] = append(values[p.Key], p)
			} else {
				filters = append(filters, p)
			}
		}
		slices.Sort(supplied)
	}
	fn, err := chooseOverload(snap, name, candidates, supplied)
	if err != nil {
		return nil, err
	}
	c := &Call{Function: fn}
	if body != nil {
		c.Body = body.First
		if c.Body == nil {
			c.Body = []byte("{}")
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
					arg.Value, arg.Slot = arrayLiteral(vs), 0
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
		return c, nil
	}
	rel := resultRelation(snap, fn)
	c.Read = &Read{Head: req.Method == "HEAD", Media: req.Media, Count: req.Prefer.Count, MaxRows: opts.MaxRows,
		Single: fn.Returns == snapshot.ReturnsComposite}
	if c.Read.Count == "planned" || c.Read.Count == "estimated" {
		// Estimates come from a separate EXPLAIN, which cannot see the
		// call's arguments; a call's rows are counted exactly.
		c.Read.Count = "exact"
	}
	if err := buildNode(&c.Read.Node, snap, rel, req.Select); err != nil {
		return nil, err
	}
	if err := checkAggregates(req.Select, opts); err != nil {
		return nil, err
	}
	c.Read.Filters, c.Read.Logic, c.Read.Order = req.Filters, req.Logic, req.Order
	c.Read.Offset, c.Read.Limit = req.Range.Offset, capLimit(req.Range.Limit, opts.MaxRows)
	if err := applyEmbedParams(&c.Read.Node, req.Embedded); err != nil {
		return nil, err
	}
	if err := checkNode(&c.Read.Node, snap); err != nil {
		return nil, err
	}
	return c, nil
}

// wholeBodyArgument finds the overload taking a POST's whole body as its
// one argument: a single unnamed json or jsonb argument for JSON, bytea for
// application/octet-stream, text for text/plain, xml for text/xml; or,
// with Prefer: params=single-object, a single json or jsonb argument of
// any name.
func wholeBodyArgument(fns []*snapshot.Function, media string, singleObject bool) (*snapshot.Function, CallArg) {
	wants := map[string][]string{
		"application/json": {"json", "jsonb"}, "application/octet-stream": {"bytea"},
		"text/plain": {"text"}, "text/xml": {"xml"},
	}[media]
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
			return f, CallArg{Name: in[0].Name, Type: in[0].Type}
		}
	}
	return nil, CallArg{}
}

// arrayLiteral renders values as a PostgreSQL array literal, each element
// quoted so commas, braces and quotes stay data.
func arrayLiteral(values []string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, v := range values {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		b.WriteString(strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v))
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
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

func isArgument(fns []*snapshot.Function, name string) bool {
	for _, f := range fns {
		for _, a := range f.Arguments {
			if a.Name == name && a.Mode != snapshot.ArgOut && a.Mode != snapshot.ArgTable {
				return true
			}
		}
	}
	return false
}

// chooseOverload picks the overload whose arguments the supplied names
// fit: every name is an input argument, and every input argument without
// a default is supplied.
func chooseOverload(snap *snapshot.Snapshot, name snapshot.QualifiedName, fns []*snapshot.Function, supplied []string) (*snapshot.Function, error) {
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
		return nil, apierr.NoFunction(name.String(), supplied, functionHint(snap, name, fns))
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

// functionHint suggests an overload's signature when the name exists, or
// the closest function name in the schema, and names the snapshot looked
// in (staleHint).
func functionHint(snap *snapshot.Snapshot, name snapshot.QualifiedName, fns []*snapshot.Function) string {
	return hints(closestFunction(snap, name, fns), staleHint(snap))
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
