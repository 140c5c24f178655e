package request

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/svc-dev/svc/server/apierr"
)

// Query strings and form bodies are split here, once, for Parse, Template
// and the form payloads alike, the way PostgREST splits them (http-types'
// parseQuery): pairs end at '&' or ';', '+' is a space, and a '%' not
// followed by two hex digits stays a literal '%'. net/url refuses a pair
// holding ';' or a bad escape, and its callers dropped the refused pair:
// a filter the client wrote would vanish and a PATCH or DELETE reach every
// row. Here no pair is ever dropped; the one thing that cannot be read, a
// key or value that is not UTF-8 once decoded, refuses the request.

// pairError names the pair of a query string or form body that cannot be
// read, as the client sent it.
type pairError struct {
	pair   string
	reason string
}

func (e *pairError) Error() string { return "cannot read " + e.pair + ": " + e.reason }

// queryError is the SVC100 a query string's unreadable pair answers.
func queryError(e *pairError) error {
	return apierr.ParseError("failed to parse query parameter ("+e.pair+")", e.reason)
}

// appendPairs appends the pairs of raw, a query string or a form body, to
// dst in the order they come. Empty pairs ("a=1&&b=2") hold nothing and are
// skipped; a pair without '=' is a key with an empty value.
func appendPairs(dst []Pair, raw string) ([]Pair, *pairError) {
	for raw != "" {
		var pair string
		if i := strings.IndexAny(raw, "&;"); i >= 0 {
			pair, raw = raw[:i], raw[i+1:]
		} else {
			pair, raw = raw, ""
		}
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		k, v = unescapeQuery(k), unescapeQuery(v)
		if !utf8.ValidString(k) {
			return dst, &pairError{pair, "the name is not UTF-8 once percent-decoded"}
		}
		if !utf8.ValidString(v) {
			return dst, &pairError{pair, "the value is not UTF-8 once percent-decoded"}
		}
		dst = append(dst, Pair{Key: k, Value: v})
	}
	return dst, nil
}

// queryPairs appends the pairs of the query string raw to dst in the order
// Parse reads them: by key, a repeated key's values in the order sent. The
// SQL text then depends on the request's shape only, not on the order its
// parameters came in.
func queryPairs(dst []Pair, raw string) ([]Pair, error) {
	start := len(dst)
	dst, perr := appendPairs(dst, raw)
	if perr != nil {
		return dst, queryError(perr)
	}
	slices.SortStableFunc(dst[start:], func(a, b Pair) int { return strings.Compare(a.Key, b.Key) })
	return dst, nil
}

// unescapeQuery decodes one key or value: '+' is a space, %XX the byte it
// names, and any other '%' itself. Text with neither comes back as is,
// without allocating.
func unescapeQuery(s string) string {
	i := strings.IndexAny(s, "%+")
	if i < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	b = append(b, s[:i]...)
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c == '+':
			b = append(b, ' ')
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}
