package openapi

import (
	"maps"

	"github.com/svc-dev/svc/snapshot"
)

// write31 writes the OpenAPI 3.1 description: the same relations,
// functions and privileges as the Swagger 2.0 one, with what 2.0 cannot
// say (several media types per operation, nullable and read-only
// properties, bearer security, the error object) said. Members come in
// document31's order; tags, paths and the components' large objects an
// entry at a time. The components come after the paths, which is what
// lets them be streamed: the paths say which shared parameters are
// used, and which domains (with the relations' row schemas) need a
// component.
func (b *builder) write31(s *jsonStream) {
	s.open(struct {
		OpenAPI string     `json:"openapi"`
		Info    info       `json:"info"`
		Servers []server31 `json:"servers"`
	}{OpenAPI: "3.1.0", Info: b.info(), Servers: []server31{{URL: b.serverURL()}}})

	s.raw(`,"tags":[`)
	s.value(tag31{Name: "Introspection", Description: "This description of the API."})
	for r := range b.described {
		summary, _ := summarize(r.Description)
		if summary == "" {
			summary = string(r.Kind) + " " + r.Name
		}
		s.raw(",")
		s.value(tag31{Name: r.Name, Description: summary})
	}
	for j := range b.layout.fns {
		if o := b.overloads(j); len(o) > 0 {
			summary, _ := summarize(o[0].Description)
			if summary == "" {
				summary = "function " + o[0].Name
			}
			s.raw(",")
			s.value(tag31{Name: "(rpc) " + o[0].Name, Description: summary})
		}
	}
	s.raw("]")

	used := map[string]bool{}
	s.object("paths", false, fixed(map[string]*pathItem3{"/": rootPath31()}), b.paths(
		func(r relation) any { return b.usedBy(b.relationPath31(r), used) },
		func(o []*snapshot.Function) any { return b.usedBy(b.functionPath31(o), used) }))

	// Every domain a row schema refers to has a component, which sorts
	// among the relations' own: made once now, before any is written (a
	// snapshot without domains has none to find).
	if len(b.snap.Content.Domains) > 0 {
		for r := range b.described {
			b.rowSchema(r.Relation)
		}
	}
	s.raw(`,"components":{`)
	s.object("schemas", true,
		fixed(map[string]*jsonSchema{"Error": errorSchema(),
			"Filter": {Type: "string", Pattern: filterPattern, Description: filterHelp}}),
		b.relationSchemas31(),
		fixed(maps.Clone(b.domainSchemas)))
	shared := sharedParameters31()
	maps.DeleteFunc(shared, func(name string, _ *parameter3) bool { return !used[ref3("parameters", name)] })
	s.object("parameters", false, fixed(shared), b.rowFilters31())
	s.object("responses", false,
		fixed(map[string]*response3{"Error": {Description: "The request failed: the SVC error object says why.",
			Content: map[string]*mediaType{"application/json": {Schema: &jsonSchema{Ref: ref3("schemas", "Error")}}}}}),
		b.rowsResponses31())
	s.raw(`,"securitySchemes":`)
	s.value(map[string]*securityScheme3{"jwt": {Type: "http", Scheme: "bearer", BearerFormat: "JWT",
		Description: "A JWT whose role claim names the database role the request runs as."}})
	s.raw("}")

	security := []map[string][]string{{"jwt": {}}}
	if b.opts.Anonymous {
		// An empty requirement: a request without a token runs as the
		// anonymous role.
		security = append(security, map[string][]string{})
	}
	s.close(struct {
		Security []map[string][]string `json:"security,omitempty"`
	}{security})
}

// usedBy notes in used the shared parameters item's operations refer to
// (those no operation refers to are left out, as linters flag unused
// components), and returns item.
func (b *builder) usedBy(item *pathItem3, used map[string]bool) *pathItem3 {
	for _, op := range []*operation3{item.Get, item.Post, item.Put, item.Patch, item.Delete} {
		if op == nil {
			continue
		}
		for _, p := range op.Parameters {
			if p.Ref != "" && !isRowFilterRef(p.Ref) {
				used[p.Ref] = true
			}
		}
	}
	return item
}

// relationSchemas31 yields the row and full row components of the
// relations described.
func (b *builder) relationSchemas31() entries {
	return func(yield func(string, func() any) bool) {
		for _, e := range b.layout.schemas31 {
			rel := &b.snap.Content.Relations[e/2]
			if !b.operations(rel).any() {
				continue
			}
			key := componentName(rel.Name)
			if e%2 == 0 {
				if !yield(key, func() any { return b.rowSchema(rel) }) {
					return
				}
			} else if !yield(fullRowKey(key), func() any { return b.fullRowSchema(rel, key) }) {
				return
			}
		}
	}
}

// rowFilters31 yields the row filters the described relations' paths
// refer to: those of a relation read, updated or deleted from.
func (b *builder) rowFilters31() entries {
	return b.rowFilters(b.layout.filters31, func(r relation) bool { return r.ops.get || r.ops.patch || r.ops.delete },
		func(r relation, c *snapshot.Column) (string, any) {
			return rowFilter(componentName(r.Name), componentName(c.Name)),
				&parameter3{Name: c.Name, In: "query", Description: c.Description, Schema: filterRef}
		})
}

// rowsResponses31 yields the rows response of each relation described.
func (b *builder) rowsResponses31() entries {
	return func(yield func(string, func() any) bool) {
		for _, i := range b.layout.responses31 {
			rel := &b.snap.Content.Relations[i]
			if b.operations(rel).any() && !yield(componentName(rel.Name)+".rows", func() any { return b.rowsResponse(rel) }) {
				return
			}
		}
	}
}
