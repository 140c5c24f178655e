package request

import "strings"

// SelectItem is one entry of the select parameter.
type SelectItem struct {
	// Star selects every column; the other fields are then empty.
	Star  bool
	Field Field
	Alias string
	// Cast is a type name the value is cast to in the output.
	Cast string
}

// parseSelect reads `*`, `col`, `alias:col` and `col::type` items,
// comma separated.
func parseSelect(v string) ([]SelectItem, error) {
	s := &scanner{param: "select", src: v}
	var items []SelectItem
	for {
		item, err := s.selectItem()
		if err != nil {
			return nil, err
		}
		items = append(items, item)
		if s.eof() {
			return items, nil
		}
		if !s.accept(",") {
			return nil, s.fail(`"," or end of input`)
		}
	}
}

func (s *scanner) selectItem() (SelectItem, error) {
	if s.accept("*") {
		return SelectItem{Star: true}, nil
	}
	first, err := s.field()
	if err != nil {
		return SelectItem{}, err
	}
	item := SelectItem{Field: first}
	// "a:b" renames b to a; "a::t" is a cast, handled below.
	if len(first.Path) == 0 && !s.startsWith("::") && s.accept(":") {
		item.Alias = first.Name
		if item.Field, err = s.field(); err != nil {
			return SelectItem{}, err
		}
	}
	if s.accept("::") {
		if item.Cast, err = s.typeName(); err != nil {
			return SelectItem{}, err
		}
	}
	if s.peek() == '(' {
		return SelectItem{}, s.fail(`"," (embedding related resources is not available yet)`)
	}
	return item, nil
}

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
	for !s.eof() {
		c := s.src[s.pos]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == ' ' || c == '.' {
			s.pos++
			continue
		}
		break
	}
	name := strings.TrimSpace(s.src[start:s.pos])
	valid := name != "" && (multiWordTypes[strings.ToLower(name)] || !strings.Contains(name, " "))
	if strings.Count(name, ".") > 1 || strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".") {
		valid = false
	}
	if !valid {
		s.pos = start
		return "", s.fail("a type name")
	}
	for s.accept("[]") {
		name += "[]"
	}
	return name, nil
}
