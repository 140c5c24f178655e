package apierr

import (
	"strings"

	"golang.org/x/net/http/httpguts"
)

// proxyStatus renders the Proxy-Status value naming code (RFC 9209): the
// product, and the code as the error parameter. Proxy-Status is a
// structured field (RFC 8941), so the code goes bare only where it reads
// back as itself: a token (SVC202, PT402, P0001) or an integer without a
// leading zero (42703, or a function's custom 123), as PostgREST writes
// them. Any other code, a SQLSTATE such as 22P02 or 08006 or whatever a
// function raised, goes as a quoted string, in which a byte a string
// cannot hold (a control character, or outside ASCII) becomes '?': the
// body has the code as it is.
func proxyStatus(product, code string) string {
	if isToken(code) || isPlainInteger(code) {
		return product + "; error=" + code
	}
	var b strings.Builder
	b.Grow(len(product) + len(code) + 12)
	b.WriteString(product)
	b.WriteString(`; error="`)
	for i := 0; i < len(code); i++ {
		switch c := code[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c > 0x7e:
			b.WriteByte('?')
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// isToken reports whether s is an sf-token: a letter or '*', then tchars,
// ':' or '/'.
func isToken(s string) bool {
	if s == "" || !(s[0] == '*' || 'a' <= s[0] && s[0] <= 'z' || 'A' <= s[0] && s[0] <= 'Z') {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !httpguts.IsTokenRune(rune(s[i])) && s[i] != ':' && s[i] != '/' {
			return false
		}
	}
	return true
}

// isPlainInteger reports whether s is an sf-integer (at most 15 digits)
// that a parser gives back as s: no sign, no leading zero.
func isPlainInteger(s string) bool {
	if s == "" || len(s) > 15 || len(s) > 1 && s[0] == '0' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
