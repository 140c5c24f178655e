package request

import "strings"

// multiWordTypes are the SQL-standard type names that contain spaces; any
// other cast target must be a single word, so a cast can never carry SQL.
var multiWordTypes = map[string]bool{
	"double precision": true, "character varying": true, "bit varying": true,
	"timestamp with time zone": true, "timestamp without time zone": true,
	"time with time zone": true, "time without time zone": true,
}

// typeName reads a cast target: a word, optionally schema-qualified, one of
// multiWordTypes, each optionally followed by "[]". PostgreSQL checks the
// type itself.
func (s *scanner) typeName() (string, error) {
	start := s.pos
	for !s.eof() && !s.aggregateAhead() {
		c := s.src[s.pos]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == ' ' || c == '.' {
			s.pos++
			continue
		}
		break
	}
	name := strings.TrimSpace(s.src[start:s.pos])
	if !validTypeName(name) {
		s.pos = start
		return "", s.fail("a type name")
	}
	for s.accept("[]") {
		name += "[]"
	}
	return name, nil
}

// validTypeName reports whether name, as typeName reads it, is a type
// name PostgreSQL's grammar takes after "::": one of multiWordTypes, or
// one or two dot-separated words, none starting with a digit (1e309 lexes
// as a number) and the first not a keyword that cannot start a type name
// there (NULL, and those of typeOnlyWords before a dot). Whether the type
// exists is left to PostgreSQL: its answer is then a clean 42704.
func validTypeName(name string) bool {
	lower := strings.ToLower(name)
	if multiWordTypes[lower] {
		return true
	}
	if name == "" || strings.Contains(name, " ") {
		return false
	}
	words := strings.Split(lower, ".")
	if len(words) > 2 {
		return false
	}
	for _, w := range words {
		if w == "" || w[0] >= '0' && w[0] <= '9' {
			return false
		}
	}
	return !notTypeWords[words[0]] && !(len(words) == 2 && typeOnlyWords[words[0]])
}

// notTypeWords are PostgreSQL's keywords that cannot start a type name
// after "::" (reserved, and column-name keywords without a type
// production), found by casting to every word pg_get_keywords() lists;
// later versions' additions are included, so SQL built for a newer server
// is refused the same way. TestCastKeywords (package server) repeats the
// search against the server the tests run.
var notTypeWords = setOf(`all analyse analyze and any array as asc asymmetric between both case cast
	check coalesce collate column constraint create current_catalog current_date current_role
	current_time current_timestamp current_user default deferrable desc distinct do else end except
	exists extract false fetch for foreign from grant greatest group grouping having in initially inout
	intersect into lateral leading least limit localtime localtimestamp national none normalize not
	null nullif offset on only or order out overlay placing position precision primary references
	returning row select session_user setof some substring symmetric table then to trailing treat
	trim true union unique user using values variadic when where window with xmlattributes xmlconcat
	xmlelement xmlexists xmlforest xmlnamespaces xmlparse xmlpi xmlroot xmlserialize xmltable
	json_array json_arrayagg json_exists json_object json_objectagg json_query json_scalar
	json_serialize json_table json_value merge_action system_user`)

// typeOnlyWords are keywords that name a type alone (int, varchar) but
// cannot be a schema before a dot.
var typeOnlyWords = setOf(`bigint bit boolean char character dec decimal float int integer interval
	json nchar numeric real smallint time timestamp varchar`)

func setOf(words string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(words) {
		set[w] = true
	}
	return set
}
