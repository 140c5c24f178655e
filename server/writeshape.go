package server

import (
	"sync"
	"unsafe"

	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/query"
	"github.com/svc-dev/svc/server/request"
)

// Inserts, like reads, repeat a few shapes: the same relation, columns and
// preferences, with other values in the body. Planning one stays per
// request (it is cheap, and what answering needs); building its statement
// is not: the write shapes keep the statement of each insert shape
// (request.WriteKey) with the body taken out, and a later insert of the
// shape binds its own body into it.

// writeShape is the kept statement of an insert shape.
type writeShape struct{ stmt query.Statement }

func (w *writeShape) kept() shape { return w }

func (w *writeShape) bytes() int { return int(unsafe.Sizeof(*w)) + w.stmt.Bytes() }

// writeStatement returns the statement of write p, the plan of x's
// request req: from the kept shape of an insert seen before, its body
// bound in, or built, and its shape kept when it has one.
func (s *Server) writeStatement(x *exchange, req *request.Request, p *plan.Write) query.Statement {
	if p.Kind != plan.Insert || p.Payload == nil {
		return query.Write(p)
	}
	key := writeKeys.Get().(*[]byte)
	defer writeKeys.Put(key)
	*key = request.WriteKey((*key)[:0], x.r, req.Target, p.Payload)
	if sh, ok := s.writeShapes.find(x.snap, *key).(*writeShape); ok {
		return sh.stmt.BindPayload(p.Payload.JSON)
	}
	st := query.Write(p)
	if kept, ok := st.WriteShape(); ok {
		s.writeShapes.keep(x.snap, *key, &writeShape{kept})
	}
	return st
}

// writeKeys recycles the buffers write keys are built in.
var writeKeys = sync.Pool{New: func() any { return new([]byte) }}
