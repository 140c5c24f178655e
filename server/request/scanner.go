package request

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/svc-dev/svc/server/apierr"
)

// scanner walks one parameter value and reports errors in PostgREST's
// style: the parameter and value, the column, and the unexpected input.
type scanner struct {
	param string // "select", "order", or the filter's key
	src   string
	pos   int
}

func (s *scanner) eof() bool { return s.pos >= len(s.src) }

func (s *scanner) peek() byte {
	if s.eof() {
		return 0
	}
	return s.src[s.pos]
}

func (s *scanner) startsWith(prefix string) bool { return strings.HasPrefix(s.src[s.pos:], prefix) }

func (s *scanner) accept(prefix string) bool {
	if strings.HasPrefix(s.src[s.pos:], prefix) {
		s.pos += len(prefix)
		return true
	}
	return false
}

// fail builds the SVC100 error for the current position.
func (s *scanner) fail(expecting string) error {
	unexpected := "end of input"
	if !s.eof() {
		r, _ := utf8.DecodeRuneInString(s.src[s.pos:])
		unexpected = fmt.Sprintf("%q", string(r))
	}
	return apierr.ParseError(
		fmt.Sprintf("failed to parse %s parameter (%s) (line 1, column %d)", s.param, s.src, s.pos+1),
		fmt.Sprintf("unexpected %s expecting %s", unexpected, expecting))
}

// identChar reports whether c may appear in an unquoted name. PostgREST is
// liberal here (names may hold spaces, dashes, unicode); what ends a name is
// the grammar's punctuation.
func identChar(c byte) bool {
	switch c {
	case ',', '.', ':', '(', ')', '"', '!', '>':
		return false
	}
	return c >= 0x20 && c != 0x7f
}

// name reads a plain or double-quoted name. Quoted names may contain any
// character but NUL; `\"` and `\\` escape. A name is never empty: an
// identifier cannot be, and PostgreSQL reads "" as a syntax error.
func (s *scanner) name() (string, error) {
	start := s.pos
	if s.peek() == '"' {
		n, err := s.quoted()
		if err == nil && (n == "" || strings.IndexByte(n, 0) >= 0) {
			s.pos = start
			return "", s.fail("a name (a quoted name is not empty and holds no NUL character)")
		}
		return n, err
	}
	for !s.eof() && identChar(s.src[s.pos]) {
		// "->" starts a JSON path, never part of a name.
		if s.src[s.pos] == '-' && strings.HasPrefix(s.src[s.pos:], "->") {
			break
		}
		s.pos++
	}
	n := strings.TrimSpace(s.src[start:s.pos])
	if n == "" {
		s.pos = start
		return "", s.fail("a name")
	}
	return n, nil
}

func (s *scanner) quoted() (string, error) {
	s.pos++ // opening quote
	var b strings.Builder
	for !s.eof() {
		c := s.src[s.pos]
		switch {
		case c == '\\' && s.pos+1 < len(s.src):
			b.WriteByte(s.src[s.pos+1])
			s.pos += 2
		case c == '"':
			s.pos++
			return b.String(), nil
		default:
			b.WriteByte(c)
			s.pos++
		}
	}
	return "", s.fail(`closing '"'`)
}
