package openapi

import (
	"slices"
	"strings"

	"github.com/svc-dev/svc/snapshot"
)

// definition describes a row of r: a property per column the role may
// use, and as required the columns an insert must give (NOT NULL, no
// default, not generated).
func (b *builder) definition(r *snapshot.Relation) *schema {
	d := &schema{Type: "object", Description: r.Description, Properties: map[string]*schema{}}
	for i := range r.Columns {
		c := &r.Columns[i]
		if !b.usable(r, c) {
			continue
		}
		d.Properties[c.Name] = b.property(r, c)
		if !c.Nullable && c.Default == nil && !c.Generated {
			d.Required = append(d.Required, c.Name)
		}
	}
	return d
}

// usable reports whether the role may read or write column c of r, the
// columns its document shows: under follow-privileges, a column it holds
// no privilege on is not named at all, so the document does not tell it
// that the column exists. Ignoring privileges, every column is.
func (b *builder) usable(r *snapshot.Relation, c *snapshot.Column) bool {
	a := b.access
	return a == nil || a.Column(r, c, snapshot.PrivSelect) || a.Column(r, c, snapshot.PrivInsert) ||
		a.Column(r, c, snapshot.PrivUpdate)
}

// filterable reports whether the role may filter on column c of r: a
// filter reads the column, so it needs SELECT on it.
func (b *builder) filterable(r *snapshot.Relation, c *snapshot.Column) bool {
	return !reservedQuery[c.Name] && (b.access == nil || b.access.Column(r, c, snapshot.PrivSelect))
}

// property describes column c: type and format from its type, its enum
// labels, constant default and length limit, and its comment followed by
// the notes PostgREST adds for key columns (<pk/>, <fk .../>), which
// clients read to find the relations between definitions.
func (b *builder) property(r *snapshot.Relation, c *snapshot.Column) *schema {
	base := c.BaseType
	if base == "" {
		base = c.Type
	}
	p := typeSchema(c.Type, base)
	if len(c.EnumValues) > 0 {
		p.Enum = c.EnumValues
	}
	if c.Default != nil {
		p.Default = defaultValue(*c.Default, p.Type)
	}
	if c.MaxLength > 0 {
		p.MaxLength = c.MaxLength
	}
	var notes []string
	if slices.Contains(r.PrimaryKey, c.Name) {
		notes = append(notes, "This is a Primary Key.<pk/>")
	}
	if table, column, ok := b.foreignKey(r, c.Name); ok {
		notes = append(notes, "This is a Foreign Key to `"+table+"."+column+"`.<fk table='"+table+"' column='"+column+"'/>")
	}
	p.Description = c.Description
	if len(notes) > 0 {
		note := "Note:\n" + strings.Join(notes, "\n")
		if p.Description != "" {
			note = p.Description + "\n\n" + note
		}
		p.Description = note
	}
	return p
}

// foreignKey finds the single-column to-one relationship from the side
// holding the key (a foreign key, or one traced through a view) that
// starts at column col of r, and the relation and column it points to:
// one to a table rather than to a view over it, when both are there.
func (b *builder) foreignKey(r *snapshot.Relation, col string) (table, column string, ok bool) {
	var toView *snapshot.Relationship
	for _, rel := range b.snap.RelationshipsFrom(r.QualifiedName) {
		// A many-to-one relationship starts where the key is; of a
		// one-to-one one's two directions, the one marked referencing.
		holdsKey := rel.Cardinality == snapshot.ManyToOne || (rel.Cardinality == snapshot.OneToOne && rel.Referencing)
		if !holdsKey || rel.Computed() || len(rel.Columns) != 1 || rel.Columns[0].Column != col {
			continue
		}
		if f := b.snap.Relation(rel.ForeignTable); f != nil && f.Kind.DefinedByQuery() {
			if toView == nil {
				toView = rel
			}
			continue
		}
		return rel.ForeignTable.Name, rel.Columns[0].ForeignColumn, true
	}
	if toView != nil {
		return toView.ForeignTable.Name, toView.Columns[0].ForeignColumn, true
	}
	return "", "", false
}
