package snapshot

// Renames. A snapshot knows names, not identities: a renamed column reads
// as one removed and one added, and the added one, NOT NULL without a
// default, as a new column inserts must supply, which sends a reviewer
// after the wrong problem. PostgreSQL keeps a renamed column's position
// and type, and a column dropped and added anew goes to the end, so a
// column gone whose position a new column of the same type holds is
// reported as a likely rename; a relation gone and a new one of its kind
// with the same columns, likewise.

// renamedColumns maps each new column that likely renames an old one to
// the old one's name: old[i] is gone from new, new[i] is not in old, and
// both have one type.
func renamedColumns(old, new []Column) map[string]string {
	have := func(cols []Column, name string) bool {
		for i := range cols {
			if cols[i].Name == name {
				return true
			}
		}
		return false
	}
	out := map[string]string{}
	for i := range min(len(old), len(new)) {
		o, n := &old[i], &new[i]
		if o.Name != n.Name && o.Type == n.Type && !have(new, o.Name) && !have(old, n.Name) {
			out[n.Name] = o.Name
		}
	}
	return out
}

// RelationRenamed is a likely rename of a relation: one gone and a new
// one of the same schema and kind with the same columns, in order, of
// the same types.
const RelationRenamed ChangeKind = "relation_renamed"

// renamedRelations pairs the relations removed with the added ones that
// likely rename them, by the added one's name.
func renamedRelations(removed, added []*Relation) map[QualifiedName]*Relation {
	out := map[QualifiedName]*Relation{}
	used := map[QualifiedName]bool{}
	for _, n := range added {
		for _, o := range removed {
			if used[o.QualifiedName] || o.Schema != n.Schema || o.Kind != n.Kind || !sameColumns(o.Columns, n.Columns) {
				continue
			}
			out[n.QualifiedName], used[o.QualifiedName] = o, true
			break
		}
	}
	return out
}

// sameColumns reports whether two relations have the same column names
// and types, in order (and at least one column).
func sameColumns(a, b []Column) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Type != b[i].Type {
			return false
		}
	}
	return true
}
