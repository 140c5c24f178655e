package openapi

import (
	"slices"
	"strings"

	"github.com/svc-dev/svc/snapshot"
)

// rootPath describes GET / itself.
func rootPath() *pathItem {
	return &pathItem{Get: &operation{
		Tags:      []string{"Introspection"},
		Summary:   "OpenAPI description (this document)",
		Produces:  []string{"application/openapi+json", "application/json"},
		Responses: map[string]*response{"200": {Description: "OK"}},
	}}
}

// relationPath describes the operations on one relation. The first line
// of its comment is every operation's summary, the rest the description.
func (b *builder) relationPath(r relation) *pathItem {
	summary, description := summarize(r.Description)
	op := func(params []*parameter, responses map[string]*response) *operation {
		return &operation{Tags: []string{r.Name}, Summary: summary, Description: description,
			Parameters: params, Responses: responses}
	}
	refs := func(names ...string) []*parameter {
		out := make([]*parameter, len(names))
		for i, n := range names {
			out[i] = paramRef(n)
		}
		return out
	}
	var filters []*parameter
	for i := range r.Columns {
		if c := &r.Columns[i]; b.filterable(r.Relation, c) {
			filters = append(filters, paramRef(rowFilter(r.Name, c.Name)))
		}
	}
	body := "body." + r.Name
	item := &pathItem{}
	if r.ops.get {
		rows := &schema{Type: "array", Items: &schema{Ref: ref("definitions", r.Name)}}
		item.Get = op(slices.Concat(filters, refs("select", "order", "range", "rangeUnit", "offset", "limit", "preferCount")),
			map[string]*response{"200": {Description: "OK", Schema: rows}, "206": {Description: "Partial Content"}})
	}
	if r.ops.post {
		item.Post = op(refs(body, "select", "preferPost"), map[string]*response{"201": {Description: "Created"}})
	}
	if r.ops.patch {
		item.Patch = op(slices.Concat(filters, refs(body, "preferReturn")),
			map[string]*response{"204": {Description: "No Content"}})
	}
	if r.ops.delete {
		item.Delete = op(slices.Concat(filters, refs("preferReturn")),
			map[string]*response{"204": {Description: "No Content"}})
	}
	return item
}

// argument is one argument callers pass to a function path, merged over
// its overloads.
type argument struct {
	name, typ string
	// required holds when every overload has the argument without a default.
	required bool
	variadic bool
}

// callable lists the arguments of overloads a caller names, in order of
// first appearance: in, inout and variadic ones (out and table arguments
// take no value).
func callable(overloads []*snapshot.Function) []argument {
	var out []argument
	seen := map[string]int{}
	for _, f := range overloads {
		for _, a := range f.Arguments {
			if a.Mode == snapshot.ArgOut || a.Mode == snapshot.ArgTable {
				continue
			}
			if i, ok := seen[a.Name]; ok {
				out[i].required = out[i].required && !a.HasDefault
				continue
			}
			seen[a.Name] = len(out)
			out = append(out, argument{name: a.Name, typ: a.Type, required: !a.HasDefault,
				variadic: a.Mode == snapshot.ArgVariadic})
		}
	}
	// An argument some overload lacks is not required of every caller.
	for i := range out {
		for _, f := range overloads {
			if !slices.ContainsFunc(f.Arguments, func(a snapshot.Argument) bool { return a.Name == out[i].name }) {
				out[i].required = false
			}
		}
	}
	return out
}

// describeOverloads gives a function's comment, the first of its
// overloads', and whether it may be called with GET: when some overload
// is not volatile (GET runs read-only).
func describeOverloads(overloads []*snapshot.Function) (comment string, get bool) {
	for _, f := range overloads {
		if comment == "" {
			comment = f.Description
		}
		get = get || f.Volatility != snapshot.Volatile
	}
	return comment, get
}

// functionPath describes /rpc/<name>: POST always, GET when some overload
// is not volatile (GET runs read-only).
func (b *builder) functionPath(overloads []*snapshot.Function) *pathItem {
	comment, get := describeOverloads(overloads)
	summary, description := summarize(comment)
	args := callable(overloads)
	op := func(params []*parameter) *operation {
		return &operation{
			Tags: []string{"(rpc) " + overloads[0].Name}, Summary: summary, Description: description,
			Produces: []string{"application/json",
				"application/vnd." + b.opts.Vendor + ".object+json;nulls=stripped",
				"application/vnd." + b.opts.Vendor + ".object+json"},
			Parameters: params,
			Responses:  map[string]*response{"200": {Description: "OK"}},
		}
	}
	body := b.argsSchema(args)
	// The body's schema carries the whole comment, as PostgREST's does.
	body.Description = comment
	item := &pathItem{Post: op([]*parameter{
		{Name: "args", In: "body", Required: required, Schema: body},
		paramRef("preferParams"),
	})}
	if get {
		item.Get = op(b.queryArguments(args))
	}
	return item
}

// argsSchema describes a POST body: an object with a key per named
// argument, or, for a function whose one argument has no name, that
// argument itself (the whole body is passed to it).
func (b *builder) argsSchema(args []argument) *schema {
	if len(args) == 1 && args[0].name == "" {
		return typeSchema(b.typeName(args[0].typ), args[0].typ)
	}
	s := &schema{Type: "object", Properties: map[string]*schema{}}
	for _, a := range args {
		if a.name == "" {
			continue
		}
		s.Properties[a.name] = typeSchema(b.typeName(a.typ), a.typ)
		if a.required {
			s.Required = append(s.Required, a.name)
		}
	}
	return s
}

// queryArguments describes the named arguments as query parameters; a
// variadic one is repeated (?v=1&v=2). Unnamed arguments cannot be given
// in a query string.
func (b *builder) queryArguments(args []argument) []*parameter {
	var out []*parameter
	for _, a := range args {
		if a.name == "" {
			continue
		}
		p := &parameter{Name: a.name, In: "query", Required: optional, Type: queryType(a.typ), Format: format(b.typeName(a.typ))}
		if a.required {
			p.Required = required
		}
		if a.variadic {
			// The type of the repeated parameter is its elements'.
			elem := strings.TrimSuffix(nominal(a.typ), "[]")
			p.Type, p.Format, p.CollectionFormat = "array", "", "multi"
			p.Items = &schema{Type: queryType(elem), Format: format(b.typeName(elem))}
		}
		out = append(out, p)
	}
	return out
}
