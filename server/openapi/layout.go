package openapi

import (
	"cmp"
	"slices"

	"github.com/svc-dev/svc/snapshot"
)

// The document's large objects (paths, definitions, parameters, schemas,
// responses) are JSON objects whose keys encoding/json would write
// sorted, and which Write streams an entry at a time in that same order.
// A layout gives that order for one snapshot and schema: every relation,
// function and filterable column of the schema in the order of the keys
// they make, privileges aside, so that a role's document is the entries
// it may see, read in this order. It costs a few integers per relation and
// column, built once per snapshot and schema (Cache keeps it), where a
// request would otherwise sort its keys itself.

// layout is the order of a schema's entries in its documents.
type layout struct {
	// rels are the schema's relations (indices into Content.Relations)
	// by name: the definitions and body parameters, and the tags.
	rels []int32
	// fns are the schema's functions (indices into Content.Functions)
	// grouped by name, overloads sharing a path, in name order.
	fns [][]int32
	// paths are the routes of both versions by key: relation i as i,
	// function group j of fns as ^j.
	paths []int32
	// filters2 are the Swagger 2.0 row filters by key; names such as
	// "a.b"."c" and "a"."b.c" make one key, which the document's last
	// relation and column (in name and column order) take.
	filters2 []colRef
	// schemas31 are relation i's row component (2i) and full row
	// component (2i+1) by key.
	schemas31 []int32
	// filters31 are the OpenAPI 3.1 row filters by key (all distinct:
	// componentName is one to one and leaves no ".").
	filters31 []colRef
	// responses31 are the relations' rows responses by key.
	responses31 []int32
}

// colRef is column col of relation rel (index into Content.Relations).
type colRef struct{ rel, col int32 }

// newLayout orders the entries of schema's documents over snap.
func newLayout(snap *snapshot.Snapshot, schema string) *layout {
	l := &layout{}
	rels := snap.Content.Relations
	for i := range rels {
		if rels[i].Schema == schema {
			l.rels = append(l.rels, int32(i))
		}
	}
	slices.SortFunc(l.rels, func(x, y int32) int { return cmp.Compare(rels[x].Name, rels[y].Name) })

	byName := map[string]int{}
	for i := range snap.Content.Functions {
		f := &snap.Content.Functions[i]
		if f.Schema != schema {
			continue
		}
		j, ok := byName[f.Name]
		if !ok {
			j = len(l.fns)
			byName[f.Name] = j
			l.fns = append(l.fns, nil)
		}
		l.fns[j] = append(l.fns[j], int32(i))
	}
	fnName := func(g []int32) string { return snap.Content.Functions[g[0]].Name }
	slices.SortFunc(l.fns, func(x, y []int32) int { return cmp.Compare(fnName(x), fnName(y)) })

	paths := make([]keyed[int32], 0, len(l.rels)+len(l.fns))
	for _, i := range l.rels {
		paths = append(paths, keyed[int32]{route("/", rels[i].Name), i})
	}
	for j, g := range l.fns {
		paths = append(paths, keyed[int32]{route("/rpc/", fnName(g)), int32(^j)})
	}
	l.paths = sortedValues(paths)

	var f2, f31 []keyed[colRef]
	schemas := make([]keyed[int32], 0, 2*len(l.rels))
	responses := make([]keyed[int32], 0, len(l.rels))
	for _, i := range l.rels {
		r := &rels[i]
		key := componentName(r.Name)
		schemas = append(schemas, keyed[int32]{key, 2 * i}, keyed[int32]{fullRowKey(key), 2*i + 1})
		responses = append(responses, keyed[int32]{key + ".rows", i})
		for j := range r.Columns {
			c := &r.Columns[j]
			if reservedQuery[c.Name] {
				continue
			}
			ref := colRef{i, int32(j)}
			f2 = append(f2, keyed[colRef]{rowFilter(r.Name, c.Name), ref})
			f31 = append(f31, keyed[colRef]{rowFilter(key, componentName(c.Name)), ref})
		}
	}
	l.filters2, l.filters31 = sortedValues(f2), sortedValues(f31)
	l.schemas31, l.responses31 = sortedValues(schemas), sortedValues(responses)
	return l
}

// keyed is a value and the key it has in the document.
type keyed[T any] struct {
	key string
	v   T
}

// sortedValues are the values of es by key; values of equal keys keep
// their order (the order a document assigns them in).
func sortedValues[T any](es []keyed[T]) []T {
	slices.SortStableFunc(es, func(x, y keyed[T]) int { return cmp.Compare(x.key, y.key) })
	out := make([]T, len(es))
	for i, e := range es {
		out[i] = e.v
	}
	return out
}
