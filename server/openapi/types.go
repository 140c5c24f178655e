package openapi

import (
	"encoding/json"
	"regexp"
	"strings"
)

// typeModifiers matches the modifiers format_type prints after a type
// name: "(10)", "(10,2)", "(3)" in "timestamp(3) with time zone".
var typeModifiers = regexp.MustCompile(`\([0-9, ]*\)`)

// nominal is the type as the document names it, PostgREST's format: the
// declared type without modifiers ("character varying(10)" -> "character
// varying"; a domain keeps its own name).
func nominal(t string) string { return typeModifiers.ReplaceAllString(t, "") }

// swaggerType maps a PostgreSQL type (modifiers removed) to a Swagger
// type. json and jsonb give "": any JSON value. Types without a closer
// JSON form (dates, uuids, enums, ...) are strings, as their JSON output is.
func swaggerType(t string) string {
	if strings.HasSuffix(t, "[]") {
		return "array"
	}
	switch t {
	case "boolean":
		return "boolean"
	case "smallint", "integer", "bigint":
		return "integer"
	case "numeric", "real", "double precision":
		return "number"
	case "json", "jsonb":
		return ""
	}
	return "string"
}

// integerFormats are OpenAPI 2.0's formats of an integer, by the
// PostgreSQL type that holds it: int32 and int64 are the only ones it
// defines for the integer type.
var integerFormats = map[string]string{"smallint": "int32", "integer": "int32", "bigint": "int64"}

// typeName is type t as the document names a function's argument:
// without modifiers (nominal), and without its schema when that is on the
// requests' search path (the document's schema, then the snapshot's extra
// search path), as PostgreSQL prints the name to them. PostgREST names
// arguments so, and columns with their schema (typeSchema); the snapshot
// qualifies every type outside pg_catalog.
func (b *builder) typeName(t string) string {
	t = nominal(t)
	if !strings.Contains(t, ".") {
		return t // pg_catalog's, which the snapshot does not qualify
	}
	if rest, ok := inSchema(t, b.opts.Schema); ok {
		return rest
	}
	for _, s := range b.snap.Header.ExtraSearchPath {
		if rest, ok := inSchema(t, s); ok {
			return rest
		}
	}
	return t
}

// inSchema reports whether type name t is qualified with schema s, as
// format_type writes it (quoted where s needs quotes), and returns the
// name without it.
func inSchema(t, s string) (string, bool) {
	if rest, ok := strings.CutPrefix(t, s+"."); ok {
		return rest, true
	}
	return strings.CutPrefix(t, `"`+strings.ReplaceAll(s, `"`, `""`)+`".`)
}

// format is the format of a value whose type is named name (modifiers
// removed): an integer's OpenAPI format, otherwise the name.
func format(name string) string {
	if f, ok := integerFormats[name]; ok {
		return f
	}
	return name
}

// typeSchema describes a value whose declared type is declared and whose
// underlying type (base type of a domain) is base: an array by its
// elements' type, under its own name as format.
func typeSchema(declared, base string) *schema {
	base, declared = nominal(base), nominal(declared)
	s := &schema{Type: swaggerType(base), Format: format(declared)}
	if s.Type == "array" {
		s.Format = declared
		s.Items = &schema{Type: swaggerType(strings.TrimSuffix(base, "[]"))}
	}
	return s
}

// queryType is the Swagger type of a query parameter, which must be a
// primitive: an array literal or a JSON text is sent as a string.
func queryType(t string) string {
	switch st := swaggerType(nominal(t)); st {
	case "", "array":
		return "string"
	default:
		return st
	}
}

// castChain matches what may follow a quoted literal in a default:
// "::text", "::character varying", "::text[]", possibly repeated.
var castChain = regexp.MustCompile(`^(::[A-Za-z_"][A-Za-z0-9_ ."$]*(\([0-9, ]*\))?(\[\])*)+$`)

// defaultValue turns a column default, as pg_get_expr prints it, into the
// JSON value it stands for, for a column of Swagger type typ. Only
// constants have one ('abc'::text, 42, '-1'::integer, true, '{}'::text[],
// '{"a":1}'::jsonb); an expression such as now() or nextval(...) is
// computed per row, so it gives nil and the document shows no default.
func defaultValue(expr, typ string) any {
	expr = strings.TrimSpace(expr)
	lit, quoted := "", false
	if strings.HasPrefix(expr, "'") {
		s, rest, ok := sqlString(expr)
		if !ok || (rest != "" && !castChain.MatchString(rest)) {
			return nil
		}
		lit, quoted = s, true
	} else {
		lit = expr
		if i := strings.Index(lit, "::"); i > 0 && castChain.MatchString(lit[i:]) {
			lit = lit[:i]
		}
		lit = strings.TrimSuffix(strings.TrimPrefix(lit, "("), ")")
	}
	switch typ {
	case "integer", "number":
		if isJSONNumber(lit) && (typ == "number" || !strings.ContainsAny(lit, ".eE")) {
			return json.Number(lit)
		}
	case "boolean":
		switch lit {
		case "true":
			return true
		case "false":
			return false
		}
	case "string":
		if quoted {
			return lit
		}
	case "array":
		if quoted && lit == "{}" {
			return []any{}
		}
	case "":
		if quoted && json.Valid([]byte(lit)) {
			return json.RawMessage(lit)
		}
	}
	return nil
}

// sqlString reads the SQL string literal opening s, where a doubled quote
// stands for one, returning its value and what follows it.
func sqlString(s string) (value, rest string, ok bool) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] != '\'' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '\'' {
			b.WriteByte('\'')
			i++
			continue
		}
		return b.String(), s[i+1:], true
	}
	return "", "", false
}

// isJSONNumber reports whether s is a number JSON can carry as it is
// (not NaN or Infinity, no leading "+" or zeros).
func isJSONNumber(s string) bool {
	if s == "" || !(s[0] == '-' || ('0' <= s[0] && s[0] <= '9')) {
		return false
	}
	var n json.Number
	return json.Unmarshal([]byte(s), &n) == nil
}

// summarize splits a comment as PostgREST does: the first line is the
// summary, the lines after it (leading blank lines dropped) the
// description.
func summarize(comment string) (summary, description string) {
	first, rest, _ := strings.Cut(comment, "\n")
	return first, strings.TrimLeft(rest, "\n")
}
