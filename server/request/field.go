package request

import (
	"fmt"
	"strings"
)

// Field is a column reference, optionally followed by a JSON path:
// `meta->author->>name`, `tags->0`.
type Field struct {
	Name string
	Path []PathStep
}

// PathStep is one arrow of a JSON path.
type PathStep struct {
	// AsText is true for `->>` (text result), false for `->` (JSON result).
	AsText bool
	Key    string
	// Index marks Key as an integer array index (`->0`, `->-1`).
	Index bool
}

// OutputName is the key a selected field appears under: the last key of
// its JSON path, or the column name when the path holds only array indexes
// (`data->>0` is "data", `data->c->0` is "c"), as in PostgREST.
func (f Field) OutputName() string {
	for i := len(f.Path) - 1; i >= 0; i-- {
		if !f.Path[i].Index {
			return f.Path[i].Key
		}
	}
	return f.Name
}

// maxJSONPathDepth bounds the arrows of a JSON path the parser takes. It
// is the ceiling of request-max-json-path-depth, which CheckLimits
// enforces after parsing; PostgreSQL's stack takes paths this long.
const maxJSONPathDepth = 1000

// field reads a name and any JSON path after it.
func (s *scanner) field() (Field, error) {
	name, err := s.name()
	if err != nil {
		return Field{}, err
	}
	f := Field{Name: name}
	for {
		at := s.pos
		var step PathStep
		switch {
		case s.accept("->>"):
			step.AsText = true
		case s.accept("->"):
		default:
			return f, nil
		}
		if len(f.Path) == maxJSONPathDepth {
			s.pos = at
			return Field{}, s.fail(fmt.Sprintf("at most %d JSON path steps", maxJSONPathDepth))
		}
		if step.Key, step.Index, err = s.pathOperand(); err != nil {
			return Field{}, err
		}
		f.Path = append(f.Path, step)
	}
}

// pathOperand reads what follows an arrow, by PostgREST's rules: an array
// index (`0`, `-1`) when its digits end where the path element does (at
// an arrow, a cast, a dot, a comma, a closing parenthesis or the end), and
// otherwise a key: quoted, or runs of any characters but `(-:.,>)` joined
// by single dashes that start no arrow, trimmed. So `data->!@#_d` and
// `data->23-xy` are keys, and `data->>--34` is refused. A key holds no NUL
// character, which PostgreSQL's text cannot.
func (s *scanner) pathOperand() (key string, index bool, err error) {
	start := s.pos
	i := start
	if i < len(s.src) && s.src[i] == '-' {
		i++
	}
	j := i
	for j < len(s.src) && s.src[j] >= '0' && s.src[j] <= '9' {
		j++
	}
	if j > i && pathElementEnds(s.src[j:]) {
		s.pos = j
		return s.src[start:j], true, nil
	}
	if s.peek() == '"' {
		key, err := s.quoted()
		if err == nil && strings.IndexByte(key, 0) >= 0 {
			s.pos = start
			return "", false, s.fail("a JSON key without NUL characters")
		}
		return key, false, err
	}
	if i > start {
		// A leading "-" can only start a negative index.
		s.pos = j
		if j == i {
			return "", false, s.fail("digit")
		}
		return "", false, s.fail(`digit, "->", "::", ".", "," or end of input`)
	}
	var parts []string
	for {
		from := s.pos
		for !s.eof() && !strings.ContainsRune(pathReserved, rune(s.src[s.pos])) && s.src[s.pos] != 0 {
			s.pos++
		}
		part := strings.TrimSpace(s.src[from:s.pos])
		if part == "" {
			// Blanks alone make no key, and PostgreSQL's text holds no NUL.
			s.pos = from
			return "", false, s.fail(`"-", digit or any non reserved character different from: .,>()`)
		}
		parts = append(parts, part)
		if s.peek() != '-' || s.startsWith("->") {
			return strings.Join(parts, "-"), false, nil
		}
		s.pos++ // a dash inside the key
	}
}

// pathReserved are the characters a JSON key cannot hold unquoted.
const pathReserved = "(-:.,>)"

// pathElementEnds reports whether rest starts where a JSON path element
// may end.
func pathElementEnds(rest string) bool {
	if rest == "" {
		return true
	}
	for _, p := range [...]string{"->", "::", ".", ",", ")"} {
		if strings.HasPrefix(rest, p) {
			return true
		}
	}
	return false
}
