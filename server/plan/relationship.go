package plan

import (
	"slices"
	"strings"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/server/suggest"
	"github.com/svc-dev/svc/snapshot"
)

// findRelationship picks the relationship an embed names, from the
// snapshot alone. The target may be a related relation's name, a computed
// relationship's function name, or (towards tables) a foreign key's
// constraint or single column; the hint narrows a relation name down by
// constraint, column on either side, or junction table. These are the
// forms PostgREST accepts.
func findRelationship(snap *snapshot.Snapshot, origin *snapshot.Relation, e *request.Embed) (*snapshot.Relationship, error) {
	all := snap.RelationshipsFrom(origin.QualifiedName)
	var computed, found []*snapshot.Relationship
	for _, r := range all {
		switch {
		case r.Computed():
			if r.Function.Name == e.Name {
				computed = append(computed, r)
			}
		case matches(snap, r, e.Name, e.Hint):
			found = append(found, r)
		}
	}
	// A computed relationship overrides any detected one of the same name.
	if len(computed) > 0 {
		found = computed
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return nil, apierr.NoRelationship(origin.Name, e.Name, e.Hint, origin.Schema, noRelationshipHint(snap, all, e.Name))
	}
	return nil, ambiguous(origin, e.Name, found)
}

// matches applies the naming rules to one foreign-key relationship.
func matches(snap *snapshot.Snapshot, r *snapshot.Relationship, target, hint string) bool {
	toTarget := r.ForeignTable.Name == target
	if r.IsSelf {
		// One foreign key yields both directions; the table name means the
		// children (one-to-many), the key column the parent (many-to-one).
		if hint == "" {
			return toTarget && r.Cardinality == snapshot.OneToMany ||
				singleColumn(r, target, false) && r.Cardinality == snapshot.ManyToOne
		}
		return toTarget && r.Cardinality == snapshot.OneToMany && singleColumn(r, hint, true)
	}
	if hint == "" {
		if toTarget {
			return true
		}
		// Constraint and column names are only offered towards tables:
		// a view can carry several relationships from one foreign key.
		if ft := snap.Relation(r.ForeignTable); ft != nil && ft.Kind == snapshot.KindView {
			return false
		}
		return constraintIs(r, target) || singleColumn(r, target, false)
	}
	return toTarget && (constraintIs(r, hint) || singleColumn(r, hint, false) || singleColumn(r, hint, true) ||
		r.Junction != nil && r.Junction.Table.Name == hint)
}

func constraintIs(r *snapshot.Relationship, name string) bool {
	return r.Junction == nil && r.Constraint == name
}

// singleColumn reports whether r is a one-column foreign key whose column
// on the origin side (or, with foreign, on the target side) is name.
func singleColumn(r *snapshot.Relationship, name string, foreign bool) bool {
	if r.Junction != nil || len(r.Columns) != 1 {
		return false
	}
	if foreign {
		return r.Columns[0].ForeignColumn == name
	}
	return r.Columns[0].Column == name
}

// ambiguous builds SVC201 listing each candidate as PostgREST describes it.
func ambiguous(origin *snapshot.Relation, target string, rels []*snapshot.Relationship) error {
	rels = slices.Clone(rels)
	slices.SortFunc(rels, func(a, b *snapshot.Relationship) int { return strings.Compare(spelling(a), spelling(b)) })
	cands := make([]apierr.Candidate, len(rels))
	for i, r := range rels {
		c := apierr.Candidate{Cardinality: string(r.Cardinality),
			Embedding: r.Table.Name + " with " + r.ForeignTable.Name, Spelling: spelling(r)}
		if j := r.Junction; j != nil {
			c.Relationship = j.Table.Name + " using " + j.SourceConstraint + columnList(j.SourceColumns, false) +
				" and " + j.TargetConstraint + columnList(j.TargetColumns, false)
		} else {
			c.Relationship = r.Constraint + " using " + r.Table.Name + columnList(r.Columns, false) +
				" and " + r.ForeignTable.Name + columnList(r.Columns, true)
		}
		cands[i] = c
	}
	return apierr.AmbiguousEmbedding(origin.Name, target, cands)
}

// spelling is how a request names r unambiguously: target!constraint, or
// target!junction for many-to-many.
func spelling(r *snapshot.Relationship) string {
	if r.Junction != nil {
		return r.ForeignTable.Name + "!" + r.Junction.Table.Name
	}
	return r.ForeignTable.Name + "!" + r.Constraint
}

func columnList(pairs []snapshot.ColumnPair, foreign bool) string {
	names := make([]string, len(pairs))
	for i, p := range pairs {
		names[i] = p.Column
		if foreign {
			names[i] = p.ForeignColumn
		}
	}
	return "(" + strings.Join(names, ", ") + ")"
}

// noRelationshipHint suggests the related name closest to target, unless
// target is itself related (then the hint was what failed). A partition
// is never embedded, its partitioned table is: a target that extends a
// related partitioned table's name (`sales_2024` for `sales`), as
// partitions' names do, is pointed to that table.
func noRelationshipHint(snap *snapshot.Snapshot, rels []*snapshot.Relationship, target string) string {
	var names []string
	partitioned := ""
	for _, r := range rels {
		name := r.ForeignTable.Name
		if r.Computed() {
			name = r.Function.Name
		}
		if name == target {
			return ""
		}
		names = append(names, name)
		if ft := snap.Relation(r.ForeignTable); !r.Computed() && ft != nil && ft.Kind == snapshot.KindPartitionedTable &&
			strings.HasPrefix(target, name+"_") && len(name) > len(partitioned) {
			partitioned = name
		}
	}
	best := suggest.Closest(target, names, 3)
	if best == "" {
		best = partitioned
	}
	if best != "" {
		return "Perhaps you meant '" + best + "' instead of '" + target + "'."
	}
	return ""
}
