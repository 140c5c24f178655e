package query

import (
	"hash/maphash"
	"slices"
	"strings"
	"unsafe"

	"github.com/svc-dev/svc/server/request"
)

// Shape returns s with the values it took from its request's query
// parameters removed, fit to keep for other requests of the same shape (see
// request.Template), and whether s can serve them at all: not when it
// binds a request value it cannot trace to a query parameter.
func (s Statement) Shape() (Statement, bool) {
	return s.keep(func(src Source) (keep, ok bool) { return src.Slot == 0, src.Slot >= 0 })
}

// WriteShape returns s, a write's statement, with its JSON body taken out
// (Source PayloadSlot), fit to keep for other writes whose request is the
// same but for the values in their bodies, and whether s can serve them:
// not when it binds another value from its request's body (a CSV body's
// header, a PATCH's object), which the body's key set does not fix. Every
// other value, query parameters' included, is kept: the caller keys the
// shape by the whole request but for the body's values.
func (s Statement) WriteShape() (Statement, bool) {
	return s.keep(func(src Source) (keep, ok bool) { return src.Slot >= 0, src.Slot >= 0 || src.Slot == PayloadSlot })
}

// keep returns s fit to keep: the values kept says to keep, copied, and
// the others taken out; false when kept says one of its values ties s to
// its own request (ok false).
func (s Statement) keep(kept func(Source) (keep, ok bool)) (Statement, bool) {
	if len(s.Sources) != len(s.Args) {
		return Statement{}, false
	}
	args := make([]any, len(s.Args))
	for i, src := range s.Sources {
		keep, ok := kept(src)
		if !ok {
			return Statement{}, false
		}
		if keep {
			args[i] = detachArg(s.Args[i])
		}
	}
	// The text and the sources are copied to their length: built by
	// appending, they may have room for as much again, which Bytes does
	// not count either.
	s.SQL, s.Args, s.Sources = strings.Clone(s.SQL), args, slices.Clone(s.Sources)
	s.Sum = SumSQL(s.SQL)
	return s, true
}

// sumSeed seeds SumSQL: sums are compared within the process only.
var sumSeed = maphash.MakeSeed()

// SumSQL hashes a statement's text for the caches keyed by it, never 0
// (Statement.Sum's "not computed"). Two texts may share a sum: a cache
// keyed by it compares the text of what it finds.
func SumSQL(sql string) uint64 {
	return max(maphash.String(sumSeed, sql), 1)
}

// detachArg copies a kept value that may share memory with its request:
// a value the shape fixes (a JSON path's key) may be a slice of the
// request's URL, and kept, it would keep the whole URL alive, which Bytes
// does not count.
func detachArg(a any) any {
	switch v := a.(type) {
	case string:
		return strings.Clone(v)
	case []byte:
		return slices.Clone(v)
	}
	return a
}

// BindPayload returns the statement a write shape (see WriteShape) makes
// for a write with body json.
func (s Statement) BindPayload(json []byte) Statement {
	args := slices.Clone(s.Args)
	for i, src := range s.Sources {
		if src.Slot == PayloadSlot {
			args[i] = json
		}
	}
	s.Args = args
	return s
}

// Sizes, in bytes, of what a kept statement holds besides its text and
// its values' bytes.
const (
	sizeStatement = int(unsafe.Sizeof(Statement{}))
	sizeArg       = int(unsafe.Sizeof(any(nil)))
	sizeSource    = int(unsafe.Sizeof(Source{}))
	// A value behind an interface is allocated on its own: a string's or
	// a slice's header, or an integer, and the bytes of a string or slice
	// in a block of their own.
	sizeString = int(unsafe.Sizeof(""))
	sizeSlice  = int(unsafe.Sizeof([]byte(nil)))
	sizeInt    = int(unsafe.Sizeof(int64(0)))
)

// Bytes estimates the memory a shape (see Shape) holds: its text, its
// arguments and where each comes from, and the values its shape fixes.
// The text may be shared with the statement prepared on the database
// connections; it is counted here all the same.
func (s Statement) Bytes() int {
	n := sizeStatement + Allocated(len(s.SQL)) + Allocated(len(s.Assert)) + Allocated(len(s.Args)*sizeArg) + Allocated(len(s.Sources)*sizeSource)
	for _, a := range s.Args {
		switch v := a.(type) {
		case nil:
		case string:
			n += sizeString + Allocated(len(v))
		case []byte:
			n += sizeSlice + Allocated(len(v))
		default:
			n += sizeInt
		}
	}
	return n
}

// Allocated is at least what Go's allocator takes for a block of n
// bytes, as the estimates of kept statements and shapes count it: a
// size class up to a fifth larger, or whole pages past 32 KiB.
func Allocated(n int) int {
	const page = 8 << 10
	if n > 32<<10 {
		return (n + page - 1) &^ (page - 1)
	}
	return n + n/4 + 16
}

// Bind returns the statement a shape (see Shape) makes for the request t
// is the template of. It reports false for a value with no slot, or a
// slot that holds no parameter or no filter where an operand is wanted:
// none comes from Shape and a template of the same shape.
func (s Statement) Bind(t *request.Template) (Statement, bool) {
	args := make([]any, len(s.Args))
	for i, src := range s.Sources {
		switch {
		case src.Slot == 0:
			args[i] = s.Args[i]
		case src.Slot < 0 || src.Slot > len(t.Filters):
			return Statement{}, false
		case src.Part == WholeValue:
			v, ok := t.Value(src.Slot)
			if !ok {
				return Statement{}, false
			}
			args[i] = v
		case t.Filters[src.Slot-1].Op == "":
			return Statement{}, false
		default:
			args[i] = OperandArg(t.Filters[src.Slot-1], src.Part)
		}
	}
	s.Args = args
	return s, true
}
