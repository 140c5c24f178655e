package request

import (
	"slices"
	"strings"
)

// CanonicalURL renders path and a query string for Content-Location: the
// pairs decoded, sorted by name (the order among equal names kept), and
// each name and value percent-encoded again, every byte but ASCII
// letters, digits and -_.~ escaped. Two URLs that ask for the same thing
// in a different order then have one canonical form, and it asks for that
// same thing: a name given twice stays twice (id=gte.1&id=lte.9), where
// PostgREST joins the values under one name (id=gte.1,lte.9), a filter
// the URL grammar refuses. Without pairs, or with a query string Parse
// refuses, it is path alone.
func CanonicalURL(path, raw string) string {
	var stack [16]Pair // most reads have a few parameters: no allocation for them
	pairs, err := appendPairs(stack[:0], raw)
	if err != nil {
		return path
	}
	slices.SortStableFunc(pairs, func(a, b Pair) int { return strings.Compare(a.Key, b.Key) })
	return canonicalURL(path, raw, pairs)
}

// CanonicalURL is CanonicalURL(path, raw) for raw, the query string t
// was read from, rendered from the pairs Read took apart and sorted
// already, rather than parsing raw again.
func (t *Template) CanonicalURL(path, raw string) string { return canonicalURL(path, raw, t.pairs) }

// CanonicalTarget is t.CanonicalURL(path, raw) for a request whose target
// (path and query string as sent) is target: target itself when it is
// that URL already, as a lookup's usually is, so that rendering it costs
// nothing.
func (t *Template) CanonicalTarget(path, raw, target string) string {
	if isCanonical(raw, t.pairs) && len(target) == len(path)+1+len(raw) &&
		target[:len(path)] == path && target[len(path)] == '?' && target[len(path)+1:] == raw {
		return target
	}
	return canonicalURL(path, raw, t.pairs)
}

// isCanonical reports whether raw is what canonicalURL renders of pairs,
// those of raw sorted: each pair in turn, nothing escaped.
func isCanonical(raw string, pairs []Pair) bool {
	if len(pairs) == 0 {
		return false
	}
	rest := raw
	for i, p := range pairs {
		if i > 0 {
			if rest == "" || rest[0] != '&' {
				return false
			}
			rest = rest[1:]
		}
		n := len(p.Key) + 1 + len(p.Value)
		if len(rest) < n || !unreserved(p.Key) || !unreserved(p.Value) ||
			rest[:len(p.Key)] != p.Key || rest[len(p.Key)] != '=' || rest[len(p.Key)+1:n] != p.Value {
			return false
		}
		rest = rest[n:]
	}
	return rest == ""
}

// unreserved reports whether appendEscaped writes s as it is.
func unreserved(s string) bool {
	for i := 0; i < len(s); i++ {
		if !unreservedByte(s[i]) {
			return false
		}
	}
	return true
}

// canonicalURL renders path and pairs, those of query string raw sorted
// by name, for CanonicalURL: path alone without pairs.
func canonicalURL(path, raw string, pairs []Pair) string {
	if len(pairs) == 0 {
		return path
	}
	var b strings.Builder
	b.Grow(len(path) + 1 + len(raw) + len(raw)/2)
	b.WriteString(path)
	b.WriteByte('?')
	for i, p := range pairs {
		if i > 0 {
			b.WriteByte('&')
		}
		appendEscaped(&b, p.Key)
		b.WriteByte('=')
		appendEscaped(&b, p.Value)
	}
	return b.String()
}

// appendEscaped writes s percent-encoded, as Haskell's urlEncode does:
// upper-case hex for every byte outside the unreserved set.
func appendEscaped(b *strings.Builder, s string) {
	const hex = "0123456789ABCDEF"
	from := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if unreservedByte(c) {
			continue
		}
		// The run of unreserved bytes before c goes out whole.
		b.WriteString(s[from:i])
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
		from = i + 1
	}
	b.WriteString(s[from:])
}

// unreservedByte reports whether c is one of URLs' unreserved bytes, which
// appendEscaped leaves as they are.
func unreservedByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~'
}
