package request

import (
	"fmt"
	"strconv"
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

// OutputName is the key a selected field appears under: the last path
// element, or the column name.
func (f Field) OutputName() string {
	if len(f.Path) > 0 {
		return f.Path[len(f.Path)-1].Key
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
		if step.Key, err = s.pathKey(); err != nil {
			return Field{}, err
		}
		if _, err := strconv.Atoi(step.Key); err == nil {
			step.Index = true
		}
		f.Path = append(f.Path, step)
	}
}

// pathKey reads a JSON key: quoted, or up to the next arrow or punctuation.
// A key holds no NUL character, which PostgreSQL's text cannot.
func (s *scanner) pathKey() (string, error) {
	if s.peek() == '"' {
		start := s.pos
		k, err := s.quoted()
		if err == nil && strings.IndexByte(k, 0) >= 0 {
			s.pos = start
			return "", s.fail("a JSON key without NUL characters")
		}
		return k, err
	}
	start := s.pos
	for !s.eof() && identChar(s.src[s.pos]) && !strings.HasPrefix(s.src[s.pos:], "->") {
		s.pos++
	}
	// A leading "-" belongs to a negative index, not to an arrow.
	if s.pos == start && s.peek() == '-' {
		s.pos++
		for !s.eof() && s.src[s.pos] >= '0' && s.src[s.pos] <= '9' {
			s.pos++
		}
	}
	if s.pos == start {
		return "", s.fail("a JSON key or array index")
	}
	return s.src[start:s.pos], nil
}
