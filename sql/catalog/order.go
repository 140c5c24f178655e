package catalog

import (
	"cmp"
	"slices"
	"strings"

	"github.com/svc-dev/svc/snapshot"
)

// The fingerprint is a hash of the encoded content, so every list is put in
// one order here and "none" is spelled one way: nil for omitempty fields
// (msgpack omits both nil and empty, and decoding yields nil), an empty
// slice otherwise. Sorting is by byte order in Go rather than ORDER BY in
// SQL, whose result would depend on the database's collation.

// normaliseRelations sorts relations by name, grants by grantee, and
// unique keys and computed fields by name.
func normaliseRelations(rels []snapshot.Relation) {
	slices.SortFunc(rels, func(a, b snapshot.Relation) int { return cmpName(a.QualifiedName, b.QualifiedName) })
	for i := range rels {
		r := &rels[i]
		r.Grants = normaliseGrants(r.Grants, false)
		for j := range r.Columns {
			c := &r.Columns[j]
			c.Grants = normaliseGrants(c.Grants, true)
			if len(c.EnumValues) == 0 {
				c.EnumValues = nil
			}
		}
		if len(r.ComputedFields) == 0 {
			r.ComputedFields = nil
		}
		slices.SortFunc(r.ComputedFields, func(a, b snapshot.ComputedField) int { return strings.Compare(a.Name(), b.Name()) })
		slices.SortStableFunc(r.UniqueKeys, func(a, b snapshot.UniqueKey) int { return strings.Compare(a.Name, b.Name) })
		// Index names are unique per schema; this only guards the invariant.
		r.UniqueKeys = slices.CompactFunc(r.UniqueKeys, func(a, b snapshot.UniqueKey) bool { return a.Name == b.Name })
	}
}

// normaliseGrants sorts grants by grantee and each one's privileges; an
// empty list becomes nil when the field is omitempty, else non-nil.
func normaliseGrants(gs []snapshot.Grant, omitEmpty bool) []snapshot.Grant {
	if len(gs) == 0 {
		if omitEmpty {
			return nil
		}
		return []snapshot.Grant{}
	}
	for i := range gs {
		slices.Sort(gs[i].Privileges)
	}
	slices.SortFunc(gs, func(a, b snapshot.Grant) int { return strings.Compare(a.Grantee, b.Grantee) })
	return gs
}

// normaliseRelationships sorts by table, foreign table, constraint and
// cardinality, then by the remaining fields so that ties (a view showing a
// key column under two names) still have one order, and drops duplicates.
// Referencing is left out of the order: a key of a table on its own
// columns has two directions alike but for it, which embed as one, and
// the one kept is referencing if either was.
func normaliseRelationships(rs []snapshot.Relationship) []snapshot.Relationship {
	slices.SortFunc(rs, cmpRelationship)
	out := rs[:0]
	for _, r := range rs {
		if n := len(out); n > 0 && cmpRelationship(out[n-1], r) == 0 {
			out[n-1].Referencing = out[n-1].Referencing || r.Referencing
			continue
		}
		out = append(out, r)
	}
	rs = out
	if rs == nil {
		return []snapshot.Relationship{}
	}
	return rs
}

// cmpRelationship orders relationships by every field but Referencing.
func cmpRelationship(a, b snapshot.Relationship) int {
	if c := cmpName(a.Table, b.Table); c != 0 {
		return c
	}
	if c := cmpName(a.ForeignTable, b.ForeignTable); c != 0 {
		return c
	}
	if c := cmp.Or(strings.Compare(a.Constraint, b.Constraint), strings.Compare(string(a.Cardinality), string(b.Cardinality))); c != 0 {
		return c
	}
	if c := slices.CompareFunc(a.Columns, b.Columns, cmpPair); c != 0 {
		return c
	}
	if c := cmpJunction(a.Junction, b.Junction); c != 0 {
		return c
	}
	switch {
	case a.Function == nil && b.Function == nil:
		return 0
	case a.Function == nil:
		return -1
	case b.Function == nil:
		return 1
	}
	return cmpName(*a.Function, *b.Function)
}

// cmpJunction orders junctions, nil first.
func cmpJunction(a, b *snapshot.Junction) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return cmp.Or(
		cmpName(a.Table, b.Table),
		strings.Compare(a.SourceConstraint, b.SourceConstraint),
		strings.Compare(a.TargetConstraint, b.TargetConstraint),
		slices.CompareFunc(a.SourceColumns, b.SourceColumns, cmpPair),
		slices.CompareFunc(a.TargetColumns, b.TargetColumns, cmpPair),
	)
}

func cmpPair(a, b snapshot.ColumnPair) int {
	return cmp.Or(strings.Compare(a.Column, b.Column), strings.Compare(a.ForeignColumn, b.ForeignColumn))
}

// normaliseFunctions orders overloads by their argument types after the
// name, which is how a caller tells them apart.
func normaliseFunctions(fs []function) []snapshot.Function {
	out := make([]snapshot.Function, len(fs))
	for i := range fs {
		f := fs[i].Function
		f.Grants = normaliseGrants(f.Grants, false)
		if len(f.Settings) == 0 {
			f.Settings = nil
		}
		out[i] = f
	}
	slices.SortFunc(out, func(a, b snapshot.Function) int {
		if c := cmpName(a.QualifiedName, b.QualifiedName); c != 0 {
			return c
		}
		return slices.CompareFunc(a.Arguments, b.Arguments, func(x, y snapshot.Argument) int {
			return cmp.Or(strings.Compare(x.Type, y.Type), strings.Compare(string(x.Mode), string(y.Mode)),
				strings.Compare(x.Name, y.Name))
		})
	})
	return out
}

// normaliseCasts sorts casts by source and target type.
func normaliseCasts(cs []snapshot.Cast) []snapshot.Cast {
	if cs == nil {
		return []snapshot.Cast{}
	}
	slices.SortFunc(cs, func(a, b snapshot.Cast) int {
		return cmp.Or(strings.Compare(a.Source, b.Source), strings.Compare(a.Target, b.Target), cmpName(a.Function, b.Function))
	})
	return cs
}

// normaliseRoles sorts roles by name and each one's memberships.
func normaliseRoles(rs []snapshot.Role) []snapshot.Role {
	if rs == nil {
		return []snapshot.Role{}
	}
	for i := range rs {
		if len(rs[i].MemberOf) == 0 {
			rs[i].MemberOf = nil
		}
		slices.Sort(rs[i].MemberOf)
	}
	slices.SortFunc(rs, func(a, b snapshot.Role) int { return strings.Compare(a.Name, b.Name) })
	return rs
}

func cmpName(a, b snapshot.QualifiedName) int {
	return cmp.Or(strings.Compare(a.Schema, b.Schema), strings.Compare(a.Name, b.Name))
}

// normaliseMediaHandlers sorts handlers by media type, relation and
// aggregate, so the first of two for one relation and media type (see
// snapshot.MediaHandler) is the same in every dump.
func normaliseMediaHandlers(hs []snapshot.MediaHandler) []snapshot.MediaHandler {
	if hs == nil {
		return []snapshot.MediaHandler{}
	}
	slices.SortFunc(hs, func(a, b snapshot.MediaHandler) int {
		return cmp.Or(strings.Compare(a.Media.Type, b.Media.Type), cmpName(a.Relation, b.Relation), cmpName(a.Aggregate, b.Aggregate))
	})
	return hs
}
