package server

import (
	"net/url"
	"unsafe"

	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/query"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/server/shapes"
)

// readRoute is a read of a relation (GET, HEAD), whose shapes are kept.
var readRoute = route[*plan.Read]{kind: request.KindRelation, cached: true, part: shapes.Reads,
	plan: (*Server).planRead, build: (*Server).buildRead}

// planRead plans a read of a relation (GET, HEAD), which only reads.
func (s *Server) planRead(x *exchange, req *request.Request) (*plan.Read, error) {
	return plan.BuildRead(req, x.snap, s.planning)
}

// buildRead builds the statements of read p: the read and, when a count
// is planned, the planner's estimate; for the plan media type, the
// EXPLAIN of the read.
func (s *Server) buildRead(x *exchange, req *request.Request, p *plan.Read) (action, shapes.Stmts, error) {
	e := s.newReadEntry(req, p)
	if p.Media.Kind == request.MediaPlan {
		return explainOf(e.txShape, p, p.Media), shapes.Stmts{}, nil
	}
	e.stmts = shapes.Stmts{Main: query.Read(p), Count: query.PlanCount(p)}
	return e, e.stmts, nil
}

// readEntry is the action of a read of one shape. The one kept for a
// shape (see Kept) holds none of the operands of the request it was made
// for.
type readEntry struct {
	entry
	reply rowsReply
}

// newReadEntry describes the read of plan p for req, without its
// statements, which the caller adds.
func (s *Server) newReadEntry(req *request.Request, p *plan.Read) *readEntry {
	e := &readEntry{entry: entry{txShape: s.newTxShape(req.Prefer, p.Relation.Schema)}, reply: newRowsReply(p)}
	// A read only reads, and a replica may serve it.
	e.readOnly, e.reads = true, true
	e.reply.location = "/" + url.PathEscape(p.Relation.Name)
	return e
}

func (e *readEntry) Kept() shapes.Shape {
	base, ok := e.entry.keep()
	if !ok {
		return nil
	}
	kept := *e
	kept.entry = base
	shapes.Detach(&kept.reply.media)
	return &kept
}

func (e *readEntry) begin(s *Server, x *exchange) error { return s.readyTx(x, &e.txShape) }

func (e *readEntry) run(s *Server, x *exchange, stmts shapes.Stmts) error {
	steps := x.stepBuf[:0]
	if stmts.Count != nil {
		steps = append(steps, dbexec.Step{Stmt: *stmts.Count, Row: dbexec.ScanOne(&x.explain)})
	}
	var row dbexec.RowFunc
	if e.reply.streamed {
		row = s.streamRows(x, e, e.reply.frame, e.reply.head)
	} else {
		row = x.resScan
	}
	return s.transact(x, append(steps, dbexec.Step{Stmt: stmts.Main, Row: row}))
}

// StreamHeader sets the header of the read's answer when it streams.
func (e *readEntry) StreamHeader(x *exchange, res *dbexec.Result) (int, error) {
	return rowsHeader(x, e.prefer, &e.reply, res, x.explain, x.applied, true)
}

func (e *readEntry) respond(s *Server, x *exchange) error {
	if e.reply.streamed {
		return s.respondStreamed(x, e.prefer, &e.reply)
	}
	return s.respondRows(x, e.prefer, &e.reply, &x.res, x.explain, x.applied)
}

func (e *readEntry) Bytes() int {
	return int(unsafe.Sizeof(*e)) + e.txShape.bytes() + e.reply.bytes() + e.stmts.Bytes()
}
