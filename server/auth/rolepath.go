package auth

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ClaimPath is a parsed jwt-role-claim-key: the steps from the claims
// object to the role. The zero value finds nothing.
type ClaimPath struct {
	steps []step
}

type stepKind uint8

const (
	stepKey    stepKind = iota // .name or ."quoted name": a member of an object
	stepIndex                  // [n]: an element of an array
	stepFilter                 // [?(@ op "text")]: the first string element of an array that matches
)

// filterOp is a filter step's comparison of an array element with its text.
type filterOp uint8

const (
	opEquals     filterOp = iota // ==
	opNotEquals                  // !=
	opStartsWith                 // ^==
	opEndsWith                   // ==^
	opContains                   // *==
)

// filterOps lists the spellings longest first where one is a prefix of
// another ("==^" before "==").
var filterOps = []struct {
	spelling string
	op       filterOp
}{{"==^", opEndsWith}, {"==", opEquals}, {"!=", opNotEquals}, {"^==", opStartsWith}, {"*==", opContains}}

var opSpelling = [...]string{opEquals: "==", opNotEquals: "!=", opStartsWith: "^==", opEndsWith: "==^", opContains: "*=="}

type step struct {
	kind  stepKind
	key   string // stepKey: the member name; stepFilter: the text compared with
	index int    // stepIndex
	op    filterOp
}

// defaultRoleClaimKey is PostgREST's default: the top-level "role" claim.
const defaultRoleClaimKey = ".role"

// ParseRoleClaimKey parses PostgREST's jwt-role-claim-key syntax: one or
// more steps, each `.name` (name of A-Z a-z 0-9 _ $ @), `."any text"`, `[n]`,
// or `[?(@ op "text")]` with op one of == != ^== (starts with) ==^ (ends
// with) *== (contains). "" is the default, ".role". Errors name the key and
// the 1-based character where the text stops making sense.
func ParseRoleClaimKey(s string) (ClaimPath, error) {
	if s == "" {
		s = defaultRoleClaimKey
	}
	p := pathParser{src: s}
	var steps []step
	for p.pos < len(s) {
		st, err := p.step()
		if err != nil {
			return ClaimPath{}, err
		}
		steps = append(steps, st)
	}
	return ClaimPath{steps: steps}, nil
}

// String renders the path in the syntax ParseRoleClaimKey reads, quoting
// names only where they need it.
func (c ClaimPath) String() string {
	var b strings.Builder
	for _, s := range c.steps {
		switch s.kind {
		case stepKey:
			b.WriteByte('.')
			if s.key != "" && strings.IndexFunc(s.key, func(r rune) bool { return !isNameChar(r) }) < 0 {
				b.WriteString(s.key)
			} else {
				b.WriteString(`"` + s.key + `"`)
			}
		case stepIndex:
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
		case stepFilter:
			b.WriteString(`[?(@ ` + opSpelling[s.op] + ` "` + s.key + `")]`)
		}
	}
	return b.String()
}

func isNameChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '$' || r == '@'
}

type pathParser struct {
	src string
	pos int
}

func (p *pathParser) fail(what string) error {
	return fmt.Errorf("jwt-role-claim-key: %s at character %d of %q", what, utf8.RuneCountInString(p.src[:p.pos])+1, p.src)
}

func (p *pathParser) eat(prefix string) bool {
	if strings.HasPrefix(p.src[p.pos:], prefix) {
		p.pos += len(prefix)
		return true
	}
	return false
}

func (p *pathParser) spaces() {
	for p.pos < len(p.src) && p.src[p.pos] == ' ' {
		p.pos++
	}
}

func (p *pathParser) step() (step, error) {
	switch {
	case p.eat("."):
		if p.pos < len(p.src) && p.src[p.pos] == '"' {
			text, err := p.quoted()
			return step{kind: stepKey, key: text}, err
		}
		start := p.pos
		for p.pos < len(p.src) && isNameChar(rune(p.src[p.pos])) {
			p.pos++
		}
		if p.pos == start {
			return step{}, p.fail(`expected a claim name or a "quoted name" after '.'`)
		}
		return step{kind: stepKey, key: p.src[start:p.pos]}, nil
	case p.eat("[?("):
		return p.filter()
	case p.eat("["):
		start := p.pos
		for p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
			p.pos++
		}
		if p.pos == start {
			return step{}, p.fail("expected an array index (digits) or a filter [?(...)] after '['")
		}
		n, err := strconv.Atoi(p.src[start:p.pos])
		if err != nil {
			p.pos = start
			return step{}, p.fail("array index out of range")
		}
		if !p.eat("]") {
			return step{}, p.fail("expected ']' after the array index")
		}
		return step{kind: stepIndex, index: n}, nil
	}
	return step{}, p.fail("expected '.' or '['")
}

// filter reads `@ op "text")]`, after "[?(".
func (p *pathParser) filter() (step, error) {
	p.spaces()
	if !p.eat("@") {
		return step{}, p.fail("expected '@' in the filter")
	}
	p.spaces()
	st := step{kind: stepFilter}
	found := false
	for _, f := range filterOps {
		if p.eat(f.spelling) {
			st.op, found = f.op, true
			break
		}
	}
	if !found {
		return step{}, p.fail("expected one of == != ^== ==^ *== in the filter")
	}
	p.spaces()
	if p.pos >= len(p.src) || p.src[p.pos] != '"' {
		return step{}, p.fail(`expected a "quoted text" in the filter`)
	}
	text, err := p.quoted()
	if err != nil {
		return step{}, err
	}
	st.key = text
	p.spaces()
	if !p.eat(")]") {
		return step{}, p.fail("expected ')]' to close the filter")
	}
	return st, nil
}

// quoted reads "text" with no escapes, as PostgREST does: the text runs to
// the next double quote.
func (p *pathParser) quoted() (string, error) {
	open := p.pos
	end := strings.IndexByte(p.src[open+1:], '"')
	if end < 0 {
		return "", p.fail("unterminated quoted text")
	}
	p.pos = open + 1 + end + 1
	return p.src[open+1 : open+1+end], nil
}

// lookup follows the path through the claims, given as the top-level
// members already decoded. ok is false when some step finds nothing: a
// missing member, an index past the end, no matching element, or a value
// of the wrong shape for the step.
func (c ClaimPath) lookup(top map[string]json.RawMessage) (json.RawMessage, bool) {
	if len(c.steps) == 0 || c.steps[0].kind != stepKey {
		return nil, false // the claims are an object: only a member step applies
	}
	cur, ok := top[c.steps[0].key]
	for _, s := range c.steps[1:] {
		if !ok {
			return nil, false
		}
		cur, ok = s.apply(cur)
	}
	return cur, ok
}

func (s step) apply(v json.RawMessage) (json.RawMessage, bool) {
	switch s.kind {
	case stepKey:
		var obj map[string]json.RawMessage
		if len(v) == 0 || v[0] != '{' || json.Unmarshal(v, &obj) != nil {
			return nil, false
		}
		m, ok := obj[s.key]
		return m, ok
	case stepIndex:
		var arr []json.RawMessage
		if len(v) == 0 || v[0] != '[' || json.Unmarshal(v, &arr) != nil || s.index >= len(arr) {
			return nil, false
		}
		return arr[s.index], true
	default:
		var arr []json.RawMessage
		if len(v) == 0 || v[0] != '[' || json.Unmarshal(v, &arr) != nil {
			return nil, false
		}
		for _, e := range arr {
			var text string
			if len(e) > 0 && e[0] == '"' && json.Unmarshal(e, &text) == nil && s.matches(text) {
				return e, true
			}
		}
		return nil, false
	}
}

// matches compares only string elements: a filter never picks a number or
// an object, so != cannot hand a non-string to the role.
func (s step) matches(text string) bool {
	switch s.op {
	case opEquals:
		return text == s.key
	case opNotEquals:
		return text != s.key
	case opStartsWith:
		return strings.HasPrefix(text, s.key)
	case opEndsWith:
		return strings.HasSuffix(text, s.key)
	default:
		return strings.Contains(text, s.key)
	}
}
