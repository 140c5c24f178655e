package openapi

import (
	"slices"
	"strings"

	"github.com/svc-dev/svc/snapshot"
)

// errorResponses are the answers every operation may give besides its
// success: SVC's error object, for the client's fault and the server's.
func errorResponses(ok map[string]*response3) map[string]*response3 {
	ok["4XX"] = &response3{Ref: ref3("responses", "Error")}
	ok["5XX"] = &response3{Ref: ref3("responses", "Error")}
	return ok
}

// contentRange is the header a read or a counted write answers with.
var contentRange = &header3{Description: "Rows returned and, when counted, the total, e.g. 0-24/100.",
	Schema: &jsonSchema{Type: "string"}}

// rowContent describes rows of the relation whose schema component is
// key in each media type SVC answers them in, and in those of the
// schema's handlers for rel. A row is a full row (no select=, or *) or
// holds the columns select= names: either component.
func (b *builder) rowContent(key string, rel snapshot.QualifiedName) map[string]*mediaType {
	row := &jsonSchema{AnyOf: []*jsonSchema{{Ref: ref3("schemas", fullRowKey(key))}, {Ref: ref3("schemas", key)}}}
	rows := &jsonSchema{Type: "array", Items: row}
	v := "application/vnd." + b.opts.Vendor
	c := map[string]*mediaType{
		"application/json":                {Schema: rows},
		v + ".array+json;nulls=stripped":  {Schema: rows},
		v + ".object+json":                {Schema: row},
		v + ".object+json;nulls=stripped": {Schema: row},
		"text/csv":                        {Schema: &jsonSchema{Type: "string"}},
	}
	for _, m := range b.handlers(rel) {
		c[m] = raw(m)
	}
	return c
}

// rowsResponse is the response component of rows of r (key.rows),
// shared by its reads and its writes returning a representation.
func (b *builder) rowsResponse(r *snapshot.Relation) *response3 {
	return &response3{Description: "Rows of " + r.Name + ".",
		Headers: map[string]*header3{"Content-Range": contentRange}, Content: b.rowContent(componentName(r.Name), r.QualifiedName)}
}

// relationPath31 describes the operations on relation r. Its rows
// response is a component (rowsResponse).
func (b *builder) relationPath31(r relation) *pathItem3 {
	key := componentName(r.Name)
	summary, description := summarize(r.Description)
	content := b.rowContent(key, r.QualifiedName)
	rows := &response3{Ref: ref3("responses", key+".rows")}
	op := func(method, what string, params []*parameter3, ok map[string]*response3) *operation3 {
		s := summary
		if s == "" {
			s = what + " " + r.Name
		}
		return &operation3{OperationID: method + "." + key, Tags: []string{r.Name}, Summary: s,
			Description: description, Parameters: params, Responses: errorResponses(ok)}
	}
	var filters []*parameter3
	for i := range r.Columns {
		if c := &r.Columns[i]; b.filterable(r.Relation, c) {
			filters = append(filters, rowFilter31(key, componentName(c.Name)))
		}
	}
	filters = append(filters, refs("or", "and")...)
	item := &pathItem3{}
	noContent := &response3{Description: "Done; Prefer: return=representation returns the rows.",
		Headers: map[string]*header3{"Content-Range": contentRange}}
	if r.ops.get {
		item.Get = op("get", "Read rows of", slices.Concat(filters, refs("select", "order", "limit", "offset", "range", "rangeUnit", "preferRead")),
			map[string]*response3{"200": rows, "206": rows})
	}
	if r.ops.post {
		created := &response3{Description: "Created; Prefer: return=representation returns the rows.",
			Headers: map[string]*header3{
				"Location":      {Description: "The created row, as a filter on its primary key.", Schema: &jsonSchema{Type: "string"}},
				"Content-Range": contentRange,
			}, Content: content}
		item.Post = op("post", "Insert rows into", refs("select", "columns", "on_conflict", "preferInsert"),
			map[string]*response3{"201": created, "200": rows, "204": noContent})
		item.Post.RequestBody = b.rowBody(r.Relation, key, true)
	}
	if r.ops.patch {
		item.Patch = op("patch", "Update rows of", slices.Concat(filters, refs("select", "columns", "order", "limit", "preferWrite")),
			map[string]*response3{"200": rows, "204": noContent})
		item.Patch.RequestBody = b.rowBody(r.Relation, key, false)
	}
	if put := b.putKey(r); put != nil {
		item.Put = op("put", "Insert or replace one row of", slices.Concat(put, refs("select", "columns", "preferWrite")),
			map[string]*response3{"200": rows, "201": rows, "204": noContent})
		item.Put.Description = strings.TrimSpace(description + "\n\nThe filters are eq on every primary key column, and the body is the whole row with that key.")
		item.Put.RequestBody = b.rowBody(r.Relation, key, false)
	}
	if r.ops.delete {
		item.Delete = op("delete", "Delete rows of", slices.Concat(filters, refs("select", "order", "limit", "preferWrite")),
			map[string]*response3{"200": rows, "204": noContent})
	}
	return item
}

// rowBody describes the body of an insert (one row or several, in JSON,
// CSV or a form; the columns an insert must give required) or of an
// update (one object, any columns).
func (b *builder) rowBody(r *snapshot.Relation, key string, insert bool) *requestBody3 {
	row := &jsonSchema{Ref: ref3("schemas", key)}
	json := row
	if insert {
		if req := b.insertRequired(r); len(req) > 0 {
			row = &jsonSchema{AllOf: []*jsonSchema{row}, Required: req}
		}
		json = &jsonSchema{OneOf: []*jsonSchema{row, {Type: "array", Items: row}}}
	}
	return &requestBody3{Required: true, Content: map[string]*mediaType{
		"application/json":                  {Schema: json},
		"application/x-www-form-urlencoded": {Schema: row},
		"text/csv":                          {Schema: &jsonSchema{Type: "string", Description: "A header line naming the columns, then a line per row."}},
	}}
}

// functionPath31 describes /rpc/<name>: POST always, GET when some
// overload is not volatile (GET runs read-only).
func (b *builder) functionPath31(overloads []*snapshot.Function) *pathItem3 {
	name := overloads[0].Name
	key := componentName(name)
	comment, get := describeOverloads(overloads)
	summary, description := summarize(comment)
	if summary == "" {
		summary = "Call " + name
	}
	args := callable(overloads)
	ok := b.resultResponses(overloads)
	op := func(method string, params []*parameter3) *operation3 {
		return &operation3{OperationID: method + ".rpc." + key, Tags: []string{"(rpc) " + name}, Summary: summary,
			Description: description, Parameters: params, Responses: errorResponses(ok)}
	}
	item := &pathItem3{Post: op("post", refs("preferCall"))}
	item.Post.RequestBody = b.argsBody(args)
	if get {
		item.Get = op("get", b.queryArguments31(args))
	}
	return item
}

// argsBody describes a call's body: an object with a key per named
// argument, in JSON or a form; for a function whose one argument has no
// name, that argument itself, also as raw text, XML or bytes when that is
// its type.
func (b *builder) argsBody(args []argument) *requestBody3 {
	if len(args) == 1 && args[0].name == "" {
		c := map[string]*mediaType{"application/json": {Schema: b.typeSchema31(args[0].typ, args[0].typ)}}
		switch nominal(args[0].typ) {
		case "text":
			c["text/plain"] = raw("text/plain")
		case "xml":
			c["text/xml"] = raw("text/xml")
		case "bytea":
			c["application/octet-stream"] = raw("application/octet-stream")
		}
		return &requestBody3{Required: true, Content: c}
	}
	s := &jsonSchema{Type: "object", Properties: map[string]*jsonSchema{}}
	for _, a := range args {
		if a.name == "" {
			continue
		}
		// Null cast to a NOT NULL domain fails, so such an argument
		// cannot be null.
		s.Properties[a.name] = b.typeSchema31(a.typ, a.typ)
		if !b.domainNotNull(a.typ) {
			nullable(s.Properties[a.name])
		}
		if a.required {
			s.Required = append(s.Required, a.name)
		}
	}
	return &requestBody3{Required: len(s.Required) > 0, Content: map[string]*mediaType{
		"application/json":                  {Schema: s},
		"application/x-www-form-urlencoded": {Schema: s},
	}}
}

// queryArguments31 describes the named arguments as query parameters; a
// variadic one is repeated (?v=1&v=2). Unnamed arguments cannot be given
// in a query string.
func (b *builder) queryArguments31(args []argument) []*parameter3 {
	var out []*parameter3
	for _, a := range args {
		if a.name == "" {
			continue
		}
		p := &parameter3{Name: a.name, In: "query", Required: a.required, Schema: b.queryValue(a.typ)}
		if a.variadic {
			explode := true
			p.Explode = &explode
			p.Schema = &jsonSchema{Type: "array", Items: b.queryValue(strings.TrimSuffix(nominal(a.typ), "[]"))}
		}
		out = append(out, p)
	}
	return out
}

// queryValue describes an argument given in the query string, where an
// array literal or a JSON text is a string; a domain over a scalar type
// is its component.
func (b *builder) queryValue(t string) *jsonSchema {
	if d := b.snap.Domain(t); d != nil {
		if base := valueSchema(t, b.finalBase(d)); base.Type != "array" && base.Type != nil {
			return b.domainRef(d)
		}
		return &jsonSchema{Type: "string", Format: nominal(t)}
	}
	s := valueSchema(t, t)
	if s.Type == "array" || s.Type == nil {
		return &jsonSchema{Type: "string", Format: nominal(t)}
	}
	return s
}

// putKey describes the filters of PUT, the upsert of the one row they
// name: eq on every primary key column, each required. A relation
// without a primary key, or that the role may not both insert into and
// update, has no PUT.
func (b *builder) putKey(r relation) []*parameter3 {
	if !r.ops.post || !r.ops.patch || len(r.PrimaryKey) == 0 {
		return nil
	}
	var out []*parameter3
	for _, name := range r.PrimaryKey {
		c := b.snap.Column(r.Relation, name)
		if c == nil || !b.filterable(r.Relation, c) {
			return nil
		}
		out = append(out, &parameter3{Name: c.Name, In: "query", Required: true,
			Description: "The row's key: eq.value.", Schema: &jsonSchema{Type: "string", Pattern: `^eq\.`}})
	}
	return out
}
