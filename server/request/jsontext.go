package request

import (
	"net/http"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// JSON texts the request hands to SQL: request.headers, request.cookies,
// and the rows a CSV body becomes. One escaper writes them all.

// jsonEscapes are the short escapes of control characters; the others
// are written \u00XX.
var jsonEscapes = [...]byte{'\b': 'b', '\t': 't', '\n': 'n', '\f': 'f', '\r': 'r'}

// appendJSONChars appends s escaped for a JSON string, without its
// quotes. Runs of characters that need no escape are copied whole; a
// byte that is not UTF-8 becomes U+FFFD, so PostgreSQL's json parser
// always accepts the result. short writes the control characters that
// have one as their short escape (\n); otherwise every control character
// is \u00XX, as request.headers has always carried them.
func appendJSONChars[T string | []byte](out []byte, s T, short bool) []byte {
	const hex = "0123456789abcdef"
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(string(s[i:]))
			if r != utf8.RuneError || n != 1 {
				i += n
				continue
			}
		}
		out = append(out, s[start:i]...)
		switch {
		case c == '"' || c == '\\':
			out = append(out, '\\', c)
		case short && int(c) < len(jsonEscapes) && jsonEscapes[c] != 0:
			out = append(out, '\\', jsonEscapes[c])
		case c < 0x20:
			out = append(out, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			out = utf8.AppendRune(out, utf8.RuneError)
		}
		i++
		start = i
	}
	return append(out, s[start:]...)
}

// appendJSONString appends s as a JSON string, its control characters
// short-escaped where they can be (appendJSONChars).
func appendJSONString(out, s []byte) []byte {
	out = append(out, '"')
	out = appendJSONChars(out, s, true)
	return append(out, '"')
}

// jsonStringSize is the length appendJSONString gives s, UTF-8.
func jsonStringSize(s []byte) int {
	n := 2 + len(s)
	for _, c := range s {
		switch {
		case c == '"' || c == '\\', int(c) < len(jsonEscapes) && jsonEscapes[c] != 0:
			n++
		case c < 0x20:
			n += 5
		}
	}
	return n
}

// HeadersJSON renders a request's headers as request.headers, as
// PostgREST 12 sets it: one JSON object of every header but Cookie (its
// values are request.cookies), names lower-cased, and host, the request's
// Host, as "host" unless it is "" (net/http keeps Host out of the header
// map); repeated headers are joined with ", " as HTTP allows. It is on
// every request's path, so it walks the header once, into a buffer on the
// stack that the headers of most requests fit, rather than lowering and
// joining each header: sizing a buffer first walked the map twice, and
// starting a walk costs more than copying the result.
func HeadersJSON(h http.Header, host string) string {
	if len(h) == 0 && host == "" {
		return "{}"
	}
	var room [512]byte
	b := append(room[:0], '{')
	if host != "" {
		b = append(b, `"host":"`...)
		b = appendJSONChars(b, host, false)
		b = append(b, '"')
	}
	for name, values := range h {
		if leftOutOfHeaders(name) {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = appendJSONName(b, name)
		b = append(b, ':', '"')
		for i, v := range values {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = appendJSONChars(b, v, false)
		}
		b = append(b, '"')
	}
	b = append(b, '}')
	return string(b)
}

// leftOutOfHeaders reports whether a header map's entry stays out of
// request.headers: Cookie, which request.cookies carries, and a Host entry,
// since the host comes from the request (HeadersJSON's host) and must not
// appear twice. The names are compared as the rendering lowers them.
func leftOutOfHeaders(name string) bool {
	return len(name) == len("cookie") && strings.EqualFold(name, "cookie") ||
		len(name) == len("host") && strings.EqualFold(name, "host")
}

// appendJSONName appends a header name as a JSON string, lower-cased as
// strings.ToLower would.
func appendJSONName(b []byte, name string) []byte {
	b = append(b, '"')
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= utf8.RuneSelf || c < 0x20 || c == '"' || c == '\\' {
			// Not a token: net/http never hands over such a name, but
			// whatever it is, it is lowered and escaped like any text.
			b = appendJSONChars(b[:len(b)-i], strings.ToLower(name), false)
			return append(b, '"')
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return append(b, '"')
}

// CookiesJSON renders the cookies of a request's Cookie header lines as
// request.cookies, read as PostgREST reads a Cookie header: split at each
// ';', the spaces before a name dropped, the name ending at the first '='
// (a part without one is a name with an empty value), the value taken as
// sent, quotes, spaces and all. A part with no name names no cookie. The
// last of several cookies with one name wins. net/http's own reading
// (Request.Cookies) drops a cookie whose value holds a space, a quote or a
// byte that is not ASCII, and unquotes a quoted one, so SQL would see other
// cookies than PostgREST hands it.
func CookiesJSON(lines []string) string {
	if len(lines) == 0 {
		return "{}"
	}
	type cookie struct{ name, value string }
	var cookies []cookie
	index := map[string]int{} // a name's place in cookies
	for _, line := range lines {
		for part := range strings.SplitSeq(line, ";") {
			name, value, _ := strings.Cut(strings.TrimLeft(part, " "), "=")
			if name == "" {
				continue
			}
			if i, seen := index[name]; seen {
				cookies[i].value = value
				continue
			}
			index[name] = len(cookies)
			cookies = append(cookies, cookie{name, value})
		}
	}
	if len(cookies) == 0 {
		return "{}"
	}
	b := []byte{'{'}
	for i, c := range cookies {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = appendJSONChars(b, c.name, false)
		b = append(b, '"', ':', '"')
		b = appendJSONChars(b, c.value, false)
		b = append(b, '"')
	}
	b = append(b, '}')
	return unsafe.String(unsafe.SliceData(b), len(b))
}
