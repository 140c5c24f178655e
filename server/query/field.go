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
	wrap := !isJSON(sc.rel, f.Name)
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
// refers to it.
func (b *builder) column(sc *scope, name string) {
	if sc.used != nil {
		sc.used.add(name)
	}
	b.write(sc.qual, ".")
	b.ident(name)
}

// isJSON reports whether a column holds json or jsonb (domains resolved).
// Relations have tens of columns at most; a scan costs less than a map.
func isJSON(rel *snapshot.Relation, name string) bool {
	for i := range rel.Columns {
		if rel.Columns[i].Name == name {
			t := rel.Columns[i].BaseType
			return t == "json" || t == "jsonb"
		}
	}
	return false
}
