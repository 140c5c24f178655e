package shapes

import (
	"unsafe"

	"github.com/svc-dev/svc/server/query"
	"github.com/svc-dev/svc/server/request"
)

// Stmts are a request's statements: bound to its values, or, in a kept
// shape, with the values taken out.
type Stmts struct {
	Main query.Statement
	// Count is the planner's estimate of the row count, when a read asks
	// for one.
	Count *query.Statement
}

// Shape returns b with the values taken out, and false when the
// statements serve their own request only.
func (b Stmts) Shape() (Stmts, bool) {
	main, ok := b.Main.Shape()
	if !ok {
		return Stmts{}, false
	}
	kept := Stmts{Main: main}
	if b.Count != nil {
		count, ok := b.Count.Shape()
		if !ok {
			return Stmts{}, false
		}
		kept.Count = &count
	}
	return kept, true
}

// Bind returns kept statements b with the values of the request t is the
// template of, and false if they do not fit.
func (b Stmts) Bind(t *request.Template) (Stmts, bool) {
	main, ok := b.Main.Bind(t)
	if !ok {
		return Stmts{}, false
	}
	out := Stmts{Main: main}
	if b.Count != nil {
		count, ok := b.Count.Bind(t)
		if !ok {
			return Stmts{}, false
		}
		out.Count = &count
	}
	return out, true
}

// Bytes estimates the memory b holds once kept.
func (b Stmts) Bytes() int {
	n := b.Main.Bytes()
	if b.Count != nil {
		n += b.Count.Bytes()
	}
	return n
}

// Insert is the kept statement of an insert shape, its body taken out
// (query.Statement.WriteShape): a later insert of the shape binds its
// own body into it.
type Insert struct{ Stmt query.Statement }

// Kept is the shape itself: WriteShape has taken its values out.
func (w *Insert) Kept() Shape { return w }

// Bytes estimates the memory w holds.
func (w *Insert) Bytes() int { return int(unsafe.Sizeof(*w)) + w.Stmt.Bytes() }
