package request

import (
	"encoding/binary"
	"errors"
	"net/http"
	"slices"
	"strings"
)

// Template is the shape of a read: everything Parse takes from the
// request except its filters' operands and its function arguments.
// Those travel as bind parameters and never change the statement, so two
// reads with the same Key parse, plan and build to the same statement but
// for the values bound from their parameters (Filter.Slot and Pair.Slot
// say which). Reading a template costs a fraction of Parse: select lists,
// orders and the Accept and Prefer headers enter the key as text,
// unparsed.
type Template struct {
	// Key identifies the shape. It is reused by the next Read.
	Key []byte
	// Filters holds, at Slot-1, the filter each query parameter makes
	// when it makes one; other parameters leave a zero Filter there.
	Filters []Filter
	pairs   []Pair
}

// Read fills t from a GET or HEAD of target, a relation or a function (by
// kind), and reports whether the request has a template. Some have none:
// those with logic trees, whose operands sit inside a structure Read does
// not take apart; those with a pair that cannot be read; and reads of
// relations with a filter that does not parse (Parse reports its error).
func (t *Template) Read(r *http.Request, kind Kind, target string) bool {
	t.Key, t.Filters, t.pairs = t.Key[:0], t.Filters[:0], t.pairs[:0]
	if !t.readPairs(r.URL.RawQuery) {
		return false
	}
	t.Key = append(t.Key, byte(kind))
	t.text(r.Method)
	t.text(target)
	t.Key = appendHeaders(t.Key, r.Header)
	for i, p := range t.pairs {
		t.text(p.Key)
		var f Filter
		switch path, param, class := classify(p.Key); {
		case class == paramLogic:
			return false
		case class == paramFilter && kind == KindFunction && path == "":
			// An argument or a filter, as MayBeFilter decides (planning
			// too). As an argument its value binds whole; as a filter it
			// must parse, and its shape is keyed as any filter's is.
			var err error
			if !MayBeFilter(p.Value) {
				// Most arguments: told apart without building the
				// error parseFilter would.
				err = errNotFilter
			} else {
				f, err = parseFilter(param, p.Value)
			}
			if err != nil {
				f = Filter{}
				t.Key = append(t.Key, 2)
				break
			}
			f.Slot = i + 1
			t.filterShape(&f)
		case class == paramFilter:
			var err error
			if f, err = parseFilter(param, p.Value); err != nil {
				return false
			}
			f.Slot = i + 1
			t.filterShape(&f)
		default:
			// Parsed whole from the same text, these come out the same.
			t.text(p.Value)
		}
		t.Filters = append(t.Filters, f)
	}
	return true
}

// errNotFilter marks a value MayBeFilter rules out.
var errNotFilter = errors.New("not a filter")

// MayBeFilter reports whether a function call's query parameter value is
// a filter rather than an argument, by PostgREST's rule: it starts with
// an operator and a dot (`gt.2`, `in.(1,2)`, `is.null`), with `not.`, or
// with a modified operator (`fts(english).`, `eq(any).`). Any other value
// is an argument, whatever the parameter's name: `?id=5&id=gt.2` passes
// id 5 and filters the result on id > 2.
func MayBeFilter(v string) bool {
	head, _, dotted := strings.Cut(v, ".")
	if !dotted {
		return false
	}
	if head == "not" {
		return true
	}
	if i := strings.IndexByte(head, '('); i >= 0 {
		head = head[:i]
	}
	_, ok := operators[head]
	return ok
}

// Value returns the value of the query parameter in slot (see Pair.Slot),
// or "" and false when there is none.
func (t *Template) Value(slot int) (string, bool) {
	if slot < 1 || slot > len(t.pairs) {
		return "", false
	}
	return t.pairs[slot-1].Value, true
}

// readPairs splits the query string and orders its pairs as Parse does
// (queryPairs). A pair that cannot be read gives false: Parse reports it.
func (t *Template) readPairs(raw string) bool {
	var err error
	t.pairs, err = queryPairs(t.pairs, raw)
	return err == nil
}

// filterShape adds what of f the statement depends on: everything but the
// operand, which is shape only for `is` (it picks the SQL written).
func (t *Template) filterShape(f *Filter) {
	neg := byte(0)
	if f.Negate {
		neg = 1
	}
	t.Key = append(t.Key, neg)
	t.text(f.Op)
	t.text(f.Quantifier)
	t.text(f.Language)
	if f.Op == "is" {
		t.text(f.Value)
	}
}

// text adds s to the key (appendText).
func (t *Template) text(s string) { t.Key = appendText(t.Key, s) }

// appendText appends s to a key, length first, so no two sequences of
// texts make the same key.
func appendText(key []byte, s string) []byte {
	key = binary.AppendUvarint(key, uint64(len(s)))
	return append(key, s...)
}

// parsedHeader is one of the headers Parse reads.
type parsedHeader int

const (
	headerAccept parsedHeader = iota
	headerAcceptProfile
	headerContentProfile
	headerPrefer
	headerRange
	parsedHeaderCount
)

// parsedHeaders are the headers Parse reads, and it reads them only
// through headerValues and headerValue: a request's shape (Template.Read,
// WriteKey) holds their values as text, so a header Parse reads is one
// the key holds. TestHeadersReadAreKeyed keeps the package to it. The
// names are canonical, so they index the header map as they are
// (TestParsedHeadersCanonical).
var parsedHeaders = [parsedHeaderCount]string{headerAccept: "Accept", headerAcceptProfile: "Accept-Profile",
	headerContentProfile: "Content-Profile", headerPrefer: "Prefer", headerRange: "Range"}

// headerValues returns the values of parsed header h in r.
func headerValues(r *http.Request, h parsedHeader) []string { return r.Header[parsedHeaders[h]] }

// headerValue returns the first value of parsed header h in r.
func headerValue(r *http.Request, h parsedHeader) string {
	return FieldValue(r.Header, parsedHeaders[h])
}

// FieldValue returns the first value of the field named name in h, as
// Header.Get does, for a name already canonical: Get canonicalises the
// name it is given on every call, which cost a request more than the
// lookup.
func FieldValue(h http.Header, name string) string {
	if vs := h[name]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// appendHeaders appends to a key the values of parsedHeaders in h. A
// header of fewer fields than there are parsed headers is walked rather
// than each name looked up: a lookup hashes the name, and most requests
// carry two or three fields.
func appendHeaders(key []byte, h http.Header) []byte {
	var found [parsedHeaderCount][]string
	if len(h) < int(parsedHeaderCount) {
		for name, vs := range h {
			if i := slices.Index(parsedHeaders[:], name); i >= 0 {
				found[i] = vs
			}
		}
	} else {
		for i, name := range parsedHeaders {
			found[i] = h[name]
		}
	}
	for _, vs := range found {
		key = binary.AppendUvarint(key, uint64(len(vs)))
		for _, v := range vs {
			key = appendText(key, v)
		}
	}
	return key
}
