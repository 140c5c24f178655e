package http1

import (
	"net/http"
	"slices"
	"strconv"

	"golang.org/x/net/http/httpguts"
)

// appendHeader appends h as header lines, as http.Header.Write writes
// them: keys in order, a field name no client could read dropped, line
// breaks in a value made spaces and the value trimmed; date, unless "",
// is written as the Date field h does not hold, and length, unless
// negative, as its Content-Length field. It does that work without
// Header.Write's pooled sorter and replacer, which cost a response of a
// few headers more than writing them does.
func appendHeader(dst []byte, h http.Header, date string, length int64) []byte {
	var room [16]string
	keys := room[:0]
	for k := range h {
		keys = append(keys, k)
	}
	if date != "" {
		keys = append(keys, "Date")
	}
	if length >= 0 {
		keys = append(keys, "Content-Length")
	}
	slices.Sort(keys)
	for _, k := range keys {
		switch {
		case k == "Date" && date != "":
			dst = appendField(dst, k, date)
			continue
		case k == "Content-Length" && length >= 0:
			dst = append(dst, "Content-Length: "...)
			dst = strconv.AppendInt(dst, length, 10)
			dst = append(dst, "\r\n"...)
			continue
		}
		if !httpguts.ValidHeaderFieldName(k) {
			continue
		}
		for _, v := range h[k] {
			dst = appendField(dst, k, v)
		}
	}
	return dst
}

// appendField appends the header line of name k and value v.
func appendField(dst []byte, k, v string) []byte {
	dst = append(dst, k...)
	dst = append(dst, ": "...)
	dst = appendFieldValue(dst, v)
	return append(dst, "\r\n"...)
}

// appendFieldValue appends v with CR and LF made spaces and the ASCII
// space around it trimmed, as net/http does.
func appendFieldValue(dst []byte, v string) []byte {
	start, end := 0, len(v)
	for start < end && isFieldSpace(v[start]) {
		start++
	}
	for end > start && isFieldSpace(v[end-1]) {
		end--
	}
	// Most values hold no line break: they are copied whole.
	from := start
	for i := start; i < end; i++ {
		if c := v[i]; c == '\r' || c == '\n' {
			dst = append(append(dst, v[from:i]...), ' ')
			from = i + 1
		}
	}
	return append(dst, v[from:end]...)
}

// isFieldSpace is textproto's ASCII space, which net/http trims from a
// written value; CR and LF count, since they become spaces.
func isFieldSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// fieldValue returns the first value of the field named name, which must be
// canonical, in h: Header.Get without canonicalising a name that is.
func fieldValue(h http.Header, name string) string {
	if v := h[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}
