package openapi

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/svc-dev/svc/snapshot"
)

// The reference: each document built whole as a tree of maps and
// marshalled by encoding/json, as Build did before it streamed. Write
// must give exactly its bytes: the order encoding/json gives a map's
// keys, and the entry a map keeps of equal keys, are what layout and
// jsonStream.object reproduce.

// reference returns the document for opts over snap, built whole.
func reference(t *testing.T, snap *snapshot.Snapshot, opts Options) []byte {
	t.Helper()
	b := &builder{snap: snap, opts: opts}
	if opts.FollowPrivileges {
		a := snap.AccessOf(opts.Role)
		b.access = &a
	}
	var doc any
	if opts.Format == OpenAPI31 {
		doc = b.refDocument31()
	} else {
		doc = b.refDocument()
	}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// relations are the schema's relations the document describes, by name.
func (b *builder) refRelations() []relation {
	var out []relation
	for i := range b.snap.Content.Relations {
		r := &b.snap.Content.Relations[i]
		if r.Schema != b.opts.Schema {
			continue
		}
		if o := b.operations(r); o.any() {
			out = append(out, relation{r, o})
		}
	}
	slices.SortFunc(out, func(x, y relation) int { return strings.Compare(x.Name, y.Name) })
	return out
}

// functions are the schema's functions the document describes, grouped by
// name (overloads share one path), in name order.
func (b *builder) refFunctions() [][]*snapshot.Function {
	byName := map[string][]*snapshot.Function{}
	var names []string
	for i := range b.snap.Content.Functions {
		f := &b.snap.Content.Functions[i]
		if f.Schema != b.opts.Schema || (b.access != nil && !b.access.Execute(f)) {
			continue
		}
		if byName[f.Name] == nil {
			names = append(names, f.Name)
		}
		byName[f.Name] = append(byName[f.Name], f)
	}
	slices.Sort(names)
	out := make([][]*snapshot.Function, len(names))
	for i, n := range names {
		out[i] = byName[n]
	}
	return out
}

// refDocument is the Swagger 2.0 document as a tree, marshalled whole.
func (b *builder) refDocument() *document {
	rels := b.refRelations()
	media := []string{
		"application/json",
		"application/vnd." + b.opts.Vendor + ".object+json;nulls=stripped",
		"application/vnd." + b.opts.Vendor + ".object+json",
		"text/csv",
	}
	d := &document{
		swaggerHead: swaggerHead{Swagger: "2.0", Info: b.info(), Host: b.opts.Host, BasePath: b.opts.BasePath,
			Consumes: media, Produces: media},
		Paths:       map[string]*pathItem{"/": rootPath()},
		Definitions: map[string]*schema{},
		Parameters:  sharedParameters(),
	}
	if b.opts.Scheme != "" {
		d.Schemes = []string{b.opts.Scheme}
	}
	for _, r := range rels {
		d.Paths[route("/", r.Name)] = b.relationPath(r)
		d.Definitions[r.Name] = b.definition(r.Relation)
		d.Parameters["body."+r.Name] = &parameter{Name: r.Name, In: "body", Description: r.Name,
			Required: optional, Schema: &schema{Ref: ref("definitions", r.Name)}}
		for i := range r.Columns {
			c := &r.Columns[i]
			if !b.filterable(r.Relation, c) {
				continue
			}
			d.Parameters[rowFilter(r.Name, c.Name)] = &parameter{Name: c.Name, In: "query",
				Description: c.Description, Required: optional, Type: "string", Format: nominal(c.Type)}
		}
	}
	for _, overloads := range b.refFunctions() {
		d.Paths[route("/rpc/", overloads[0].Name)] = b.functionPath(overloads)
	}
	if b.opts.Security {
		d.SecurityDefinitions = map[string]*securityScheme{"JWT": {Type: "apiKey", In: "header",
			Name: "Authorization", Description: jwtDescription}}
		d.Security = []map[string][]string{{"JWT": {}}}
	}
	return d
}

// refDocument31 is the OpenAPI 3.1 document as a tree, marshalled whole.
func (b *builder) refDocument31() *document31 {
	d := &document31{
		OpenAPI: "3.1.0",
		Info:    b.info(),
		Servers: []server31{{URL: b.serverURL()}},
		Paths:   map[string]*pathItem3{"/": rootPath31()},
		Components: components31{
			Schemas: map[string]*jsonSchema{"Error": errorSchema(),
				"Filter": {Type: "string", Pattern: filterPattern, Description: filterHelp}},
			Parameters: sharedParameters31(),
			Responses: map[string]*response3{"Error": {Description: "The request failed: the SVC error object says why.",
				Content: map[string]*mediaType{"application/json": {Schema: &jsonSchema{Ref: ref3("schemas", "Error")}}}}},
			SecuritySchemes: map[string]*securityScheme3{"jwt": {Type: "http", Scheme: "bearer", BearerFormat: "JWT",
				Description: "A JWT whose role claim names the database role the request runs as."}},
		},
		Tags: []tag31{{Name: "Introspection", Description: "This description of the API."}},
	}
	d.Security = []map[string][]string{{"jwt": {}}}
	if b.opts.Anonymous {
		// An empty requirement: a request without a token runs as the
		// anonymous role.
		d.Security = append(d.Security, map[string][]string{})
	}
	for _, r := range b.refRelations() {
		key := componentName(r.Name)
		d.Components.Schemas[key] = b.rowSchema(r.Relation)
		d.Components.Schemas[fullRowKey(key)] = b.fullRowSchema(r.Relation, key)
		for i := range r.Columns {
			c := &r.Columns[i]
			if b.filterable(r.Relation, c) {
				d.Components.Parameters[rowFilter(key, componentName(c.Name))] = &parameter3{Name: c.Name, In: "query",
					Description: c.Description, Schema: filterRef}
			}
		}
		d.Paths[route("/", r.Name)] = b.relationPath31(r)
		d.Components.Responses[key+".rows"] = b.rowsResponse(r.Relation)
		summary, _ := summarize(r.Description)
		if summary == "" {
			summary = string(r.Kind) + " " + r.Name
		}
		d.Tags = append(d.Tags, tag31{Name: r.Name, Description: summary})
	}
	for _, overloads := range b.refFunctions() {
		d.Paths[route("/rpc/", overloads[0].Name)] = b.functionPath31(overloads)
		summary, _ := summarize(overloads[0].Description)
		if summary == "" {
			summary = "function " + overloads[0].Name
		}
		d.Tags = append(d.Tags, tag31{Name: "(rpc) " + overloads[0].Name, Description: summary})
	}
	for key, s := range b.domainSchemas {
		d.Components.Schemas[key] = s
	}
	d.pruneParameters()
	return d
}

// pruneParameters drops the shared parameters no operation refers to (a
// schema without writable relations has no use for Prefer: return=...),
// as linters flag unused components.
func (d *document31) pruneParameters() {
	used := map[string]bool{}
	for _, item := range d.Paths {
		for _, op := range []*operation3{item.Get, item.Post, item.Put, item.Patch, item.Delete} {
			if op == nil {
				continue
			}
			for _, p := range op.Parameters {
				used[p.Ref] = true
			}
		}
	}
	for name := range d.Components.Parameters {
		if !used[ref3("parameters", name)] {
			delete(d.Components.Parameters, name)
		}
	}
}
