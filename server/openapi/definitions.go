package openapi

import (
	"slices"
	"strings"

	"github.com/svc-dev/svc/snapshot"
)

// definition describes a row of r: a property per column, and as required
// the columns an insert must give (NOT NULL, no default, not generated).
func (b *builder) definition(r *snapshot.Relation) *schema {
	d := &schema{Type: "object", Description: r.Description, Properties: map[string]*schema{}}
	for i := range r.Columns {
		c := &r.Columns[i]
		d.Properties[c.Name] = b.property(r, c)
		if !c.Nullable && c.Default == nil && !c.Generated {
			d.Required = append(d.Required, c.Name)
		}
	}
	return d
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

// foreignKey finds the single-column many-to-one relationship (a foreign
// key, or one traced through a view) that starts at column col of r, and
// the relation and column it points to.
func (b *builder) foreignKey(r *snapshot.Relation, col string) (table, column string, ok bool) {
	for _, rel := range b.snap.RelationshipsFrom(r.QualifiedName) {
		if rel.Cardinality != snapshot.ManyToOne || rel.Computed() || len(rel.Columns) != 1 {
			continue
		}
		if rel.Columns[0].Column == col {
			return rel.ForeignTable.Name, rel.Columns[0].ForeignColumn, true
		}
	}
	return "", "", false
}
