package openapi

import (
	"slices"
	"strings"

	"github.com/svc-dev/svc/snapshot"
)

// standardFormats are the formats JSON Schema and the OpenAPI format
// registry define whose values are what PostgreSQL's JSON output of the
// type is; other types keep their PostgreSQL name as format, as the
// Swagger 2.0 document does, since a format outside the registry is
// allowed and tells clients the database type.
var standardFormats = map[string]string{
	"smallint": "int32", "integer": "int32", "bigint": "int64",
	"real": "float", "double precision": "double",
	"date": "date", "timestamp with time zone": "date-time", "uuid": "uuid",
}

// plainTypes are the types whose JSON type says all: a format naming
// them would add nothing.
var plainTypes = map[string]bool{"boolean": true, "text": true}

// valueSchema describes a value whose declared type is declared and whose
// underlying type (a domain's base type) is base: arrays by their
// elements, a domain under its own name as format.
func valueSchema(declared, base string) *jsonSchema {
	if base == "" {
		base = declared
	}
	base, declared = nominal(base), nominal(declared)
	s := &jsonSchema{}
	// JSON Schema has the types Swagger 2.0 has; "" (json, jsonb) is any value.
	switch t := swaggerType(base); t {
	case "":
		return s
	case "array":
		s.Type = t
		elem := strings.TrimSuffix(base, "[]")
		s.Items = valueSchema(elem, elem)
		if declared != base {
			s.Format = declared
		}
		return s
	default:
		s.Type = t
	}
	switch f, ok := standardFormats[base]; {
	case ok && declared == base:
		s.Format = f
	case !plainTypes[declared]:
		s.Format = declared
	}
	return s
}

// nullable widens s to also accept null: a nullable column, an argument
// that may be null. A reference to a domain's component becomes "that
// domain or null", its sibling keywords kept.
func nullable(s *jsonSchema) *jsonSchema {
	switch t := s.Type.(type) {
	case string:
		s.Type = []string{t, "null"}
		if len(s.Enum) > 0 {
			s.Enum = append(s.Enum, nil)
		}
	case nil:
		if s.Ref == "" {
			return s // a schema without a type already accepts null
		}
		s.AnyOf = []*jsonSchema{{Ref: s.Ref}, {Type: "null"}}
		s.Ref = ""
		if len(s.Enum) > 0 {
			s.Enum = append(s.Enum, nil)
		}
	}
	return s
}

// rowSchema describes a row of r as the role reads or writes it: a
// property per column it may use and per computed field it may call
// (read-only: it is selected, never written). No property is required,
// since select= picks the columns a response holds; fullRowSchema says
// what a full row holds, insertRequired what an insert must give.
func (b *builder) rowSchema(r *snapshot.Relation) *jsonSchema {
	d := &jsonSchema{Type: "object", Description: r.Description, Properties: map[string]*jsonSchema{}}
	for i := range r.Columns {
		c := &r.Columns[i]
		if b.usable(r, c) {
			d.Properties[c.Name] = b.columnSchema(r, c)
		}
	}
	for i := range r.ComputedFields {
		f := &r.ComputedFields[i]
		if _, hidden := d.Properties[f.Name()]; hidden || !b.callable(f.Function) {
			continue
		}
		p := nullable(b.typeSchema31(f.Type, f.BaseType))
		p.ReadOnly = true
		p.Description = "Computed by function " + f.Function.String() + "."
		d.Properties[f.Name()] = p
	}
	return d
}

// fullRowKey is the component of a full row of the relation whose row
// component is key. A relation's key holds no "." (componentName writes
// it "-2E"), so only a domain named row in a schema named as the
// relation has the same key (schema.name); its component, added last,
// would then stand for the full row.
func fullRowKey(key string) string { return key + ".row" }

// fullRowSchema describes a full row of r, as a read without select=
// (or with select=*) returns it: the row component with every column the
// role may read required, null or not as the column allows, so that
// generated clients type a NOT NULL column as always there. Computed
// fields stay optional, as * leaves them out.
func (b *builder) fullRowSchema(r *snapshot.Relation, key string) *jsonSchema {
	s := &jsonSchema{AllOf: []*jsonSchema{{Ref: ref3("schemas", key)}},
		Description: "A full row of " + r.Name + ", as a read without select= returns it: every column it may read."}
	for i := range r.Columns {
		c := &r.Columns[i]
		if b.access == nil || b.access.Column(r, c, snapshot.PrivSelect) {
			s.Required = append(s.Required, c.Name)
		}
	}
	return s
}

// callable reports whether the role may execute the function named q.
func (b *builder) callable(q snapshot.QualifiedName) bool {
	if b.access == nil {
		return true
	}
	return slices.ContainsFunc(b.snap.Functions(q), b.access.Execute)
}

// insertRequired are the columns an insert into r must give: NOT NULL
// (or of a domain that is), no default, not generated, and writable by
// the role.
func (b *builder) insertRequired(r *snapshot.Relation) []string {
	var out []string
	for i := range r.Columns {
		c := &r.Columns[i]
		if !b.holdsNull(r, c) && c.Default == nil && !c.Generated && b.usable(r, c) {
			out = append(out, c.Name)
		}
	}
	return out
}

// columnSchema describes column c: its type, enum labels, constant
// default and length limit; null where the column allows it; read-only
// when generated (GENERATED ALWAYS, identity or expression); its comment
// and the key notes the Swagger 2.0 document gives.
func (b *builder) columnSchema(r *snapshot.Relation, c *snapshot.Column) *jsonSchema {
	p := b.typeSchema31(c.Type, c.BaseType)
	for _, v := range c.EnumValues {
		p.Enum = append(p.Enum, v)
	}
	if c.Default != nil {
		// A domain's component has the type of the domain's base.
		if t, ok := valueSchema(c.Type, c.BaseType).Type.(string); ok {
			p.Default = defaultValue(*c.Default, t)
		} else {
			p.Default = defaultValue(*c.Default, "")
		}
	}
	if c.MaxLength > 0 {
		n := c.MaxLength
		p.MaxLength = &n
	}
	p.ReadOnly = c.Generated
	if b.holdsNull(r, c) {
		nullable(p)
	}
	var notes []string
	if slices.Contains(r.PrimaryKey, c.Name) {
		notes = append(notes, "Primary key.")
	}
	if table, column, ok := b.foreignKey(r, c.Name); ok {
		notes = append(notes, "Foreign key to "+table+"."+column+".")
	}
	p.Description = strings.Join(append([]string{c.Description}, notes...), "\n\n")
	p.Description = strings.TrimLeft(p.Description, "\n")
	return p
}

// holdsNull reports whether column c of r may be null: a column that
// allows it, unless its domain does not and r is a table. A view's
// column of such a domain is still null where an outer join finds no
// row, as PostgreSQL checks a domain's NOT NULL only when a value is
// stored or cast.
func (b *builder) holdsNull(r *snapshot.Relation, c *snapshot.Column) bool {
	if !c.Nullable {
		return false
	}
	table := r.Kind == snapshot.KindTable || r.Kind == snapshot.KindPartitionedTable
	return !table || !b.domainNotNull(c.Type)
}

// filterPattern matches a filter value: an operator, optionally negated,
// with its modifier (any, all) or language (fts), a dot, and the operand.
const filterPattern = `^(not\.)?(eq|neq|gt|gte|lt|lte|like|ilike|match|imatch|in|is|isdistinct|fts|plfts|phfts|wfts|cs|cd|ov|sl|sr|nxr|nxl|adj)(\([A-Za-z_]+\))?\.`

// filterHelp explains a row filter's value to readers of the document.
const filterHelp = "Row filter: operator.value, e.g. eq.1, gt.5, in.(1,2), is.null, like.*a*, not.eq.1; " +
	"operators eq, neq, gt, gte, lt, lte, like, ilike, match, imatch, in, is, isdistinct, " +
	"fts, plfts, phfts, wfts, cs, cd, ov, sl, sr, nxr, nxl, adj; (any) or (all) after an operator compares with a list."
