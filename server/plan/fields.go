package plan

import "github.com/svc-dev/svc/snapshot"

// Field is what a name of a node's relation stands for when a plain column
// reference will not do: a computed field, or a column whose domain has
// representations. Planning resolves every name a node uses (select,
// filters, logic trees, order) once; the query builder only reads the
// result, so rendering never looks in the snapshot.
type Field struct {
	// Function is a computed field's function, called on the row; nil
	// for a column.
	Function *snapshot.QualifiedName
	// BaseType is the value's type with domains resolved: json and jsonb
	// take path arrows as they are, a tsvector is searched as it is.
	BaseType string
	// Format turns the value into its JSON representation (the cast from
	// its domain to json) wherever it is output; nil when there is none.
	Format *snapshot.QualifiedName
	// ParseText reads a filter's operand into the domain (the cast from
	// text); nil when there is none.
	ParseText *snapshot.QualifiedName
}

// columnField records in n.Fields what col stands for, when it is more than a
// column. A snapshot without representations has nothing to record, so
// most reads leave Fields nil.
func (n *Node) columnField(snap *snapshot.Snapshot, col *snapshot.Column) {
	if !snap.HasRepresentations() {
		return
	}
	format, parse := snap.Representation(col.Type, "json"), snap.Representation("text", col.Type)
	if format == nil && parse == nil {
		return
	}
	n.setField(col.Name, &Field{BaseType: col.BaseType, Format: format, ParseText: parse})
}

// computedField records in n.Fields the computed field f.
func (n *Node) computedField(snap *snapshot.Snapshot, f *snapshot.ComputedField) {
	n.setField(f.Name(), &Field{Function: &f.Function, BaseType: f.BaseType,
		Format: snap.Representation(f.Type, "json"), ParseText: snap.Representation("text", f.Type)})
}

// starFields records the columns `*` outputs that have a representation.
func (n *Node) starFields(snap *snapshot.Snapshot) {
	if !snap.HasRepresentations() {
		return
	}
	for i := range n.Relation.Columns {
		n.columnField(snap, &n.Relation.Columns[i])
	}
}

func (n *Node) setField(name string, f *Field) {
	if n.Fields == nil {
		n.Fields = make(map[string]*Field, 2)
	}
	n.Fields[name] = f
}

// payloadParsers returns, for each of cols (a write's payload columns),
// the function reading its body values (the cast from json to its
// domain), or nil when none has one.
func payloadParsers(snap *snapshot.Snapshot, cols []*snapshot.Column) []*snapshot.QualifiedName {
	if !snap.HasRepresentations() {
		return nil
	}
	var parse []*snapshot.QualifiedName
	for i, col := range cols {
		if p := snap.Representation("json", col.Type); p != nil {
			if parse == nil {
				parse = make([]*snapshot.QualifiedName, len(cols))
			}
			parse[i] = p
		}
	}
	return parse
}
