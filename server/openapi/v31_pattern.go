package openapi

import (
	"strings"
	"unicode/utf8"
)

// ecmaPattern returns a regular expression in the ECMA-262 syntax JSON
// Schema's pattern uses that matches exactly the strings PostgreSQL's
// regular expression re (an ARE, as `~` reads it) matches, when re keeps
// to what both read alike: literal characters, escaped punctuation,
// bracket classes of characters and ranges, groups, alternation, the
// anchors ^ and $, and the quantifiers * + ? {n} {n,} {n,m}. Anything
// else (\d and \w, which follow the locale in PostgreSQL and not in
// ECMA-262; negated classes; back references; lookahead; embedded
// options) gives false, and the check is left to the database.
//
// "." is written [\s\S] before * or +: PostgreSQL's dot matches a
// newline and ECMA-262's does not. Elsewhere it is refused, as are
// characters outside the Basic Multilingual Plane, since a validator
// without Unicode mode counts them as two.
func ecmaPattern(re string) (string, bool) {
	var out strings.Builder
	// quantifiable says the last item was an atom a quantifier may follow.
	quantifiable := false
	for i := 0; i < len(re); {
		r, size := utf8.DecodeRuneInString(re[i:])
		if r == utf8.RuneError || r > 0xFFFF {
			return "", false
		}
		switch {
		case r == '\\':
			if i+1 >= len(re) || !strings.ContainsRune(`^$\.*+?()[]{}|/`, rune(re[i+1])) {
				return "", false
			}
			out.WriteString(re[i : i+2])
			i += 2
			quantifiable = true
			continue
		case r == '^' || r == '$' || r == '|':
			quantifiable = false
		case r == '(':
			if strings.HasPrefix(re[i:], "(?") {
				return "", false
			}
			quantifiable = false
		case r == ')':
			quantifiable = true
		case r == '.':
			if i+1 >= len(re) || (re[i+1] != '*' && re[i+1] != '+') {
				return "", false
			}
			out.WriteString(`[\s\S]`)
			i++
			quantifiable = true
			continue
		case r == '[':
			n, ok := bracketLen(re[i:])
			if !ok {
				return "", false
			}
			out.WriteString(re[i : i+n])
			i += n
			quantifiable = true
			continue
		case r == '*' || r == '+' || r == '?':
			if !quantifiable {
				return "", false
			}
			quantifiable = false
		case r == '{':
			n, ok := boundLen(re[i:])
			if !ok || !quantifiable {
				return "", false
			}
			out.WriteString(re[i : i+n])
			i += n
			quantifiable = false
			continue
		case r == ']' || r == '}':
			return "", false
		default:
			quantifiable = true
		}
		out.WriteString(re[i : i+size])
		i += size
	}
	return out.String(), true
}

// bracketLen is the length of the bracket class opening s: literal
// characters and ranges, "-" only first or last. "^" first (negation),
// "]" first, "[" (PostgreSQL's [:alpha:] and kin) and backslashes are
// read differently by the two syntaxes, so they are refused.
func bracketLen(s string) (int, bool) {
	var members []rune
	i := 1
	for {
		if i >= len(s) {
			return 0, false
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == ']' && len(members) > 0:
			return i + 1, rangesValid(members)
		case r == utf8.RuneError || r > 0xFFFF || r == '\\' || r == '[' || r == ']' || (r == '^' && i == 1):
			return 0, false
		}
		members = append(members, r)
		i += size
	}
}

// rangesValid checks a class's members: a "-" inside is a range between
// its neighbours, in order, neither of them a "-" or part of another
// range.
func rangesValid(m []rune) bool {
	for j := 1; j < len(m)-1; j++ {
		if m[j] != '-' {
			continue
		}
		if m[j-1] == '-' || m[j+1] == '-' || m[j-1] > m[j+1] {
			return false
		}
		if j+2 < len(m)-1 && m[j+2] == '-' {
			return false // a-b-c
		}
		j++
	}
	return true
}

// boundLen is the length of the bound {n}, {n,} or {n,m} opening s, n
// and m decimal (at most three digits, as PostgreSQL allows up to 255).
func boundLen(s string) (int, bool) {
	end := strings.IndexByte(s, '}')
	if end < 0 {
		return 0, false
	}
	body := s[1:end]
	lo, hi, comma := strings.Cut(body, ",")
	digits := func(d string) bool {
		return d != "" && len(d) <= 3 && strings.Trim(d, "0123456789") == ""
	}
	if !digits(lo) || (comma && hi != "" && !digits(hi)) {
		return 0, false
	}
	return end + 1, true
}
