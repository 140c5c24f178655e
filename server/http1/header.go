package http1

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

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
	// The values are taken with their keys: looking each key up again
	// after sorting cost more than the sort.
	var room [16]headerField
	fields := room[:0]
	for k, v := range h {
		fields = append(fields, headerField{k, v})
	}
	if date != "" {
		fields = append(fields, headerField{key: "Date"})
	}
	if length >= 0 {
		fields = append(fields, headerField{key: "Content-Length"})
	}
	var order [16]int
	for _, i := range sortFields(fields, order[:0]) {
		f := &fields[i]
		k := f.key
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
		for _, v := range f.values {
			dst = appendField(dst, k, v)
		}
	}
	return dst
}

// sortFields appends to order the indexes of fields in the order of
// their keys. For the few keys of an answer it sorts by insertion, which
// costs a fraction of slices.SortFunc's calls; and moving an index costs
// less than moving a field.
func sortFields(fields []headerField, order []int) []int {
	if len(fields) > 16 {
		slices.SortFunc(fields, func(a, b headerField) int { return strings.Compare(a.key, b.key) })
		for i := range fields {
			order = append(order, i)
		}
		return order
	}
	for i := range fields {
		order = append(order, i)
		for j := i; j > 0 && fields[order[j]].key < fields[order[j-1]].key; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	return order
}

// headerField is one key of a header with its values.
type headerField struct {
	key    string
	values []string
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
	// Most values need neither: they are copied whole.
	if n := len(v); n > 0 && !isFieldSpace(v[0]) && !isFieldSpace(v[n-1]) &&
		strings.IndexByte(v, '\n') < 0 && strings.IndexByte(v, '\r') < 0 {
		return append(dst, v...)
	}
	start, end := 0, len(v)
	for start < end && isFieldSpace(v[start]) {
		start++
	}
	for end > start && isFieldSpace(v[end-1]) {
		end--
	}
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
