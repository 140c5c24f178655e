package request

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/svc-dev/svc/server/apierr"
)

// errInvalidJSON is PostgREST's message for any body that is not rows.
const errInvalidJSON = "Empty or invalid json"

// jsonPayload checks a JSON body: an object or an array of objects; with
// uniform set, every object must have the same keys. The body is sent on
// as it is; what is learnt from it (the keys, the rows, the first row)
// comes from its bytes as they are checked (an object's keys) or walked
// once checked (an array's), so no value is decoded and nothing is
// allocated per row.
func jsonPayload(body []byte, uniform bool) (*Payload, error) {
	trimmed := bytes.TrimSpace(body)
	var room [16]keySpan // most objects have fewer keys
	keys := keySpans{w: &jsonWalk{src: trimmed}, spans: room[:0]}
	var key func(start, end int, escaped bool)
	if uniform && len(trimmed) > 0 && trimmed[0] == '{' {
		key = func(start, end int, escaped bool) { keys = keys.add(start, end, escaped) }
	}
	if len(trimmed) == 0 || !validJSON(trimmed, key) {
		return nil, apierr.InvalidBody(errInvalidJSON, "")
	}
	switch trimmed[0] {
	case '{':
		p := &Payload{JSON: trimmed, Rows: 1, First: trimmed}
		if uniform {
			p.Keys = keys.sorted()
		}
		return p, nil
	case '[':
		return jsonRows(trimmed, uniform)
	}
	// A scalar, or a string holding JSON: rows must be sent as objects.
	return nil, apierr.InvalidBody(errInvalidJSON, "the body must be a JSON object or an array of objects")
}

// errKeysMismatch is PostgREST's wording for rows of different keys, and
// for an element that is no object and so has no keys to match.
func errKeysMismatch() error { return apierr.InvalidBody("All object keys must match", "") }

// jsonRows checks the elements of a JSON array: objects (or null, a row
// without keys), all with the first one's keys when uniform.
func jsonRows(array []byte, uniform bool) (*Payload, error) {
	p := &Payload{JSON: array, Array: true}
	w := &jsonWalk{src: array, pos: 1}
	var seen []bool // which of p.Keys the current row has given
	for w.space(); w.src[w.pos] != ']'; {
		start := w.pos
		switch c := w.src[w.pos]; {
		case c == 'n': // null
			w.pos += len("null")
			if p.Rows > 0 && uniform && len(p.Keys) > 0 {
				return nil, errKeysMismatch()
			}
		case c != '{':
			return nil, errKeysMismatch()
		case p.Rows == 0:
			if uniform {
				p.Keys = w.firstKeys()
				seen = make([]bool, len(p.Keys))
			} else {
				w.skip()
			}
		case uniform:
			if !w.sameKeys(p.Keys, seen) {
				return nil, errKeysMismatch()
			}
		default:
			w.skip()
		}
		if p.Rows == 0 {
			p.First = array[start:w.pos]
			if uniform && p.Keys == nil {
				p.Keys = []string{}
			}
		}
		p.Rows++
		w.space()
		if w.src[w.pos] == ',' {
			w.pos++
			w.space()
		}
	}
	return p, nil
}

// jsonWalk steps through JSON text that validJSON has accepted, so it
// checks nothing the grammar already guarantees.
type jsonWalk struct {
	src []byte
	pos int
	// decoded holds the last key that had escapes, decoded.
	decoded []byte
}

func (w *jsonWalk) space() {
	for w.pos < len(w.src) && isJSONSpace(w.src[w.pos]) {
		w.pos++
	}
}

// str passes the string starting at pos and returns where its contents
// (escapes undecoded) start and end, and whether it has any escape.
func (w *jsonWalk) str() (start, end int, escaped bool) {
	start = w.pos + 1
	for i := start; ; i++ {
		switch w.src[i] {
		case '\\':
			escaped = true
			i++
		case '"':
			w.pos = i + 1
			return start, i, escaped
		}
	}
}

// skip passes the value starting at pos. A compound value is passed by
// counting brackets; strings inside it are passed whole, so brackets in
// them do not count.
func (w *jsonWalk) skip() {
	switch w.src[w.pos] {
	case '"':
		w.str()
		return
	case '{', '[':
	default: // a number, true, false or null
		for w.pos < len(w.src) && !strings.ContainsRune(",]} \t\n\r", rune(w.src[w.pos])) {
			w.pos++
		}
		return
	}
	depth := 0
	for {
		switch w.src[w.pos] {
		case '"':
			w.str()
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				w.pos++
				return
			}
		}
		w.pos++
	}
}

// members calls member for each member of the object starting at pos,
// with the key's span in src and whether it must be decoded (escapes,
// invalid UTF-8); member must pass
// the value, which starts at pos. members leaves pos after the object.
func (w *jsonWalk) members(member func(start, end int, escaped bool)) {
	w.pos++ // '{'
	w.space()
	for w.src[w.pos] != '}' {
		start, end, escaped := w.str()
		escaped = mustDecode(w.src[start:end], escaped)
		w.space()
		w.pos++ // ':'
		w.space()
		member(start, end, escaped)
		w.space()
		if w.src[w.pos] == ',' {
			w.pos++
			w.space()
		}
	}
	w.pos++
}

// mustDecode reports whether a key, its bytes in the text and whether
// they hold an escape, must be decoded to be read: encoding/json reads
// invalid UTF-8 as U+FFFD, and so must a key.
func mustDecode(key []byte, escaped bool) bool { return escaped || !utf8.Valid(key) }

// key returns a key given by its span: its bytes in src, or decoded from
// its escapes into w.decoded, valid until the next escaped key.
func (w *jsonWalk) key(start, end int, escaped bool) []byte {
	if !escaped {
		return w.src[start:end]
	}
	var s string
	json.Unmarshal(w.src[start-1:end+1], &s) // valid JSON: it decodes
	w.decoded = append(w.decoded[:0], s...)
	return w.decoded
}

// firstKeys returns the keys of the object at pos, sorted, each once, and
// passes the object.
func (w *jsonWalk) firstKeys() []string {
	var room [16]keySpan
	keys := keySpans{w: w, spans: room[:0]}
	w.members(func(start, end int, escaped bool) {
		keys = keys.add(start, end, escaped)
		w.skip()
	})
	return keys.sorted()
}

// keySpans gathers an object's keys as offsets until the end, so that an
// object of many repeated keys costs eight bytes a key rather than a
// string each, and the keys kept are slices of one string: an object's
// keys cost two allocations, however many there are.
type keySpans struct {
	w     *jsonWalk // the object's text, and what decodes a key
	spans []keySpan
	// decoded holds the keys that had escapes, decoded, end to end.
	decoded []byte
}

type keySpan struct{ start, end uint32 }

// inDecoded marks a span in keySpans.decoded rather than in the text.
const inDecoded = 1 << 31

// add returns k with the key of a member, given as members gives it. A
// value rather than a pointer's target is updated, so that the spans'
// first array stays on the caller's stack.
func (k keySpans) add(start, end int, escaped bool) keySpans {
	if escaped {
		key := k.w.key(start, end, escaped)
		k.spans = append(k.spans, keySpan{uint32(len(k.decoded)) | inDecoded, uint32(len(k.decoded)+len(key)) | inDecoded})
		k.decoded = append(k.decoded, key...)
		return k
	}
	k.spans = append(k.spans, keySpan{uint32(start), uint32(end)})
	return k
}

func (k keySpans) text(s keySpan) []byte {
	if s.start&inDecoded != 0 {
		return k.decoded[s.start&^inDecoded : s.end&^inDecoded]
	}
	return k.w.src[s.start:s.end]
}

// sorted returns the keys taken, sorted, each once. An object has few
// keys, so they are sorted by insertion (slices.SortFunc's calls through
// its comparison cost an insert more than the rest of the sort).
func (k keySpans) sorted() []string {
	spans := k.spans
	if len(spans) > 12 {
		slices.SortFunc(spans, func(a, b keySpan) int { return bytes.Compare(k.text(a), k.text(b)) })
	} else {
		for i := 1; i < len(spans); i++ {
			for j := i; j > 0 && bytes.Compare(k.text(spans[j]), k.text(spans[j-1])) < 0; j-- {
				spans[j], spans[j-1] = spans[j-1], spans[j]
			}
		}
	}
	spans = slices.CompactFunc(spans, func(a, b keySpan) bool { return bytes.Equal(k.text(a), k.text(b)) })
	total := 0
	for _, s := range spans {
		total += len(k.text(s))
	}
	var all strings.Builder
	all.Grow(total)
	for _, s := range spans {
		all.Write(k.text(s))
	}
	whole := all.String()
	keys := make([]string, len(spans))
	at := 0
	for i, s := range spans {
		n := len(k.text(s))
		keys[i] = whole[at : at+n]
		at += n
	}
	return keys
}

// sameKeys reports whether the object at pos has exactly keys (sorted,
// distinct), each any number of times, and passes it. seen has one flag
// per key and is left cleared when it answers true.
func (w *jsonWalk) sameKeys(keys []string, seen []bool) bool {
	ok, found := true, 0
	w.members(func(start, end int, escaped bool) {
		if ok {
			key := w.key(start, end, escaped)
			i, hit := slices.BinarySearchFunc(keys, key, compareText)
			switch {
			case !hit:
				ok = false
			case !seen[i]:
				seen[i] = true
				found++
			}
		}
		w.skip()
	})
	if !ok || found != len(keys) {
		return false
	}
	// Clearing costs len(keys) only after a row that had them all: a row
	// that fails ends the walk.
	clear(seen)
	return true
}

// compareText compares a string with bytes, converting neither.
func compareText(s string, b []byte) int {
	for i := 0; i < len(s) && i < len(b); i++ {
		if s[i] != b[i] {
			return int(s[i]) - int(b[i])
		}
	}
	return len(s) - len(b)
}
