package query

import (
	"strconv"

	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/snapshot"
)

// field writes a column reference with its JSON path. Arrows apply to
// json/jsonb directly; composite and array columns are converted with
// to_jsonb first so `col->field` and `col->0` work on them too. Keys travel
// as bind parameters; array indexes are integers re-rendered from their
// parsed value.
func (b *builder) field(sc *scope, f request.Field) {
	if len(f.Path) == 0 {
		b.column(sc, f.Name)
		return
	}
	wrap := !isJSON(sc.baseType(f.Name))
	if wrap {
		b.write("pg_catalog.to_jsonb(")
	}
	b.column(sc, f.Name)
	if wrap {
		b.write(")")
	}
	for _, step := range f.Path {
		if step.AsText {
			b.write("->>")
		} else {
			b.write("->")
		}
		if step.Index {
			n, _ := strconv.Atoi(step.Key)
			b.write(strconv.Itoa(n))
			continue
		}
		b.arg(step.Key)
		b.write("::text")
	}
}

// column writes a column of sc's relation, qualified as the statement
// refers to it, or a computed field's function called on sc's row.
func (b *builder) column(sc *scope, name string) {
	if f := sc.node.Fields[name]; f != nil && f.Function != nil {
		b.call(f.Function, func() { b.row(sc) })
		return
	}
	if sc.used != nil {
		sc.used.add(name)
	}
	b.write(sc.qual, ".")
	b.ident(name)
}

// call writes fn applied to what arg writes. fn comes from the snapshot
// (a computed field, a representation's cast function), never from the
// request.
func (b *builder) call(fn *snapshot.QualifiedName, arg func()) {
	b.ident(fn.Schema, fn.Name)
	b.write("(")
	arg()
	b.write(")")
}

// row writes sc's current row as a value of its relation's row type: the
// argument of a computed field's or relationship's function. A write's rows
// come from a CTE, whose rows are records, so they are rebuilt from the
// relation's columns (the write then returns them all, see usedColumns)
// and cast; otherwise overloads of one name for several relations could
// not be told apart.
func (b *builder) row(sc *scope) {
	if sc.used != nil {
		sc.used.whole = true
	}
	if !sc.recordRows {
		b.write(sc.qual, ".*")
		return
	}
	b.write("row(")
	b.list(len(sc.rel.Columns), func(i int) {
		b.write(sc.qual, ".")
		b.ident(sc.rel.Columns[i].Name)
	})
	b.write(")::")
	b.ident(sc.rel.Schema, sc.rel.Name)
}

// format returns the function that formats field f for output (its
// domain's cast to json), or nil: paths, the columns of aggregating nodes
// (which group by them) and rows a relation's media handler takes output
// the stored value.
func (sc *scope) format(f request.Field) *snapshot.QualifiedName {
	if len(f.Path) > 0 || sc.aggregating || sc.asStored {
		return nil
	}
	if pf := sc.node.Fields[f.Name]; pf != nil {
		return pf.Format
	}
	return nil
}

// output writes field f as a node outputs it: formatted by its
// representation, then cast when the select item asks.
func (b *builder) output(sc *scope, f request.Field, cast string) {
	if cast != "" {
		b.write("(")
	}
	if fn := sc.format(f); fn != nil {
		b.call(fn, func() { b.field(sc, f) })
	} else {
		b.field(sc, f)
	}
	if cast != "" {
		b.write(")::", cast)
	}
}

// baseType is the type of a column or computed field of sc's node, domains
// resolved.
func (sc *scope) baseType(name string) string {
	if f := sc.node.Fields[name]; f != nil {
		return f.BaseType
	}
	// Relations have tens of columns at most; a scan costs less than a map.
	for i := range sc.rel.Columns {
		if sc.rel.Columns[i].Name == name {
			return sc.rel.Columns[i].BaseType
		}
	}
	return ""
}

func isJSON(baseType string) bool { return baseType == "json" || baseType == "jsonb" }

// parser returns the function reading filter f's operands into its field's
// domain (the cast from text), or nil. Only operators whose operand is a
// value of the field's type use it: patterns (like, match) and full-text
// queries are not values of the domain.
func (sc *scope) parser(f request.Filter) *snapshot.QualifiedName {
	if len(f.Field.Path) > 0 || !parsedOperators[f.Op] {
		return nil
	}
	if pf := sc.node.Fields[f.Field.Name]; pf != nil {
		return pf.ParseText
	}
	return nil
}

// parsedOperators are the operators whose operand a text -> domain cast
// reads.
var parsedOperators = map[string]bool{
	"eq": true, "neq": true, "gt": true, "gte": true, "lt": true, "lte": true, "isdistinct": true, "in": true,
	"cs": true, "cd": true, "ov": true, "sl": true, "sr": true, "nxr": true, "nxl": true, "adj": true,
}
