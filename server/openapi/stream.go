package openapi

import (
	"bufio"
	"encoding/json"
	"io"
	"iter"
	"slices"
	"strings"
)

// jsonStream writes a document's JSON as it goes: the parts that are
// small as encoding/json writes them, a large object entry by entry, each
// entry's value marshalled on its own, so that it holds one entry at a
// time, never the document. The bytes are those json.Marshal gives the
// whole document (an object's keys in sorted order, HTML characters
// escaped), which the tests compare.
type jsonStream struct {
	w *bufio.Writer
	// err is the first failure, after which nothing more is written.
	err error
}

// streamBuffer is what a jsonStream holds of the document before it
// writes to its destination.
const streamBuffer = 32 << 10

func newJSONStream(w io.Writer) *jsonStream {
	return &jsonStream{w: bufio.NewWriterSize(w, streamBuffer)}
}

// raw writes JSON text s.
func (s *jsonStream) raw(text string) {
	if s.err == nil {
		_, s.err = s.w.WriteString(text)
	}
}

// value writes v as json.Marshal encodes it.
func (s *jsonStream) value(v any) {
	if b := s.marshal(v); b != nil {
		_, s.err = s.w.Write(b)
	}
}

// open writes v, an object of the document's small members, leaving it
// open for the members that follow it.
func (s *jsonStream) open(v any) {
	if b := s.marshal(v); b != nil {
		_, s.err = s.w.Write(b[:len(b)-1])
	}
}

// close writes v's members, an object of the document's last members
// (those omitted when empty may leave none), and closes the object open
// wrote.
func (s *jsonStream) close(v any) {
	if b := s.marshal(v); len(b) > 2 {
		s.raw(",")
		s.raw(string(b[1 : len(b)-1]))
	}
	s.raw("}")
}

// marshal is v encoded, or nil once the stream has failed.
func (s *jsonStream) marshal(v any) []byte {
	if s.err != nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		s.err = err
		return nil
	}
	return b
}

// flush writes what the stream holds and returns its first failure.
func (s *jsonStream) flush() error {
	if s.err == nil {
		s.err = s.w.Flush()
	}
	return s.err
}

// entries are an object's entries in key order: a key, and its value
// made when it is written.
type entries = iter.Seq2[string, func() any]

// object writes member name (its "," before unless first) as an object
// whose entries come from sources, each in key order, merged as a map
// assigned source by source would hold them: on equal keys, the entry of
// the later source.
func (s *jsonStream) object(name string, first bool, sources ...entries) {
	if !first {
		s.raw(",")
	}
	s.value(name)
	s.raw(":{")
	type cursor struct {
		next  func() (string, func() any, bool)
		stop  func()
		key   string
		value func() any
		ok    bool
	}
	cs := make([]*cursor, len(sources))
	for i, src := range sources {
		c := &cursor{}
		c.next, c.stop = iter.Pull2(src)
		defer c.stop()
		c.key, c.value, c.ok = c.next()
		cs[i] = c
	}
	for n := 0; s.err == nil; n++ {
		var pick *cursor
		for _, c := range cs {
			if c.ok && (pick == nil || c.key <= pick.key) {
				pick = c
			}
		}
		if pick == nil {
			break
		}
		key := pick.key
		if n > 0 {
			s.raw(",")
		}
		s.value(key)
		s.raw(":")
		s.value(pick.value())
		for _, c := range cs {
			for c.ok && c.key == key {
				c.key, c.value, c.ok = c.next()
			}
		}
	}
	s.raw("}")
}

// fixed are the entries of a small map, in key order.
func fixed[V any](m map[string]V) entries {
	return func(yield func(string, func() any) bool) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if !yield(k, func() any { return m[k] }) {
				return
			}
		}
	}
}

// lastOfEqual passes on the entries of src, but of a run of equal keys
// only the last, as a map assigned in that order keeps.
func lastOfEqual(src entries) entries {
	return func(yield func(string, func() any) bool) {
		var key string
		var value func() any
		for k, v := range src {
			if value != nil && k != key && !yield(key, value) {
				return
			}
			key, value = k, v
		}
		if value != nil {
			yield(key, value)
		}
	}
}

// isRowFilterRef reports whether a parameter reference of the 3.1
// document names a row filter rather than a shared parameter.
func isRowFilterRef(ref string) bool {
	return strings.HasPrefix(ref, "#/components/parameters/rowFilter.")
}
