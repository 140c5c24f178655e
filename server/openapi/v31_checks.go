package openapi

import (
	"encoding/json"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// valueKind is what a domain's base type is for reading its checks: the
// JSON Schema keywords a check may become depend on it.
type valueKind int

const (
	kindOther   valueKind = iota // nothing is translated
	kindInteger                  // smallint, integer, bigint
	kindNumeric                  // numeric: exact decimals
	kindFloat32                  // real
	kindFloat64                  // double precision
	kindText                     // text, character varying
)

// kindOf classifies a base type (modifiers removed). character (bpchar)
// is left out: it ignores trailing spaces in comparisons and lengths,
// which JSON Schema counts.
func kindOf(base string) valueKind {
	switch base {
	case "smallint", "integer", "bigint":
		return kindInteger
	case "numeric":
		return kindNumeric
	case "real":
		return kindFloat32
	case "double precision":
		return kindFloat64
	case "text", "character varying":
		return kindText
	}
	return kindOther
}

// bound is a numeric limit: its value, and its text as the check wrote it.
type bound struct {
	v    *big.Rat
	text string
}

// keywords are what checks say in JSON Schema. Each one only narrows
// what the schema accepts, so those of several checks (or of the operands
// of AND) combine by keeping the narrowest.
type keywords struct {
	min, exMin, max, exMax *bound
	minLength, maxLength   *int
	patterns               []string
	// enum is nil for no restriction; values are strings or json.Number.
	enum []any
}

// checkReader turns checks of a domain into keywords.
type checkReader struct {
	kind valueKind
	// base is the base type's name, to which VALUE may be cast as it is
	// when the domain stands on another domain.
	base string
	// modifier is the base type's scale (numeric(8,2): 2) or length
	// (character varying(6): 6); -1 for none. PostgreSQL applies it before
	// the checks: it rounds a numeric to its scale, and cuts the spaces
	// past a character varying's length.
	modifier int
	// exactText says string equality and patterns mean what they say: the
	// domain's collation is deterministic.
	exactText bool
}

// newCheckReader reads the checks of a domain over base (as format_type
// prints it, modifiers included).
func newCheckReader(base string, nondeterministic bool) checkReader {
	c := checkReader{kind: kindOf(nominal(base)), base: nominal(base), modifier: -1, exactText: !nondeterministic}
	if mods := typeModifiers.FindString(base); mods != "" {
		last := mods[strings.LastIndexAny(mods, "(,")+1 : len(mods)-1]
		n, err := strconv.Atoi(strings.TrimSpace(last))
		switch {
		case err != nil:
			c.kind = kindOther
		case c.kind == kindNumeric && strings.Contains(mods, ","), c.kind == kindText:
			c.modifier = n
		case c.kind == kindNumeric:
			c.modifier = 0 // numeric(p) is numeric(p,0)
		}
	}
	return c
}

// read returns the keywords the check expr implies, and whether they say
// all of it. A check is an AND of conditions; each condition it cannot
// state is left out, which only widens the schema, so no value
// PostgreSQL accepts is refused by it.
func (c checkReader) read(expr string) (keywords, bool) {
	var kw keywords
	if c.kind == kindOther {
		return kw, false
	}
	n, err := parseCheck(expr)
	if err != nil {
		return kw, false
	}
	return kw, c.condition(n, &kw)
}

func (c checkReader) condition(n *checkNode, kw *keywords) bool {
	switch n.kind {
	case nodeBool:
		if n.text != "AND" || len(n.casts) > 0 {
			return false
		}
		all := true
		for _, a := range n.args {
			all = c.condition(a, kw) && all
		}
		return all
	case nodeOp:
		left, right, op := n.args[0], n.args[1], n.text
		if left.kind == nodeConst {
			left, right, op = right, left, flipped[op]
		}
		switch {
		case c.isValue(left):
			return c.compare(op, right, kw)
		case c.isLength(left):
			return c.length(op, right, kw)
		}
	case nodeAny:
		if n.text != "=" || !c.isValue(n.args[0]) {
			return false
		}
		return c.members(n.args[1], kw)
	}
	return false
}

// flipped is the operator that says the same with its operands swapped.
var flipped = map[string]string{"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "=", "~": ""}

// isValue reports whether n is VALUE, possibly cast to a type that keeps
// every value as it is: the base type itself (a domain over a domain
// casts VALUE to it), text from character varying, a wider integer or
// numeric from an integer.
func (c checkReader) isValue(n *checkNode) bool {
	if n.kind != nodeValue {
		return false
	}
	for _, t := range n.casts {
		switch {
		case t == c.base:
		case c.kind == kindText && t == "text":
		case c.kind == kindInteger && (t == "bigint" || t == "numeric" || t == "integer" && c.base != "bigint"):
		default:
			return false
		}
	}
	return true
}

// isLength reports whether n is the length of a text VALUE in characters
// (char_length, character_length or length), which JSON Schema's
// minLength and maxLength count alike.
func (c checkReader) isLength(n *checkNode) bool {
	switch {
	case c.kind != kindText || n.kind != nodeFunc || len(n.casts) > 0 || len(n.args) != 1:
		return false
	case n.text != "char_length" && n.text != "character_length" && n.text != "length":
		return false
	}
	return c.isValue(n.args[0])
}

// compare reads VALUE op constant.
func (c checkReader) compare(op string, k *checkNode, kw *keywords) bool {
	if c.kind == kindText {
		s, ok := c.text(k)
		switch {
		case !ok || !c.exactText || c.modifier >= 0:
			// "S  " is "S" in a character varying(1): a value a pattern
			// or a list refuses may pass.
			return false
		case op == "=":
			kw.narrowEnum([]any{s})
			return true
		case op == "~":
			p, ok := ecmaPattern(s)
			if ok {
				kw.patterns = append(kw.patterns, p)
			}
			return ok
		}
		return false
	}
	b, ok := c.number(k)
	if !ok {
		return false
	}
	if c.kind == kindFloat32 || c.kind == kindFloat64 {
		// PostgreSQL rounds a value to binary floating point before
		// comparing it, so a value a hair below an inclusive bound may
		// pass; a strict bound the type holds exactly is still exact
		// (rounding never carries a value across it), and equality not.
		if (op != ">" && op != "<") || !c.exactFloat(b) {
			return false
		}
	}
	if c.kind == kindNumeric && c.modifier >= 0 {
		return c.rounded(op, b, kw)
	}
	switch op {
	case ">":
		kw.exMin = higher(kw.exMin, b)
	case ">=":
		kw.min = higher(kw.min, b)
	case "<":
		kw.exMax = lower(kw.exMax, b)
	case "<=":
		kw.max = lower(kw.max, b)
	case "=":
		kw.narrowEnum([]any{json.Number(b.text)})
	default:
		return false
	}
	return true
}

// rounded reads VALUE op b for a numeric of a given scale, which
// PostgreSQL rounds to the scale (halves away from zero) before the check:
// with scale 2, -0.004 is 0.00 and passes VALUE >= 0. A bound on the
// scale's grid moves by half a step to the least value that can round
// onto or past it, inclusive, so nothing that rounds into range is
// refused; equality has no such bound.
func (c checkReader) rounded(op string, b *bound, kw *keywords) bool {
	step := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(c.modifier)), nil))
	if !new(big.Rat).Quo(b.v, step).IsInt() {
		return false
	}
	half := new(big.Rat).Quo(step, big.NewRat(2, 1))
	moved := func(sign int) *bound {
		v := new(big.Rat).Set(b.v)
		if sign < 0 {
			v.Sub(v, half)
		} else {
			v.Add(v, half)
		}
		return &bound{v: v, text: strings.TrimRight(strings.TrimRight(v.FloatString(c.modifier+1), "0"), ".")}
	}
	switch op {
	case ">": // rounds to at least b + step
		kw.min = higher(kw.min, moved(+1))
	case ">=":
		kw.min = higher(kw.min, moved(-1))
	case "<":
		kw.max = lower(kw.max, moved(-1))
	case "<=":
		kw.max = lower(kw.max, moved(+1))
	default:
		return false
	}
	return true
}

// length reads char_length(VALUE) op constant.
func (c checkReader) length(op string, k *checkNode, kw *keywords) bool {
	if k.kind != nodeConst || k.quoted || len(k.casts) > 0 {
		return false
	}
	n, err := strconv.Atoi(k.text)
	if err != nil || n < 0 {
		return false
	}
	atLeast := func(n int) {
		if kw.minLength == nil || *kw.minLength < n {
			kw.minLength = &n
		}
	}
	atMost := func(n int) {
		if kw.maxLength == nil || *kw.maxLength > n {
			kw.maxLength = &n
		}
	}
	switch op {
	case ">":
		atLeast(n + 1)
	case ">=":
		atLeast(n)
	case "<":
		if n == 0 {
			return false // nothing but null passes: left to the database
		}
		return c.atMost(n-1, atMost)
	case "<=":
		return c.atMost(n, atMost)
	case "=":
		atLeast(n)
		return c.atMost(n, atMost)
	default:
		return false
	}
	return true
}

// atMost states a maximum length n, unless the base is a character
// varying of length n or less: longer values whose excess is spaces are
// cut to that length before the check, and pass.
func (c checkReader) atMost(n int, state func(int)) bool {
	if c.modifier >= 0 && n >= c.modifier {
		return false
	}
	state(n)
	return true
}

// members reads the array of VALUE = ANY (ARRAY[...]), VALUE IN (...) as
// PostgreSQL keeps it, into an enum.
func (c checkReader) members(arr *checkNode, kw *keywords) bool {
	if arr.kind != nodeArray || (c.kind != kindText && c.kind != kindInteger && c.kind != kindNumeric) {
		return false
	}
	for _, t := range arr.casts {
		if c.kind != kindText || t != "text[]" {
			return false
		}
	}
	if c.modifier >= 0 {
		return false // a rounded numeric, a character varying cut to length: see compare
	}
	var values []any
	for _, e := range arr.args {
		if c.kind == kindText {
			s, ok := c.text(e)
			if !ok || !c.exactText {
				return false
			}
			values = append(values, s)
			continue
		}
		b, ok := c.number(e)
		if !ok {
			return false
		}
		values = append(values, json.Number(b.text))
	}
	kw.narrowEnum(values)
	return true
}

// text reads a string constant cast to text or character varying.
func (c checkReader) text(k *checkNode) (string, bool) {
	if k.kind != nodeConst || !k.quoted {
		return "", false
	}
	for _, t := range k.casts {
		if t != "text" && t != "character varying" {
			return "", false
		}
	}
	return k.text, true
}

// number reads a numeric constant ('-5'::integer, (0)::numeric, 2.5) as
// a bound whose text is a JSON number.
func (c checkReader) number(k *checkNode) (*bound, bool) {
	if k.kind != nodeConst || !isJSONNumber(k.text) {
		return nil, false
	}
	for _, t := range k.casts {
		switch t {
		case "smallint", "integer", "bigint", "numeric":
		case "real", "double precision":
			if c.kind != kindFloat32 && c.kind != kindFloat64 {
				return nil, false
			}
		default:
			return nil, false
		}
	}
	v, ok := new(big.Rat).SetString(k.text)
	if !ok {
		return nil, false
	}
	return &bound{v: v, text: k.text}, true
}

// exactFloat reports whether the base float type holds b exactly.
func (c checkReader) exactFloat(b *bound) bool {
	size := 64
	if c.kind == kindFloat32 {
		size = 32
	}
	// ParseFloat rounds to the nearest value of that size, which the
	// float64 it returns holds exactly.
	f, err := strconv.ParseFloat(b.text, size)
	return err == nil && new(big.Rat).SetFloat64(f).Cmp(b.v) == 0
}

func higher(a, b *bound) *bound {
	if a == nil || b.v.Cmp(a.v) > 0 {
		return b
	}
	return a
}

func lower(a, b *bound) *bound {
	if a == nil || b.v.Cmp(a.v) < 0 {
		return b
	}
	return a
}

// narrowEnum keeps only the values both enums allow.
func (kw *keywords) narrowEnum(values []any) {
	if kw.enum == nil {
		kw.enum = values
		return
	}
	kw.enum = slices.DeleteFunc(kw.enum, func(v any) bool {
		return !slices.ContainsFunc(values, func(w any) bool { return sameValue(v, w) })
	})
	if kw.enum == nil {
		kw.enum = []any{}
	}
}

// sameValue compares enum values as JSON Schema does: numbers by value.
func sameValue(a, b any) bool {
	x, xn := a.(json.Number)
	y, yn := b.(json.Number)
	if xn && yn {
		p, _ := new(big.Rat).SetString(string(x))
		q, _ := new(big.Rat).SetString(string(y))
		return p != nil && q != nil && p.Cmp(q) == 0
	}
	return a == b
}

// apply writes kw onto s.
func (kw *keywords) apply(s *jsonSchema) {
	num := func(b *bound) *json.Number {
		if b == nil {
			return nil
		}
		n := json.Number(b.text)
		return &n
	}
	s.Minimum, s.ExclusiveMinimum = num(kw.min), num(kw.exMin)
	s.Maximum, s.ExclusiveMaximum = num(kw.max), num(kw.exMax)
	s.MinLength, s.MaxLength = kw.minLength, kw.maxLength
	if kw.enum != nil {
		s.Enum = kw.enum
	}
	for i, p := range kw.patterns {
		// One pattern per schema: the others go in allOf, and a value
		// must match them all.
		if i == 0 {
			s.Pattern = p
			continue
		}
		s.AllOf = append(s.AllOf, &jsonSchema{Pattern: p})
	}
}
