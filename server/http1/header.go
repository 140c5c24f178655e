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
// few headers more than writing them does. valid, when not nil, holds
// names found valid before, by length, so that the few names a server
// answers with are checked once per connection rather than per answer.
// The fields set apart from the map (SetField) follow, those of a name
// the map holds left out.
func appendHeader(dst []byte, h http.Header, date string, length int64, valid *validNames, apart []field) []byte {
	// The values are taken with their keys: looking each key up again
	// after sorting cost more than the sort.
	var room [16]headerField
	fields := room[:0]
	for k, v := range h {
		fields = append(fields, headerField{k, v, namePrefix(k)})
	}
	if date != "" {
		fields = append(fields, headerField{key: "Date", prefix: namePrefix("Date")})
	}
	if length >= 0 {
		fields = append(fields, headerField{key: "Content-Length", prefix: namePrefix("Content-Length")})
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
		if !valid.name(k) {
			continue
		}
		for _, v := range f.values {
			dst = appendField(dst, k, v)
		}
	}
	// The map's keys gathered above are compared with each field's name,
	// rather than each name looked up in the map, which hashes it.
	for _, a := range apart {
		if !inFields(fields, a.name) {
			dst = appendField(dst, a.name, a.value)
		}
	}
	return dst
}

// inFields reports whether one of fields is named name.
func inFields(fields []headerField, name string) bool {
	for i := range fields {
		if fields[i].key == name {
			return true
		}
	}
	return false
}

// validNames holds header names found valid, each in the slot of its
// length, for one connection's answers.
type validNames [16]string

// name reports whether k is a header name a client can read
// (httpguts.ValidHeaderFieldName), remembering it when it is. Comparing
// k with the name remembered costs one comparison of addresses when it
// is the same string, as a server's constant names are.
func (v *validNames) name(k string) bool {
	if v == nil {
		return httpguts.ValidHeaderFieldName(k)
	}
	slot := &v[len(k)%len(v)]
	if *slot == k && k != "" {
		return true
	}
	if !httpguts.ValidHeaderFieldName(k) {
		return false
	}
	*slot = k
	return true
}

// sortFields appends to order the indexes of fields in the order of
// their keys. For the few keys of an answer it sorts by insertion, which
// costs a fraction of slices.SortFunc's calls; and moving an index costs
// less than moving a field. Keys are compared by their first eight bytes
// first, which tells most of a server's names apart.
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
		for j := i; j > 0 && fields[order[j]].less(&fields[order[j-1]]); j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	return order
}

// headerField is one key of a header with its values.
type headerField struct {
	key    string
	values []string
	prefix uint64 // namePrefix(key)
}

// less reports whether f's key sorts before g's.
func (f *headerField) less(g *headerField) bool {
	if f.prefix != g.prefix {
		return f.prefix < g.prefix
	}
	return f.key < g.key
}

// namePrefix is the first eight bytes of k as a big-endian number,
// padded with zeros: two keys whose prefixes differ sort as their
// prefixes do.
func namePrefix(k string) uint64 {
	if len(k) >= 8 {
		return uint64(k[0])<<56 | uint64(k[1])<<48 | uint64(k[2])<<40 | uint64(k[3])<<32 |
			uint64(k[4])<<24 | uint64(k[5])<<16 | uint64(k[6])<<8 | uint64(k[7])
	}
	var p uint64
	for i := range 8 {
		p <<= 8
		if i < len(k) {
			p |= uint64(k[i])
		}
	}
	return p
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
