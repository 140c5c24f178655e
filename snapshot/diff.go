package snapshot

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// ChangeKind names one sort of API change between two snapshots.
type ChangeKind string

// The change kinds Diff reports. Which of them break callers is decided per
// change (see Change.Breaking), since some kinds break only in some cases.
const (
	RelationAdded       ChangeKind = "relation_added"
	RelationRemoved     ChangeKind = "relation_removed"
	RelationKindChanged ChangeKind = "relation_kind_changed"
	// WritesChanged: the relation takes other writes (insert, update, delete).
	WritesChanged     ChangeKind = "writes_changed"
	PrimaryKeyChanged ChangeKind = "primary_key_changed"

	ColumnAdded              ChangeKind = "column_added"
	ColumnRemoved            ChangeKind = "column_removed"
	ColumnRetyped            ChangeKind = "column_retyped"
	ColumnNullabilityChanged ChangeKind = "column_nullability_changed"
	// ColumnDefaultChanged is reported only when a default appears or
	// disappears; a new default expression is not an API change.
	ColumnDefaultChanged ChangeKind = "column_default_changed"
	ColumnEnumChanged    ChangeKind = "column_enum_changed"
	// ColumnRenamed is a likely rename: a column gone and a new one at
	// its position with its type (diff_renames.go).
	ColumnRenamed ChangeKind = "column_renamed"

	RelationshipAdded   ChangeKind = "relationship_added"
	RelationshipRemoved ChangeKind = "relationship_removed"

	FunctionAdded             ChangeKind = "function_added"
	FunctionRemoved           ChangeKind = "function_removed"
	FunctionSignatureChanged  ChangeKind = "function_signature_changed"
	FunctionReturnChanged     ChangeKind = "function_return_changed"
	FunctionVolatilityChanged ChangeKind = "function_volatility_changed"

	GrantAdded   ChangeKind = "grant_added"
	GrantRevoked ChangeKind = "grant_revoked"
)

// Change is one API-level difference between two snapshots.
type Change struct {
	Kind ChangeKind `json:"kind"`
	// Object names what changed: "api.books" (a relation), "api.books.title"
	// (a column), "api.add(integer, integer)" (a function overload), or
	// "api.books -> api.authors (many-to-one via books_author_id_fkey)".
	Object string `json:"object"`
	// Role and Privilege are set for grant changes.
	Role      string `json:"role,omitempty"`
	Privilege string `json:"privilege,omitempty"`
	// Old and New describe the changed property before and after, in the
	// words a reader of the API would use ("text", "not null", ...).
	Old string `json:"old,omitempty"`
	New string `json:"new,omitempty"`
	// Breaking is true when requests that worked before may now fail or
	// be answered differently; Reason says how.
	Breaking bool   `json:"breaking"`
	Reason   string `json:"reason,omitempty"`
}

// String renders the change on one line, e.g.
// "api.books.isbn: column removed (was text)".
func (c Change) String() string {
	var b strings.Builder
	b.WriteString(c.Object)
	b.WriteString(": ")
	b.WriteString(strings.ReplaceAll(string(c.Kind), "_", " "))
	switch {
	case c.Role != "":
		fmt.Fprintf(&b, " %s to %s", c.Privilege, c.Role)
	case c.Old != "" && c.New != "":
		fmt.Fprintf(&b, " from %s to %s", c.Old, c.New)
	case c.Old != "":
		fmt.Fprintf(&b, " (was %s)", c.Old)
	case c.New != "":
		fmt.Fprintf(&b, " (%s)", c.New)
	}
	if c.Reason != "" {
		b.WriteString("; ")
		b.WriteString(c.Reason)
	}
	return b.String()
}

// AnyBreaking reports whether one of changes is breaking.
func AnyBreaking(changes []Change) bool {
	return slices.ContainsFunc(changes, func(c Change) bool { return c.Breaking })
}

// Diff lists the API changes from old to new: routes (relations and
// functions) added and removed, and within routes both snapshots have,
// changed columns, computed fields, keys, writes, signatures and grants,
// plus embeddable relationships and domain representations (casts) added
// and removed. Additions are not breaking, with three exceptions: a NOT
// NULL column without a default on a relation that takes inserts (inserts
// must now supply it), a relationship that makes an embed by table name
// ambiguous, a cast, which changes how values already in use read, and a
// domain's new CHECK or NOT NULL, which may refuse values written before.
// An enum's labels and a composite type's attributes are compared too.
// Removals, retypes, a NOT NULL or lost
// default that inserts must now satisfy, revoked privileges and changed
// function signatures are breaking; a function gaining an argument with a
// default, or a default on an argument, is not.
//
// Changes inside an added or removed relation or function are not listed:
// the route's own change covers them. Only the Content is compared, so
// two snapshots of one schema taken at different times have no changes.
// The result is sorted by Object, then Kind, Role and Privilege.
func Diff(old, new *Snapshot) []Change {
	d := &differ{}
	d.relations(old.Content.Relations, new.Content.Relations)
	d.relationships(&old.Content, &new.Content)
	d.functions(old.Content.Functions, new.Content.Functions)
	d.casts(old.Content.Casts, new.Content.Casts)
	d.mediaHandlers(old.Content.MediaHandlers, new.Content.MediaHandlers)
	d.domains(old.Content.Domains, new.Content.Domains)
	d.types(old.Content.Types, new.Content.Types)
	slices.SortStableFunc(d.out, func(a, b Change) int {
		return cmp.Or(cmp.Compare(a.Object, b.Object), cmp.Compare(a.Kind, b.Kind),
			cmp.Compare(a.Role, b.Role), cmp.Compare(a.Privilege, b.Privilege))
	})
	return d.out
}

// differ accumulates changes.
type differ struct{ out []Change }

func (d *differ) add(c Change) { d.out = append(d.out, c) }

// relations compares relations matched by qualified name; one removed
// and one added that likely rename it (renamedRelations) are compared as
// one relation.
func (d *differ) relations(old, new []Relation) {
	before := byName(old, func(r *Relation) QualifiedName { return r.QualifiedName })
	after := byName(new, func(r *Relation) QualifiedName { return r.QualifiedName })
	var removed, added []*Relation
	for i := range old {
		if _, ok := after[old[i].QualifiedName]; !ok {
			removed = append(removed, &old[i])
		}
	}
	for i := range new {
		if _, ok := before[new[i].QualifiedName]; !ok {
			added = append(added, &new[i])
		}
	}
	renamed := renamedRelations(removed, added)
	renamedFrom := map[QualifiedName]bool{}
	for _, o := range renamed {
		renamedFrom[o.QualifiedName] = true
	}
	for _, o := range removed {
		if !renamedFrom[o.QualifiedName] {
			d.add(Change{Kind: RelationRemoved, Object: o.QualifiedName.String(), Old: kindWords(o.Kind), Breaking: true,
				Reason: "its route is gone"})
		}
	}
	for _, n := range added {
		if o, ok := renamed[n.QualifiedName]; ok {
			d.add(Change{Kind: RelationRenamed, Object: n.QualifiedName.String(), Old: o.QualifiedName.String(), New: n.QualifiedName.String(),
				Breaking: true, Reason: "likely a rename (the same kind and columns as " + o.QualifiedName.String() + "): its old route is gone"})
			d.relation(o, n)
			continue
		}
		d.add(Change{Kind: RelationAdded, Object: n.QualifiedName.String(), New: kindWords(n.Kind)})
	}
	for name, n := range after {
		if o, ok := before[name]; ok {
			d.relation(o, n)
		}
	}
}

func (d *differ) relation(o, n *Relation) {
	object := n.QualifiedName.String()
	if o.Kind != n.Kind {
		d.add(Change{Kind: RelationKindChanged, Object: object, Old: kindWords(o.Kind), New: kindWords(n.Kind)})
	}
	if ow, nw := writes(o), writes(n); ow != nw {
		c := Change{Kind: WritesChanged, Object: object, Old: ow, New: nw}
		if lost := lostWrites(o, n); lost != "" {
			c.Breaking, c.Reason = true, lost+" no longer allowed"
		}
		d.add(c)
	}
	if !slices.Equal(o.PrimaryKey, n.PrimaryKey) {
		c := Change{Kind: PrimaryKeyChanged, Object: object, Old: keyWords(o.PrimaryKey), New: keyWords(n.PrimaryKey)}
		if len(o.PrimaryKey) > 0 {
			c.Breaking, c.Reason = true, "PUT, upserts and on_conflict on the old key no longer match"
		}
		d.add(c)
	}
	d.grants(object, o.Grants, n.Grants)
	d.columns(object, n.Insertable, o.Columns, n.Columns)
	d.computedFields(object, o.ComputedFields, n.ComputedFields)
}

// columns compares the columns of a relation both snapshots have. A
// column gone and another new at its position with its type is reported
// as a likely rename (renamedColumns), then compared as one column.
func (d *differ) columns(relation string, insertable bool, old, new []Column) {
	before := byName(old, func(c *Column) string { return c.Name })
	renamed := renamedColumns(old, new)
	for i := range new {
		n := &new[i]
		object := relation + "." + n.Name
		o, ok := before[n.Name]
		if was, isRename := renamed[n.Name]; isRename {
			o = before[was]
			d.add(Change{Kind: ColumnRenamed, Object: object, Old: was, New: n.Name, Breaking: true,
				Reason: "likely a rename (the same type and position as " + was + "): select, filters and writes naming " + was + " fail"})
			delete(before, was)
			d.column(object, insertable, o, n)
			continue
		}
		if !ok {
			c := Change{Kind: ColumnAdded, Object: object, New: columnWords(n)}
			if insertable && required(n) {
				c.Breaking, c.Reason = true, "NOT NULL without a default: inserts must now supply it"
			}
			d.add(c)
			continue
		}
		delete(before, n.Name)
		d.column(object, insertable, o, n)
	}
	for name, o := range before {
		d.add(Change{Kind: ColumnRemoved, Object: relation + "." + name, Old: o.Type, Breaking: true,
			Reason: "select, filters and writes naming it fail"})
	}
}

func (d *differ) column(object string, insertable bool, o, n *Column) {
	if o.Type != n.Type {
		d.add(Change{Kind: ColumnRetyped, Object: object, Old: o.Type, New: n.Type, Breaking: true,
			Reason: "values read and written have another type"})
	}
	if o.Nullable != n.Nullable {
		c := Change{Kind: ColumnNullabilityChanged, Object: object, Old: nullWords(o.Nullable), New: nullWords(n.Nullable)}
		if insertable && required(n) {
			c.Breaking, c.Reason = true, "NOT NULL without a default: inserts must now supply it"
		}
		d.add(c)
	}
	if (o.Default == nil) != (n.Default == nil) {
		c := Change{Kind: ColumnDefaultChanged, Object: object, Old: defaultWords(o.Default), New: defaultWords(n.Default)}
		if insertable && required(n) && o.Nullable == n.Nullable {
			c.Breaking, c.Reason = true, "NOT NULL without a default: inserts must now supply it"
		}
		d.add(c)
	}
	if removed := missingFrom(o.EnumValues, n.EnumValues); len(removed) > 0 || len(o.EnumValues) != len(n.EnumValues) {
		c := Change{Kind: ColumnEnumChanged, Object: object, Old: strings.Join(o.EnumValues, ","), New: strings.Join(n.EnumValues, ",")}
		if len(removed) > 0 {
			c.Breaking, c.Reason = true, "values "+strings.Join(removed, ", ")+" are no longer accepted"
		}
		d.add(c)
	}
	d.grants(object, o.Grants, n.Grants)
}

// required reports whether an insert must give c a value.
func required(c *Column) bool { return !c.Nullable && c.Default == nil && !c.Generated }

// relationships compares embeddable relationships of relations present in
// both snapshots. An added relationship breaks embeds by table name when
// the same two relations were already related: the name becomes ambiguous.
func (d *differ) relationships(old, new *Content) {
	kept := map[QualifiedName]bool{}
	for i := range old.Relations {
		kept[old.Relations[i].QualifiedName] = false
	}
	for i := range new.Relations {
		if _, ok := kept[new.Relations[i].QualifiedName]; ok {
			kept[new.Relations[i].QualifiedName] = true
		}
	}
	before := byName(old.Relationships, relationshipKey)
	after := byName(new.Relationships, relationshipKey)
	pairs := func(rels []Relationship) map[[2]QualifiedName]int {
		n := map[[2]QualifiedName]int{}
		for i := range rels {
			n[[2]QualifiedName{rels[i].Table, rels[i].ForeignTable}]++
		}
		return n
	}
	oldPairs, newPairs := pairs(old.Relationships), pairs(new.Relationships)
	for key, r := range before {
		if _, ok := after[key]; !ok && kept[r.Table] {
			d.add(Change{Kind: RelationshipRemoved, Object: key, Breaking: true,
				Reason: "embedding along it fails"})
		}
	}
	for key, r := range after {
		if _, ok := before[key]; ok || !kept[r.Table] {
			continue
		}
		c := Change{Kind: RelationshipAdded, Object: key}
		pair := [2]QualifiedName{r.Table, r.ForeignTable}
		if oldPairs[pair] > 0 && newPairs[pair] > 1 {
			c.Breaking, c.Reason = true, "embedding "+r.ForeignTable.String()+" by name becomes ambiguous; callers must name the relationship"
		}
		d.add(c)
	}
}

// relationshipKey identifies a relationship as callers see it: its ends,
// cardinality and the constraint (or function) they may name it by.
func relationshipKey(r *Relationship) string {
	via := r.Constraint
	if r.Junction != nil {
		via += " through " + r.Junction.Table.String()
	}
	if r.Function != nil {
		via = "computed " + r.Function.String()
	}
	return fmt.Sprintf("%s -> %s (%s via %s)", r.Table, r.ForeignTable, r.Cardinality, via)
}

// grants compares two access lists per grantee and privilege.
func (d *differ) grants(object string, old, new []Grant) {
	type pair struct{ role, priv string }
	flatten := func(gs []Grant) map[pair]bool {
		m := map[pair]bool{}
		for _, g := range gs {
			for _, p := range g.Privileges {
				m[pair{g.Grantee, p}] = true
			}
		}
		return m
	}
	before, after := flatten(old), flatten(new)
	for p := range before {
		if !after[p] {
			d.add(Change{Kind: GrantRevoked, Object: object, Role: p.role, Privilege: p.priv, Breaking: true,
				Reason: "requests as that role needing it are refused"})
		}
	}
	for p := range after {
		if !before[p] {
			d.add(Change{Kind: GrantAdded, Object: object, Role: p.role, Privilege: p.priv})
		}
	}
}

// byName indexes a slice by key, pointing into it.
func byName[T any, K comparable](items []T, key func(*T) K) map[K]*T {
	m := make(map[K]*T, len(items))
	for i := range items {
		m[key(&items[i])] = &items[i]
	}
	return m
}

// missingFrom returns the values of a not in b.
func missingFrom(a, b []string) []string {
	var out []string
	for _, v := range a {
		if !slices.Contains(b, v) {
			out = append(out, v)
		}
	}
	return out
}

func kindWords(k RelationKind) string { return strings.ReplaceAll(string(k), "_", " ") }

func keyWords(cols []string) string {
	if len(cols) == 0 {
		return "none"
	}
	return "(" + strings.Join(cols, ", ") + ")"
}

func nullWords(nullable bool) string {
	if nullable {
		return "nullable"
	}
	return "not null"
}

func defaultWords(def *string) string {
	if def == nil {
		return "no default"
	}
	return "default " + *def
}

func columnWords(c *Column) string {
	w := c.Type + ", " + nullWords(c.Nullable)
	if c.Default != nil {
		w += ", " + defaultWords(c.Default)
	}
	return w
}

// writes lists the writes a relation takes, e.g. "insert, update".
func writes(r *Relation) string {
	var w []string
	for _, x := range []struct {
		ok   bool
		verb string
	}{{r.Insertable, "insert"}, {r.Updatable, "update"}, {r.Deletable, "delete"}} {
		if x.ok {
			w = append(w, x.verb)
		}
	}
	if len(w) == 0 {
		return "read only"
	}
	return strings.Join(w, ", ")
}

// lostWrites names the writes o takes and n does not.
func lostWrites(o, n *Relation) string {
	var lost []string
	if o.Insertable && !n.Insertable {
		lost = append(lost, "insert")
	}
	if o.Updatable && !n.Updatable {
		lost = append(lost, "update")
	}
	if o.Deletable && !n.Deletable {
		lost = append(lost, "delete")
	}
	return strings.Join(lost, ", ")
}
