package shapes

import (
	"sync/atomic"
	"unsafe"

	"github.com/svc-dev/svc/server/plan"
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

// Insert is what is kept of an insert shape: its plan and its statement,
// the body taken out of both (query.Statement.WriteShape): a later insert
// of the shape takes a copy of the plan with its own body, and binds the
// body into the statement, skipping planning and building.
type Insert struct {
	Stmt query.Statement
	// Plan has no Payload, and shares no memory with the request it was
	// planned for (request.WriteShape).
	Plan *plan.Write
	// planBytes estimates what Plan holds, taken once.
	planBytes int
}

// NewInsert returns the shape of an insert of plan p and statement st,
// both kept already. texts is the length of the copied texts p was
// planned from (request.WriteShape): a string of the plan may be a slice
// of one, which it keeps alive whole, so they are counted whole as well as
// what the plan reaches (Heap).
func NewInsert(st query.Statement, p *plan.Write, texts int) *Insert {
	return &Insert{Stmt: st, Plan: p, planBytes: Heap(p) + query.Allocated(texts)}
}

// Kept is the shape itself: NewInsert takes it kept.
func (w *Insert) Kept() Shape { return w }

// Bytes estimates the memory w holds.
func (w *Insert) Bytes() int { return int(unsafe.Sizeof(*w)) + w.Stmt.Bytes() + w.planBytes }

// InsertRequest is what is kept of an insert's head (request.WriteHead):
// the request parsed, which a later insert of the head reads rather than
// parsing its own. It is never planned, so nothing writes to it.
type InsertRequest struct {
	Req *request.Request
	// bytes estimates what Req holds, taken once.
	bytes int
	// allowed is the role last found allowed the write (Allow).
	allowed atomic.Pointer[string]
}

// Allowed reports whether role was the last found allowed the write
// (Allow). Whether a role may write depends on the request, the role and
// the snapshot, and a kept shape is found under its own snapshot only: a
// later insert of the head by the same role need not be checked again.
func (w *InsertRequest) Allowed(role string) bool {
	p := w.allowed.Load()
	return p != nil && *p == role
}

// Allow notes that role was found allowed the write.
func (w *InsertRequest) Allow(role string) { w.allowed.Store(&role) }

// NewInsertRequest returns the shape of an insert's head parsed into req,
// from copied texts of length texts (request.WriteShape), of which its
// strings may be slices (NewInsert).
func NewInsertRequest(req *request.Request, texts int) *InsertRequest {
	return &InsertRequest{Req: req, bytes: Heap(req) + query.Allocated(texts)}
}

// Kept is the shape itself: NewInsertRequest takes it kept.
func (w *InsertRequest) Kept() Shape { return w }

// Bytes estimates the memory w holds.
func (w *InsertRequest) Bytes() int { return int(unsafe.Sizeof(*w)) + w.bytes }
