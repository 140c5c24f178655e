package tstypes

import (
	"slices"
	"strings"

	"github.com/svc-dev/svc/snapshot"
)

// outRelation is a relation written, with what the role may do on it.
type outRelation struct {
	*snapshot.Relation
	// insert and update say whether Insert and Update are written with
	// their columns: the relation takes the write and the role may make
	// it on some column.
	insert, update bool
}

// section is where the relation is written: tables and foreign tables
// under Tables, views and materialized views under Views, as Supabase's
// generator does. A table's Insert and Update are always written, since
// postgrest-js requires them of Tables; a view's only where it takes
// the write.
func (o *outRelation) section() string {
	if o.Kind.DefinedByQuery() {
		return "Views"
	}
	return "Tables"
}

// relation returns the written relation r, or nil.
func (g *generator) relation(r *snapshot.Relation) *outRelation {
	return g.relations[r.QualifiedName]
}

// collectRelations decides which relations of the written schemas are
// written: under a role, those it may read or write some column of, as
// the OpenAPI document shows them.
func (g *generator) collectRelations() {
	g.relations = map[snapshot.QualifiedName]*outRelation{}
	for i := range g.snap.Content.Relations {
		r := &g.snap.Content.Relations[i]
		if !g.schemas[r.Schema] {
			continue
		}
		writable := r.Kind != snapshot.KindMaterializedView
		o := &outRelation{Relation: r, insert: writable && r.Insertable, update: writable && r.Updatable}
		if a := g.access; a != nil {
			read := a.AnyColumn(r, snapshot.PrivSelect)
			o.insert = o.insert && a.AnyColumn(r, snapshot.PrivInsert)
			o.update = o.update && a.AnyColumn(r, snapshot.PrivUpdate)
			if !read && !o.insert && !o.update && !(writable && r.Deletable && a.Table(r, snapshot.PrivDelete)) {
				continue
			}
		}
		g.relations[r.QualifiedName] = o
	}
}

// may reports whether the role holds priv on column c of r (always,
// without a role).
func (g *generator) may(r *snapshot.Relation, c *snapshot.Column, priv string) bool {
	return g.access == nil || g.access.Column(r, c, priv)
}

// writeRelations writes schema s's relations of section (Tables or
// Views), by name.
func (g *generator) writeRelations(w *writer, s, section string) {
	var rels []*outRelation
	for q, o := range g.relations {
		if q.Schema == s && o.section() == section {
			rels = append(rels, o)
		}
	}
	slices.SortFunc(rels, func(a, b *outRelation) int { return strings.Compare(a.Name, b.Name) })
	w.open(section + ": {")
	if len(rels) == 0 {
		w.line("[_ in never]: never")
	}
	for _, o := range rels {
		w.open(key(o.Name) + ": {")
		g.writeRow(w, o)
		if section == "Tables" || o.insert {
			g.writeWrite(w, o, "Insert", o.insert, snapshot.PrivInsert)
		}
		if section == "Tables" || o.update {
			g.writeWrite(w, o, "Update", o.update, snapshot.PrivUpdate)
		}
		g.writeRelationships(w, o)
		w.close("}")
	}
	w.close("}")
}

// columns are r's columns sorted by name, as Supabase's generator orders
// them, so that a column added anywhere changes one line of the output.
func columns(r *snapshot.Relation) []*snapshot.Column {
	out := make([]*snapshot.Column, len(r.Columns))
	for i := range r.Columns {
		out[i] = &r.Columns[i]
	}
	slices.SortFunc(out, func(a, b *snapshot.Column) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// writeRow writes the Row: every column the role may read, null where
// the column may hold it, then the computed fields it may call, which
// are null when their function returns null.
func (g *generator) writeRow(w *writer, o *outRelation) {
	w.open("Row: {")
	for _, c := range columns(o.Relation) {
		if g.may(o.Relation, c, snapshot.PrivSelect) {
			w.line(key(c.Name) + ": " + withNull(g.tsType(columnType(c)), g.holdsNull(o.Relation, c)))
		}
	}
	for i := range o.ComputedFields {
		f := &o.ComputedFields[i]
		if fn := g.computedFunction(o.Relation, f); fn != nil {
			w.line(key(f.Name()) + ": " + withNull(g.returnType(fn), true))
		}
	}
	w.close("}")
}

// computedFunction returns the function of computed field f of r when the
// role may call it, or nil.
func (g *generator) computedFunction(r *snapshot.Relation, f *snapshot.ComputedField) *snapshot.Function {
	for _, fn := range g.snap.Functions(f.Function) {
		if g.access != nil && !g.access.Execute(fn) {
			continue
		}
		in := inputs(fn)
		if len(in) == 1 {
			if q, ok := parseQualified(in[0].Type); ok && q == r.QualifiedName {
				return fn
			}
		}
	}
	return nil
}

// columnType is the type c's values have: a domain's base type.
func columnType(c *snapshot.Column) string {
	if c.BaseType != "" {
		return c.BaseType
	}
	return c.Type
}

// holdsNull reports whether column c of r may be null: a column that
// allows it, unless its domain does not and r is a table (a view's
// column of such a domain is still null where an outer join finds no
// row), as the OpenAPI document says.
func (g *generator) holdsNull(r *snapshot.Relation, c *snapshot.Column) bool {
	if !c.Nullable {
		return false
	}
	if r.Kind != snapshot.KindTable && r.Kind != snapshot.KindPartitionedTable {
		return true
	}
	for t := c.Type; ; {
		d := g.snap.Domain(t)
		if d == nil {
			return true
		}
		if d.NotNull {
			return false
		}
		t = d.BaseType
	}
}

// writeWrite writes a table's or view's Insert or Update. Where the
// relation does not take the write (or the role may not make it), it is
// never, so the compiler refuses the call. Otherwise every column is
// there: one the role may not write, a generated one, or a view's no
// write reaches, as `?: never`;
// on Insert into a table, a column without null, default or generation
// required; on a view every column optional and nullable, as the view's
// base table decides.
func (g *generator) writeWrite(w *writer, o *outRelation, name string, allowed bool, priv string) {
	if !allowed {
		w.line(name + ": never")
		return
	}
	w.open(name + ": {")
	view := o.section() == "Views"
	for _, c := range columns(o.Relation) {
		k := key(c.Name)
		if c.Generated || c.ReadOnly || !g.may(o.Relation, c, priv) {
			w.line(k + "?: never")
			continue
		}
		nullable := view || g.holdsNull(o.Relation, c)
		optional := name == "Update" || view || nullable || c.Default != nil
		if optional {
			k += "?"
		}
		w.line(k + ": " + withNull(g.tsType(columnType(c)), nullable))
	}
	w.close("}")
}

// relationship is one entry of a relation's Relationships.
type relationship struct {
	name, referenced      string
	columns, referencedTo []string
	oneToOne              bool
}

// writeRelationships writes the foreign keys r holds (to a relation of
// its schema that is written), traced through views as svc-serve embeds
// along them: postgrest-js types an embed from them, in both directions.
func (g *generator) writeRelationships(w *writer, o *outRelation) {
	var out []relationship
	for _, rel := range g.snap.RelationshipsFrom(o.QualifiedName) {
		if rel.Computed() || rel.Junction != nil || rel.ForeignTable.Schema != o.Schema ||
			g.relations[rel.ForeignTable] == nil || !holdsKey(rel) {
			continue
		}
		e := relationship{name: rel.Constraint, referenced: rel.ForeignTable.Name, oneToOne: rel.Cardinality == snapshot.OneToOne}
		for _, p := range rel.Columns {
			e.columns = append(e.columns, p.Column)
			e.referencedTo = append(e.referencedTo, p.ForeignColumn)
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b relationship) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if c := strings.Compare(a.referenced, b.referenced); c != 0 {
			return c
		}
		if c := slices.Compare(a.referencedTo, b.referencedTo); c != 0 {
			return c
		}
		return slices.Compare(a.columns, b.columns)
	})
	if len(out) == 0 {
		w.line("Relationships: []")
		return
	}
	w.open("Relationships: [")
	for _, e := range out {
		w.open("{")
		w.line("foreignKeyName: " + jsString(e.name))
		w.line("columns: " + stringTuple(e.columns))
		w.line("isOneToOne: " + map[bool]string{true: "true", false: "false"}[e.oneToOne])
		w.line("referencedRelation: " + jsString(e.referenced))
		w.line("referencedColumns: " + stringTuple(e.referencedTo))
		w.close("},")
	}
	w.close("]")
}

// stringTuple writes names as a tuple of string literals.
func stringTuple(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = jsString(n)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

// holdsKey reports whether rel's Table holds the foreign key: its
// many-to-one side, or the referencing side of a one-to-one
// relationship, the directions Supabase's generator lists.
func holdsKey(rel *snapshot.Relationship) bool {
	return rel.Referencing && !rel.Computed() && rel.Junction == nil
}
