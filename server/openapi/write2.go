package openapi

import (
	"github.com/svc-dev/svc/snapshot"
)

// write2 writes the Swagger 2.0 description: the document struct's
// members in its order, paths, definitions and parameters an entry at a
// time (layout's order).
func (b *builder) write2(s *jsonStream) {
	media := []string{
		"application/json",
		"application/vnd." + b.opts.Vendor + ".object+json;nulls=stripped",
		"application/vnd." + b.opts.Vendor + ".object+json",
		"text/csv",
	}
	head := swaggerHead{Swagger: "2.0", Info: b.info(), Host: b.opts.Host, BasePath: b.opts.BasePath,
		Consumes: media, Produces: media}
	if b.opts.Scheme != "" {
		head.Schemes = []string{b.opts.Scheme}
	}
	s.open(head)
	s.object("paths", false, fixed(map[string]*pathItem{"/": rootPath()}), b.paths2())
	s.object("definitions", false, b.definitions())
	s.object("parameters", false, fixed(sharedParameters()), b.bodies(), b.rowFilters2())
	var tail swaggerTail
	if b.opts.Security {
		tail.SecurityDefinitions = map[string]*securityScheme{"JWT": {Type: "apiKey", In: "header",
			Name: "Authorization", Description: jwtDescription}}
		tail.Security = []map[string][]string{{"JWT": {}}}
	}
	s.close(tail)
}

// jwtDescription describes the JWT security definition in PostgREST's
// words, which clients generated from its document show.
const jwtDescription = `Add the token prepending "Bearer " (without quotes) to it`

// described yields the relations the document describes (those with an
// operation the role may use), by name.
func (b *builder) described(yield func(relation) bool) {
	for _, i := range b.layout.rels {
		r := &b.snap.Content.Relations[i]
		if o := b.operations(r); o.any() && !yield(relation{r, o}) {
			return
		}
	}
}

// overloads are the overloads of function group j the role may call.
func (b *builder) overloads(j int) []*snapshot.Function {
	var out []*snapshot.Function
	for _, i := range b.layout.fns[j] {
		f := &b.snap.Content.Functions[i]
		if b.access == nil || b.access.Execute(f) {
			out = append(out, f)
		}
	}
	return out
}

// paths yields the paths of the relations described and the functions
// the role may call, by route, made by rel and fn.
func (b *builder) paths(rel func(relation) any, fn func([]*snapshot.Function) any) entries {
	return func(yield func(string, func() any) bool) {
		for _, p := range b.layout.paths {
			if p < 0 {
				if o := b.overloads(int(^p)); len(o) > 0 && !yield(route("/rpc/", o[0].Name), func() any { return fn(o) }) {
					return
				}
				continue
			}
			r := &b.snap.Content.Relations[p]
			if o := b.operations(r); o.any() && !yield(route("/", r.Name), func() any { return rel(relation{r, o}) }) {
				return
			}
		}
	}
}

func (b *builder) paths2() entries {
	return b.paths(func(r relation) any { return b.relationPath(r) },
		func(o []*snapshot.Function) any { return b.functionPath(o) })
}

// definitions yields a definition per relation described.
func (b *builder) definitions() entries {
	return func(yield func(string, func() any) bool) {
		for r := range b.described {
			if !yield(r.Name, func() any { return b.definition(r.Relation) }) {
				return
			}
		}
	}
}

// bodies yields the body parameter of each relation described.
func (b *builder) bodies() entries {
	return func(yield func(string, func() any) bool) {
		for r := range b.described {
			p := &parameter{Name: r.Name, In: "body", Description: r.Name, Required: optional,
				Schema: &schema{Ref: ref("definitions", r.Name)}}
			if !yield("body."+r.Name, func() any { return p }) {
				return
			}
		}
	}
}

// rowFilters2 yields the row filters of the relations described, on the
// columns the role may filter.
func (b *builder) rowFilters2() entries {
	return lastOfEqual(b.rowFilters(b.layout.filters2, relation.any2, func(r relation, c *snapshot.Column) (string, any) {
		return rowFilter(r.Name, c.Name), &parameter{Name: c.Name, In: "query", Description: c.Description,
			Required: optional, Type: "string", Format: nominal(c.Type)}
	}))
}

// any2 reports whether a 2.0 document describes r's row filters: when it
// describes r.
func (r relation) any2() bool { return r.ops.any() }

// rowFilters yields an entry per column of refs the role may filter, of
// the relations whose filters used says are referred to.
func (b *builder) rowFilters(refs []colRef, used func(relation) bool, entry func(relation, *snapshot.Column) (string, any)) entries {
	return func(yield func(string, func() any) bool) {
		// The filters of one relation mostly come together: its
		// operations are decided once for them.
		last, r := int32(-1), relation{}
		for _, ref := range refs {
			if ref.rel != last {
				last = ref.rel
				rel := &b.snap.Content.Relations[ref.rel]
				r = relation{rel, b.operations(rel)}
			}
			c := &r.Columns[ref.col]
			if !used(r) || !b.filterable(r.Relation, c) {
				continue
			}
			key, v := entry(r, c)
			if !yield(key, func() any { return v }) {
				return
			}
		}
	}
}
