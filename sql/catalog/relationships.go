package catalog

import (
	"slices"

	"github.com/svc-dev/svc/snapshot"
)

// inference holds what relationship inference looks things up in.
type inference struct {
	rels   map[uint32]*relation
	keys   map[uint32][]key
	traces map[uint32]viewTrace
	// viewsOver lists, per base relation, the exposed views tracing to it,
	// in oid order so that inference output does not depend on map order.
	viewsOver map[uint32][]uint32
	out       []snapshot.Relationship
}

// end is one side of a foreign key as an exposed relation shows it: the
// table itself, or a view showing all of the key's columns.
type end struct {
	rel  *relation
	cols []string
}

// inferRelationships derives every relationship PostgREST would offer:
// many-to-one and one-to-many (one-to-one when the referencing columns form
// a key) from each foreign key, repeated for the views that show both ends'
// key columns; many-to-many through junctions whose primary key holds two
// foreign keys; and computed relationships from functions.
func inferRelationships(rels map[uint32]*relation, keys map[uint32][]key, traces map[uint32]viewTrace,
	fks []foreignKey, funcs []function) []snapshot.Relationship {
	inf := &inference{rels: rels, keys: keys, traces: traces, viewsOver: map[uint32][]uint32{}}
	for view, trace := range traces {
		for base := range basesOf(trace) {
			inf.viewsOver[base] = append(inf.viewsOver[base], view)
		}
	}
	for _, views := range inf.viewsOver {
		slices.Sort(views)
	}
	var manyToOne []snapshot.Relationship
	for _, fk := range fks {
		manyToOne = append(manyToOne, inf.foreignKey(fk)...)
	}
	inf.manyToMany(manyToOne)
	inf.computed(funcs)
	return inf.out
}

// foreignKey adds both directions of fk for every pair of ends and returns
// the many-to-one ones, the candidates for junction legs.
func (inf *inference) foreignKey(fk foreignKey) []snapshot.Relationship {
	toOne, fromOne := snapshot.ManyToOne, snapshot.OneToMany
	if inf.isKey(fk.rel, fk.cols) {
		toOne, fromOne = snapshot.OneToOne, snapshot.OneToOne
	}
	var manyToOne []snapshot.Relationship
	for _, src := range inf.ends(fk.rel, fk.cols) {
		for _, dst := range inf.ends(fk.frel, fk.fcols) {
			forward := relationship(src, dst, toOne, fk.name)
			forward.Referencing = true
			inf.out = append(inf.out, forward, relationship(dst, src, fromOne, fk.name))
			if toOne == snapshot.ManyToOne {
				manyToOne = append(manyToOne, forward)
			}
		}
	}
	return manyToOne
}

func relationship(from, to end, card snapshot.Cardinality, constraint string) snapshot.Relationship {
	return snapshot.Relationship{
		Table:        from.rel.QualifiedName,
		ForeignTable: to.rel.QualifiedName,
		Cardinality:  card,
		Constraint:   constraint,
		Columns:      pairs(from.cols, to.cols),
		IsSelf:       from.rel.QualifiedName == to.rel.QualifiedName,
	}
}

func pairs(cols, fcols []string) []snapshot.ColumnPair {
	out := make([]snapshot.ColumnPair, len(cols))
	for i := range cols {
		out[i] = snapshot.ColumnPair{Column: cols[i], ForeignColumn: fcols[i]}
	}
	return out
}

// isKey reports whether cols are, as a set, exactly the columns of one of
// rel's primary or unique keys: then each referenced row is referenced at
// most once and the relationship is one-to-one (as PostgREST 11+ has it).
func (inf *inference) isKey(rel uint32, cols []int16) bool {
	for _, k := range inf.keys[rel] {
		if sameSet(k.attnums, cols) {
			return true
		}
	}
	return false
}

// ends lists how exposed relations show the key columns cols of base: base
// itself when exposed, and each exposed view that shows every one of them.
// A view showing a column under several names yields one end per
// combination, so each name can be used to embed (PostgREST does the same).
func (inf *inference) ends(base uint32, cols []int16) []end {
	var out []end
	if rel, ok := inf.rels[base]; ok {
		out = append(out, end{rel, rel.columnNames(cols)})
	}
	for _, view := range inf.viewsOver[base] {
		trace, rel := inf.traces[view], inf.rels[view]
		options := make([][]string, len(cols))
		for i, att := range cols {
			for _, shown := range trace[colRef{base, att}] {
				options[i] = append(options[i], rel.columnName(shown))
			}
			if options[i] == nil {
				options = nil
				break
			}
		}
		for _, combo := range product(options) {
			out = append(out, end{rel, combo})
		}
	}
	return out
}

// product returns every combination taking one element of each option
// list, in order; nothing when options is empty.
func product(options [][]string) [][]string {
	if len(options) == 0 {
		return nil
	}
	out := [][]string{nil}
	for _, opts := range options {
		var next [][]string
		for _, prefix := range out {
			for _, o := range opts {
				next = append(next, append(slices.Clip(prefix), o))
			}
		}
		out = next
	}
	return out
}

// manyToMany adds A many-to-many B for each junction J with many-to-one
// legs J->A and J->B (distinct constraints) whose columns all belong to J's
// primary key. Junctions must be exposed; views qualify through their
// inferred primary key, as in PostgREST.
func (inf *inference) manyToMany(manyToOne []snapshot.Relationship) {
	byJunction := map[snapshot.QualifiedName][]snapshot.Relationship{}
	for _, r := range manyToOne {
		byJunction[r.Table] = append(byJunction[r.Table], r)
	}
	pks := map[snapshot.QualifiedName][]string{}
	for _, rel := range inf.rels {
		pks[rel.QualifiedName] = rel.PrimaryKey
	}
	for junction, legs := range byJunction {
		pk := pks[junction]
		for _, src := range legs {
			for _, dst := range legs {
				if src.Constraint == dst.Constraint || !covers(pk, src.Columns, dst.Columns) {
					continue
				}
				inf.out = append(inf.out, snapshot.Relationship{
					Table:        src.ForeignTable,
					ForeignTable: dst.ForeignTable,
					Cardinality:  snapshot.ManyToMany,
					Constraint:   dst.Constraint,
					Junction: &snapshot.Junction{
						Table:            junction,
						SourceConstraint: src.Constraint,
						SourceColumns:    src.Columns,
						TargetConstraint: dst.Constraint,
						TargetColumns:    dst.Columns,
					},
					IsSelf: src.ForeignTable == dst.ForeignTable,
				})
			}
		}
	}
}

// covers reports whether pk contains the junction-side column of every pair.
func covers(pk []string, legs ...[]snapshot.ColumnPair) bool {
	for _, leg := range legs {
		for _, p := range leg {
			if !slices.Contains(pk, p.Column) {
				return false
			}
		}
	}
	return true
}

// computed adds a relationship for each function taking one row of an
// exposed relation T and returning a row or set of rows of an exposed
// relation R. It is to-one when the function returns one row (not SETOF, or
// ROWS 1), else to-many.
func (inf *inference) computed(funcs []function) {
	byRowType := map[uint32]*relation{}
	for _, rel := range inf.rels {
		byRowType[rel.reltype] = rel
	}
	for i := range funcs {
		f := &funcs[i]
		from, to := byRowType[f.argType], byRowType[f.retType]
		if f.argType == 0 || from == nil || to == nil {
			continue
		}
		card := snapshot.OneToMany
		if !f.retSet || f.Rows == 1 {
			card = snapshot.ManyToOne
		}
		name := f.QualifiedName
		inf.out = append(inf.out, snapshot.Relationship{
			Table:        from.QualifiedName,
			ForeignTable: to.QualifiedName,
			Cardinality:  card,
			Constraint:   f.Name,
			Function:     &name,
			IsSelf:       from.QualifiedName == to.QualifiedName,
		})
	}
}

// sameSet reports whether a and b hold the same elements, ignoring order.
func sameSet[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}
