package catalog

import (
	"embed"
	"strings"
)

// Each catalog query lives in its own file so it can be read and diffed as
// SQL. Schema lists are bound as text[] and oid sets as oid[], so each query
// runs once however many objects there are.
//
// What several queries share is written once, in queries/pieces/, and put in
// at load time where a query has a line "--@ name.sql": the domains resolved
// to their base types (columns, computed fields) and an object's grants
// (relations, functions). A query with such a line runs by hand in psql once
// the piece is pasted in its place.
var (
	headerSQL         = query("header.sql")
	relationsSQL      = query("relations.sql")
	columnsSQL        = query("columns.sql")
	viewsSQL          = query("views.sql")
	keysSQL           = query("keys.sql")
	foreignKeysSQL    = query("foreign_keys.sql")
	functionsSQL      = query("functions.sql")
	computedFieldsSQL = query("computed_fields.sql")
	castsSQL          = query("casts.sql")
	rolesSQL          = query("roles.sql")
	mediaHandlersSQL  = query("media_handlers.sql")
	domainsSQL        = query("domains.sql")
	typesSQL          = query("types.sql")
)

//go:embed queries
var queryFiles embed.FS

// pieceMark starts a line that stands for the piece it names.
const pieceMark = "--@ "

// query returns queries/name with its pieces put in. A query or piece
// missing is a mistake in this package, so it panics at start, where every
// test sees it.
func query(name string) string {
	text := mustRead("queries/" + name)
	var b strings.Builder
	for line := range strings.SplitAfterSeq(text, "\n") {
		if piece, ok := strings.CutPrefix(line, pieceMark); ok {
			b.WriteString(mustRead("queries/pieces/" + strings.TrimSpace(piece)))
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}

func mustRead(path string) string {
	b, err := queryFiles.ReadFile(path)
	if err != nil {
		panic("catalog: " + err.Error())
	}
	return string(b)
}
