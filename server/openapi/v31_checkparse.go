package openapi

import (
	"errors"
	"strings"
)

// A domain's CHECK reaches the document as pg_get_expr printed it (see
// snapshot.DomainCheck): every operator and function call in parentheses,
// VALUE for the value, names outside pg_catalog qualified. checkNode is
// that text read back into a tree, for the few shapes checks.go turns into
// JSON Schema; anything else fails to parse and the check stays text.

// checkNode is one node of a parsed check expression.
type checkNode struct {
	kind nodeKind
	// text is a constant's text (a string's value, unquoted), a function's
	// or an operator's name, or AND/OR.
	text string
	// quoted is set for a string constant.
	quoted bool
	// casts are the types the node is cast to, innermost first, as
	// format_type prints them ("text", "double precision", "text[]").
	casts []string
	// args are an operator's two operands, a function's arguments, an
	// array's elements, or the operands of AND/OR.
	args []*checkNode
}

type nodeKind int

const (
	nodeValue nodeKind = iota // VALUE
	nodeConst                 // 5, 'abc'
	nodeFunc                  // char_length(VALUE)
	nodeArray                 // ARRAY[1, 2]
	nodeOp                    // (a > b)
	nodeAny                   // (a = ANY (array))
	nodeBool                  // (a AND b AND c)
)

var errUnread = errors.New("not a check shape the document describes")

// checkParser reads tokens of a deparsed expression.
type checkParser struct {
	toks []string
	pos  int
}

// parseCheck reads expr, or fails with errUnread.
func parseCheck(expr string) (*checkNode, error) {
	toks, ok := tokenize(expr)
	if !ok {
		return nil, errUnread
	}
	p := &checkParser{toks: toks}
	n, err := p.expr()
	if err != nil || p.pos != len(p.toks) {
		return nil, errUnread
	}
	return n, nil
}

func (p *checkParser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return ""
}

func (p *checkParser) next() string {
	t := p.peek()
	if t != "" {
		p.pos++
	}
	return t
}

func (p *checkParser) expect(t string) error {
	if p.next() != t {
		return errUnread
	}
	return nil
}

// expr reads what the deparser puts between parentheses: a primary, a
// binary operator between two, an operator with ANY/ALL, or operands
// joined by AND or OR.
func (p *checkParser) expr() (*checkNode, error) {
	left, err := p.primary()
	if err != nil {
		return nil, err
	}
	switch t := p.peek(); {
	case t == "" || t == ")" || t == "," || t == "]":
		return left, nil
	case t == "AND" || t == "OR":
		n := &checkNode{kind: nodeBool, text: t, args: []*checkNode{left}}
		for p.peek() == t {
			p.next()
			arg, err := p.primary()
			if err != nil {
				return nil, err
			}
			n.args = append(n.args, arg)
		}
		return n, nil
	case isOperator(t):
		p.next()
		if q := p.peek(); q == "ANY" || q == "ALL" {
			p.next()
			if q == "ALL" {
				return nil, errUnread
			}
			if err := p.expect("("); err != nil {
				return nil, err
			}
			right, err := p.expr()
			if err != nil {
				return nil, err
			}
			return &checkNode{kind: nodeAny, text: t, args: []*checkNode{left, right}}, p.expect(")")
		}
		right, err := p.primary()
		if err != nil {
			return nil, err
		}
		return &checkNode{kind: nodeOp, text: t, args: []*checkNode{left, right}}, nil
	}
	return nil, errUnread
}

// primary reads an operand and the casts after it.
func (p *checkParser) primary() (*checkNode, error) {
	var n *checkNode
	switch t := p.next(); {
	case t == "(":
		inner, err := p.expr()
		if err != nil {
			return nil, err
		}
		if err := p.expect(")"); err != nil {
			return nil, err
		}
		n = inner
	case t == "VALUE":
		n = &checkNode{kind: nodeValue}
	case t == "ARRAY":
		if err := p.expect("["); err != nil {
			return nil, err
		}
		args, err := p.list("]")
		if err != nil {
			return nil, err
		}
		n = &checkNode{kind: nodeArray, args: args}
	case strings.HasPrefix(t, "'"):
		n = &checkNode{kind: nodeConst, text: strings.ReplaceAll(t[1:len(t)-1], "''", "'"), quoted: true}
	case t != "" && (t[0] >= '0' && t[0] <= '9'):
		n = &checkNode{kind: nodeConst, text: t}
	case isWord(t) && p.peek() == "(":
		p.next()
		args, err := p.list(")")
		if err != nil {
			return nil, err
		}
		n = &checkNode{kind: nodeFunc, text: t, args: args}
	default:
		return nil, errUnread
	}
	for p.peek() == "::" {
		p.next()
		typ, err := p.typeName()
		if err != nil {
			return nil, err
		}
		n.casts = append(n.casts, typ)
	}
	return n, nil
}

// list reads expressions separated by commas up to end.
func (p *checkParser) list(end string) ([]*checkNode, error) {
	var out []*checkNode
	for p.peek() != end {
		if len(out) > 0 {
			if err := p.expect(","); err != nil {
				return nil, err
			}
		}
		n, err := p.expr()
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	p.next()
	return out, nil
}

// typeName reads a cast's type: words ("double precision"), possibly
// qualified, then [] for arrays. A type with modifiers ("numeric(5,2)")
// changes values, so it is not read.
func (p *checkParser) typeName() (string, error) {
	var words []string
	for isWord(p.peek()) && !reserved[p.peek()] {
		words = append(words, p.next())
	}
	if len(words) == 0 || p.peek() == "(" || p.peek() == "." {
		return "", errUnread
	}
	typ := strings.Join(words, " ")
	for p.peek() == "[" {
		p.next()
		if err := p.expect("]"); err != nil {
			return "", err
		}
		typ += "[]"
	}
	return typ, nil
}

// reserved are the words that end a cast's type name.
var reserved = map[string]bool{"AND": true, "OR": true, "ANY": true, "ALL": true, "IS": true, "NOT": true, "COLLATE": true}

func isWord(t string) bool {
	if t == "" {
		return false
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

const operatorChars = "+-*/<>=~!@#%^&|`?"

func isOperator(t string) bool {
	return t != "" && strings.Trim(t, operatorChars) == ""
}

// tokenize splits a deparsed expression into parentheses, brackets,
// commas, "::", operators, words, numbers and string literals (kept with
// their quotes). Quoted identifiers, E” strings, dots (qualified names:
// a function or type of the schema's own) fail it: no shape read here
// has them.
func tokenize(s string) ([]string, bool) {
	var toks []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ':
			i++
		case strings.IndexByte("()[],", c) >= 0:
			toks = append(toks, s[i:i+1])
			i++
		case c == ':' && i+1 < len(s) && s[i+1] == ':':
			toks = append(toks, "::")
			i += 2
		case c == '\'':
			j := i + 1
			for ; j < len(s); j++ {
				if s[j] == '\'' {
					if j+1 < len(s) && s[j+1] == '\'' {
						j++
						continue
					}
					break
				}
			}
			if j >= len(s) {
				return nil, false
			}
			toks = append(toks, s[i:j+1])
			i = j + 1
		case '0' <= c && c <= '9':
			j := i
			for j < len(s) && strings.IndexByte("0123456789.eE", s[j]) >= 0 {
				// An exponent's sign belongs to the number.
				if (s[j] == 'e' || s[j] == 'E') && j+1 < len(s) && (s[j+1] == '-' || s[j+1] == '+') {
					j++
				}
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		case isWord(string(c)):
			j := i
			for j < len(s) && isWord(s[i:j+1]) {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		case strings.IndexByte(operatorChars, c) >= 0:
			j := i
			for j < len(s) && strings.IndexByte(operatorChars, s[j]) >= 0 {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		default:
			return nil, false
		}
	}
	return toks, true
}
