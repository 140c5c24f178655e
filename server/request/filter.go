package request

import (
	"regexp"
	"strings"

	"github.com/svc-dev/svc/server/apierr"
)

// Filter is one horizontal filter: `<column>=[not.]<op>[(<mod>)].<value>`.
type Filter struct {
	Field  Field
	Negate bool
	Op     string
	// Quantifier is "any" or "all" for `eq(any).{a,b}` forms, else "".
	Quantifier string
	// Language is the optional text-search configuration: `fts(english).x`.
	Language string
	// Value is the operand, with quoting removed inside logic trees; for
	// any/all it is the array literal `{...}` as written, which PostgreSQL
	// reads. List holds the elements of `in.(...)`.
	Value string
	List  []string
	// Slot is the position, from 1, of the query parameter the filter came
	// from, in Parse's order; 0 for a filter inside a logic tree. A cached
	// statement finds its operands by it (see Template).
	Slot int
}

// opInfo describes what an operator's operand looks like.
type opInfo struct {
	quantifiable bool // accepts (any)/(all)
	language     bool // accepts (<language>)
	list         bool // operand is a parenthesised list
}

// operators are the filter operators of SPEC.md "Horizontal filtering".
var operators = map[string]opInfo{
	"eq": {quantifiable: true}, "neq": {}, "gt": {quantifiable: true}, "gte": {quantifiable: true},
	"lt": {quantifiable: true}, "lte": {quantifiable: true},
	"like": {quantifiable: true}, "ilike": {quantifiable: true},
	"match": {quantifiable: true}, "imatch": {quantifiable: true},
	"in": {list: true}, "is": {}, "isdistinct": {},
	"fts": {language: true}, "plfts": {language: true}, "phfts": {language: true}, "wfts": {language: true},
	"cs": {}, "cd": {}, "ov": {}, "sl": {}, "sr": {}, "nxr": {}, "nxl": {}, "adj": {},
}

// isValues are the operands `is` accepts, matched case-insensitively.
var isValues = map[string]bool{"null": true, "not_null": true, "true": true, "false": true, "unknown": true}

// parseFilter reads one filter from a query parameter's key and value.
func parseFilter(key, value string) (Filter, error) {
	ks := &scanner{param: "filter", src: key}
	field, err := ks.field()
	if err != nil {
		return Filter{}, err
	}
	if !ks.eof() {
		return Filter{}, ks.fail("end of column name")
	}
	if value == "" {
		// Nothing in the value to point at: name the parameter, which may
		// have come without "=" at all ("?a=eq.1;b").
		return Filter{}, apierr.ParseError("failed to parse filter parameter ("+key+")",
			"a filter needs an operator and a value: "+key+"=<operator>.<value>")
	}
	s := &scanner{param: "filter", src: value}
	f, err := s.filterRest(field, false)
	if err != nil {
		return Filter{}, err
	}
	return f, s.endOfValue()
}

// filterRest reads `[not.]<op>[(<mod>)].<operand>` after the field. Nested
// (inside a logic tree) the operand ends at "," or ")" outside quotes; at
// top level it is the rest of the value, taken literally.
func (s *scanner) filterRest(field Field, nested bool) (Filter, error) {
	f := Filter{Field: field}
	if s.accept("not.") {
		f.Negate = true
	}
	start := s.pos
	for !s.eof() && s.peek() != '.' && s.peek() != '(' {
		s.pos++
	}
	f.Op = s.src[start:s.pos]
	info, ok := operators[f.Op]
	if !ok {
		s.pos = start
		return Filter{}, s.fail("an operator (eq, neq, gt, gte, lt, lte, like, ilike, match, imatch, in, is, isdistinct, fts, plfts, phfts, wfts, cs, cd, ov, sl, sr, nxr, nxl, adj, not)")
	}
	if s.accept("(") {
		mod := s.pos
		for !s.eof() && s.peek() != ')' {
			s.pos++
		}
		arg := s.src[mod:s.pos]
		switch {
		case info.quantifiable && (arg == "any" || arg == "all"):
			f.Quantifier = arg
		case info.language && arg != "":
			f.Language = arg
		default:
			s.pos = mod
			return Filter{}, s.fail(modifierExpectation(info))
		}
		if !s.accept(")") {
			return Filter{}, s.fail(`")"`)
		}
	}
	if !s.accept(".") {
		return Filter{}, s.fail(`"." before the value`)
	}
	return f.operand(s, info, nested)
}

func modifierExpectation(info opInfo) string {
	if info.language {
		return "a text search language"
	}
	return `"any" or "all"`
}

// operand reads what follows `op.`.
func (f Filter) operand(s *scanner, info opInfo, nested bool) (Filter, error) {
	var err error
	switch {
	case info.list:
		f.List, err = s.list()
	case f.Op == "is":
		start := s.pos
		v := strings.ToLower(strings.TrimRight(s.scalar(nested), " \t"))
		if !isValues[v] {
			s.pos = start
			return Filter{}, s.fail("null, not_null, true, false or unknown")
		}
		f.Value = v
	case nested:
		f.Value = s.nestedValue()
	default:
		f.Value = s.scalar(false)
	}
	if err != nil {
		return Filter{}, err
	}
	return f, nil
}

// scalar reads an unquoted operand: the rest of the input, or in a logic
// tree up to the next "," or ")".
func (s *scanner) scalar(nested bool) string {
	start := s.pos
	for !s.eof() && !(nested && (s.peek() == ',' || s.peek() == ')')) {
		s.pos++
	}
	return s.src[start:s.pos]
}

// nestedValue reads an operand inside a logic tree, where "," and ")"
// end it: a double-quoted value (when the quotes end the operand), an
// array literal `{...}` whose commas are its own, or text up to the next
// "," or ")". A range literal, `[1,5)` or `(1,5]`, keeps its comma too.
func (s *scanner) nestedValue() string {
	start := s.pos
	if s.peek() == '"' {
		if v, err := s.quoted(); err == nil && (s.eof() || s.peek() == ',' || s.peek() == ')') {
			return v
		}
		s.pos = start
	}
	if s.peek() == '{' {
		if end := strings.IndexAny(s.src[s.pos+1:], "{}"); end >= 0 && s.src[s.pos+1+end] == '}' {
			s.pos += end + 2
			return s.src[start:s.pos]
		}
	}
	if m := rangeLiteral.FindString(s.src[s.pos:]); m != "" {
		s.pos += len(m)
		return m
	}
	return s.scalar(true)
}

// rangeLiteral matches a range's text form, whose comma would otherwise
// end an operand in a logic tree.
var rangeLiteral = regexp.MustCompile(`^[\[(][^,()\[\]]*,[^,()\[\]]*[\])]`)

// list reads the `(a,"b,c",d)` operand of `in`, as PostgREST does:
// elements separated by commas; an element in double quotes (backslash
// escaping inside) when the quotes end it, else the text up to the next
// comma or ")", a lone `"` included. Blanks after "(" are dropped, and a
// list whose one element is empty, `()` or `(  )`, is the empty list.
func (s *scanner) list() ([]string, error) {
	s.blanks()
	if !s.accept("(") {
		return nil, s.fail(`"("`)
	}
	s.blanks()
	var items []string
	for {
		start := s.pos
		item, quoted := "", false
		if s.peek() == '"' {
			q, err := s.quoted()
			if quoted = err == nil && (s.peek() == ',' || s.peek() == ')'); quoted {
				item = q
			} else {
				s.pos = start
			}
		}
		if !quoted {
			for !s.eof() && s.peek() != ',' && s.peek() != ')' {
				s.pos++
			}
			item = s.src[start:s.pos]
		}
		items = append(items, item)
		if !s.accept(",") {
			break
		}
	}
	if !s.accept(")") {
		return nil, s.fail(`"," or ")"`)
	}
	s.blanks()
	if len(items) == 1 && items[0] == "" {
		return nil, nil
	}
	return items, nil
}

// blanks skips spaces and tabs, which PostgREST allows around the
// punctuation of lists and logic trees.
func (s *scanner) blanks() {
	for !s.eof() && (s.peek() == ' ' || s.peek() == '\t') {
		s.pos++
	}
}

func (s *scanner) endOfValue() error {
	if !s.eof() {
		return s.fail("end of input")
	}
	return nil
}
