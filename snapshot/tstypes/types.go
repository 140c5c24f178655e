package tstypes

import (
	"regexp"
	"strings"

	"github.com/svc-dev/svc/snapshot"
)

// typeModifiers matches what format_type prints after a type's name
// ("(10)", "(10,2)"), which changes nothing in TypeScript.
var typeModifiers = regexp.MustCompile(`\([0-9, ]*\)`)

// builtins maps PostgreSQL's own types, by the name format_type prints, to
// TypeScript as Supabase's generator maps them; a type missing here is
// unknown (ranges, inet, money, "char", ...), as there.
var builtins = map[string]string{
	"boolean":  "boolean",
	"smallint": "number", "integer": "number", "bigint": "number",
	"real": "number", "double precision": "number", "numeric": "number",
	"bytea": "string", "character": "string", "character varying": "string",
	"date": "string", "text": "string", "uuid": "string", "interval": "string",
	"time without time zone": "string", "time with time zone": "string",
	"timestamp without time zone": "string", "timestamp with time zone": "string",
	"json": "Json", "jsonb": "Json",
	"void": "undefined", "record": "Record<string, unknown>",
}

// extensionStrings are extension types whose JSON is a string; Supabase's
// generator knows them by name, whatever schema the extension is in.
var extensionStrings = map[string]bool{"citext": true, "vector": true}

// tsType maps a type as format_type prints it ("integer[]",
// "character varying(10)", `api."Odd name"`) to TypeScript.
func (g *generator) tsType(t string) string {
	t = typeModifiers.ReplaceAllString(t, "")
	if elem, ok := strings.CutSuffix(t, "[]"); ok {
		return arrayOf(g.tsType(elem))
	}
	if ts, ok := builtins[t]; ok {
		return ts
	}
	if d := g.snap.Domain(t); d != nil {
		return g.tsType(d.BaseType)
	}
	q, ok := parseQualified(t)
	if !ok {
		return "unknown"
	}
	return g.userType(q)
}

// catalogType maps a type named as the catalog names it (a function's
// return type: pg_catalog.int4, pg_catalog._text, api.color) to
// TypeScript.
func (g *generator) catalogType(q snapshot.QualifiedName) string {
	if q.Schema == "pg_catalog" {
		name := snapshot.FormatTypeName(q.Name)
		dims := 0
		for strings.HasSuffix(name, "[]") {
			name, dims = strings.TrimSuffix(name, "[]"), dims+1
		}
		ts, ok := builtins[name]
		if !ok {
			ts = "unknown"
		}
		for range dims {
			ts = arrayOf(ts)
		}
		return ts
	}
	if d := g.snap.DomainNamed(q); d != nil {
		return g.tsType(d.BaseType)
	}
	if elem, ok := strings.CutPrefix(q.Name, "_"); ok && g.userType(snapshot.QualifiedName{Schema: q.Schema, Name: elem}) != "unknown" {
		return arrayOf(g.userType(snapshot.QualifiedName{Schema: q.Schema, Name: elem}))
	}
	return g.userType(q)
}

// userType maps a type of a user's schema (or an extension's): an enum
// whose labels the snapshot holds, a composite type of a schema written,
// a relation's row, an extension type Supabase knows, else unknown.
func (g *generator) userType(q snapshot.QualifiedName) string {
	if labels, ok := g.enums[q]; ok {
		if g.schemas[q.Schema] {
			return "Database[" + jsString(q.Schema) + "][\"Enums\"][" + jsString(q.Name) + "]"
		}
		return labelUnion(labels)
	}
	if t := g.composites[q]; t != nil && g.schemas[q.Schema] {
		return "Database[" + jsString(q.Schema) + "][\"CompositeTypes\"][" + jsString(q.Name) + "]"
	}
	if r := g.snap.Relation(q); r != nil {
		if o := g.relation(r); o != nil {
			return "Database[" + jsString(q.Schema) + "][" + jsString(o.section()) + "][" + jsString(q.Name) + "][\"Row\"]"
		}
		return "unknown"
	}
	if extensionStrings[q.Name] {
		return "string"
	}
	return "unknown"
}

// labelUnion is an enum's labels as a union of string literals.
func labelUnion(labels []string) string {
	if len(labels) == 0 {
		return "never"
	}
	parts := make([]string, len(labels))
	for i, l := range labels {
		parts[i] = jsString(l)
	}
	return strings.Join(parts, " | ")
}

// arrayOf is an array of elem, parenthesised where elem is a union.
func arrayOf(elem string) string {
	if strings.Contains(elem, " | ") {
		return "(" + elem + ")[]"
	}
	return elem + "[]"
}

// withNull is ts for a value that may be null: Json already holds null,
// so a NOT NULL json value is narrowed instead; unknown holds it too.
func withNull(ts string, nullable bool) string {
	switch {
	case ts == "Json" && !nullable:
		return "NonNullable<Json>"
	case ts == "unknown" || !nullable:
		return ts
	}
	return ts + " | null"
}

// parseQualified reads a schema-qualified name as format_type prints it,
// each part quoted where it must be (`api."Odd name"`); an unqualified
// name (PostgreSQL's own types) is not one.
func parseQualified(t string) (snapshot.QualifiedName, bool) {
	var parts []string
	for len(t) > 0 {
		var part string
		if t[0] == '"' {
			var b strings.Builder
			i := 1
			for ; i < len(t); i++ {
				if t[i] == '"' {
					if i+1 < len(t) && t[i+1] == '"' {
						b.WriteByte('"')
						i++
						continue
					}
					break
				}
				b.WriteByte(t[i])
			}
			if i >= len(t) {
				return snapshot.QualifiedName{}, false
			}
			part, t = b.String(), t[i+1:]
		} else {
			end := strings.IndexByte(t, '.')
			if end < 0 {
				end = len(t)
			}
			part, t = t[:end], t[end:]
		}
		parts = append(parts, part)
		if t == "" {
			break
		}
		if t[0] != '.' {
			return snapshot.QualifiedName{}, false
		}
		t = t[1:]
	}
	if len(parts) != 2 {
		return snapshot.QualifiedName{}, false
	}
	return snapshot.QualifiedName{Schema: parts[0], Name: parts[1]}, true
}
