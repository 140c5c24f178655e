package request

import (
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
	// Value is the operand with quoting removed; List holds the elements of
	// `in.(...)` and `{...}` operands.
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
		f.List, err = s.list('(', ')')
	case f.Quantifier != "":
		f.List, err = s.list('{', '}')
	case f.Op == "is":
		start := s.pos
		v := strings.ToLower(s.scalar(nested))
		if !isValues[v] {
			s.pos = start
			return Filter{}, s.fail("null, not_null, true, false or unknown")
		}
		f.Value = v
	case nested && s.peek() == '"':
		f.Value, err = s.quoted()
	default:
		f.Value = s.scalar(nested)
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

// list reads `(a,"b,c",d)`: elements separated by commas, double quotes
// protecting commas and parentheses, backslash escaping inside quotes.
func (s *scanner) list(open, close byte) ([]string, error) {
	if !s.accept(string(open)) {
		return nil, s.fail(`"` + string(open) + `"`)
	}
	var items []string
	if s.accept(string(close)) {
		return items, nil
	}
	for {
		var item string
		if s.peek() == '"' {
			q, err := s.quoted()
			if err != nil {
				return nil, err
			}
			item = q
		} else {
			start := s.pos
			for !s.eof() && s.peek() != ',' && s.peek() != close {
				s.pos++
			}
			item = s.src[start:s.pos]
		}
		items = append(items, item)
		switch {
		case s.accept(","):
		case s.accept(string(close)):
			return items, nil
		default:
			return nil, s.fail(`"," or "` + string(close) + `"`)
		}
	}
}

func (s *scanner) endOfValue() error {
	if !s.eof() {
		return s.fail("end of input")
	}
	return nil
}
