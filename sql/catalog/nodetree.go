package catalog

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// target is one entry of a view's top-level target list: view column resno
// shows column origCol of relation origTbl. PostgreSQL's parser fills
// resorigtbl/resorigcol through subqueries, CTEs and joins, so only the
// top-level list needs reading; origTbl is 0 for computed columns.
type target struct {
	resno   int16
	origTbl uint32
	origCol int16
}

// nodeReader walks the text form of a node tree (pg_rewrite.ev_action) the
// way PostgreSQL's pg_strtok does: a token is one of ( ) { } or a run of
// characters up to unescaped white space or one of those, where a backslash
// escapes the next character. Quotes are not special, which is why the
// reader does not treat them so either.
type nodeReader struct {
	s   string
	pos int
}

func (r *nodeReader) next() string {
	for r.pos < len(r.s) && isNodeSpace(r.s[r.pos]) {
		r.pos++
	}
	if r.pos == len(r.s) {
		return ""
	}
	start := r.pos
	switch r.s[r.pos] {
	case '(', ')', '{', '}':
		r.pos++
		return r.s[start:r.pos]
	}
	for r.pos < len(r.s) {
		c := r.s[r.pos]
		if isNodeSpace(c) || c == '(' || c == ')' || c == '{' || c == '}' {
			break
		}
		if c == '\\' && r.pos+1 < len(r.s) {
			r.pos++
		}
		r.pos++
	}
	return r.s[start:r.pos]
}

// peek returns the next token without consuming it.
func (r *nodeReader) peek() string {
	save := r.pos
	tok := r.next()
	r.pos = save
	return tok
}

func isNodeSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// skipValue consumes one field value. Most values are one token or one
// balanced ( ) / { } group; a few (Const's constvalue: "4 [ 1 0 0 0 ]") are
// several tokens, so it goes on until the next field name or the node's end.
func (r *nodeReader) skipValue() error {
	for {
		tok := r.peek()
		switch {
		case tok == "":
			return errUnexpectedEnd
		case tok == "}" || tok == ")" || strings.HasPrefix(tok, ":"):
			return nil
		case tok == "(" || tok == "{":
			if err := r.skipGroup(); err != nil {
				return err
			}
		default:
			r.next()
		}
	}
}

// skipGroup consumes a balanced group starting at the next token.
func (r *nodeReader) skipGroup() error {
	depth := 0
	for {
		switch r.next() {
		case "":
			return errUnexpectedEnd
		case "(", "{":
			depth++
		case ")", "}":
			depth--
			if depth == 0 {
				return nil
			}
		}
	}
}

var errUnexpectedEnd = errors.New("query tree ends unexpectedly")

// parseTargetList returns the target list of the first query in ev_action,
// skipping resjunk entries (sort keys and the like, not view columns).
// Nested queries (subqueries, CTEs, sublinks) have target lists too; they sit
// inside other fields and are skipped whole.
func parseTargetList(evAction string) ([]target, error) {
	r := &nodeReader{s: evAction}
	if r.next() != "(" || r.next() != "{" || r.next() != "QUERY" {
		return nil, errors.New("query tree does not start with a QUERY node")
	}
	for {
		tok := r.next()
		switch {
		case tok == "}":
			return nil, errors.New("query tree has no targetList")
		case tok == ":targetList":
			return r.targetEntries()
		case strings.HasPrefix(tok, ":"):
			if err := r.skipValue(); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("unexpected token %q in QUERY node", tok)
		}
	}
}

// targetEntries reads "({TARGETENTRY ...} ...)" or "<>".
func (r *nodeReader) targetEntries() ([]target, error) {
	switch tok := r.next(); tok {
	case "<>":
		return nil, nil
	case "(":
	default:
		return nil, fmt.Errorf("unexpected token %q after :targetList", tok)
	}
	var out []target
	for {
		switch tok := r.next(); tok {
		case ")":
			return out, nil
		case "{":
			t, junk, err := r.targetEntry()
			if err != nil {
				return nil, err
			}
			if !junk {
				out = append(out, t)
			}
		default:
			return nil, fmt.Errorf("unexpected token %q in targetList", tok)
		}
	}
}

// targetEntry reads the fields of one TARGETENTRY node after its "{".
func (r *nodeReader) targetEntry() (t target, junk bool, err error) {
	if tok := r.next(); tok != "TARGETENTRY" {
		return t, false, fmt.Errorf("unexpected node %q in targetList", tok)
	}
	for {
		tok := r.next()
		switch tok {
		case "}":
			return t, junk, nil
		case ":resno", ":resorigcol":
			n, perr := strconv.ParseInt(r.next(), 10, 16)
			if perr != nil {
				return t, false, fmt.Errorf("bad %s: %w", tok, perr)
			}
			if tok == ":resno" {
				t.resno = int16(n)
			} else {
				t.origCol = int16(n)
			}
		case ":resorigtbl":
			n, perr := strconv.ParseUint(r.next(), 10, 32)
			if perr != nil {
				return t, false, fmt.Errorf("bad :resorigtbl: %w", perr)
			}
			t.origTbl = uint32(n)
		case ":resjunk":
			junk = r.next() == "true"
		case ":resname":
			// One token always (outToken escapes white space), even when the
			// name itself starts with ':' and would fool skipValue.
			r.next()
		case "":
			return t, false, errUnexpectedEnd
		default:
			if !strings.HasPrefix(tok, ":") {
				return t, false, fmt.Errorf("unexpected token %q in TARGETENTRY", tok)
			}
			if err := r.skipValue(); err != nil {
				return t, false, err
			}
		}
	}
}
