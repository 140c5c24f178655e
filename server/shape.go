package server

import (
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/server/shapes"
)

// What the shape cache (server/shapes) keeps of reads and calls: their
// transaction's shape and their statements, which a later request of
// the shape binds its values into and runs as its action.

// readShape is the shape of a read or a call, found by its template: the
// cache's Find returns one, which binds another request's values into its
// statements, and it is also the action (pipeline.go) such a request
// runs.
type readShape interface {
	shapes.Shape
	action
	// bind returns the kept statements with the values of the request t
	// is the template of, and false if they do not fit.
	bind(t *request.Template) (shapes.Stmts, bool)
}

// entry is what the shapes of reads and calls hold alike: their
// transaction's shape and their statements.
type entry struct {
	txShape
	stmts shapes.Stmts
}

func (e *entry) bind(t *request.Template) (shapes.Stmts, bool) { return e.stmts.Bind(t) }

// keep returns e with the values taken out of its statements and its
// texts copied from the request's, and false when its statements serve
// their own request only.
func (e *entry) keep() (entry, bool) {
	stmts, ok := e.stmts.Shape()
	if !ok {
		return entry{}, false
	}
	kept := entry{txShape: e.txShape, stmts: stmts}
	kept.txShape.detach()
	return kept, true
}

// cached returns the action of the kept shape, in part of the cache, of
// the request t is the template of, and its statements bound to the
// request's values; nil when no such shape is kept or the values do not
// fit it.
func (s *Server) cached(x *exchange, part shapes.Part, t *request.Template) (action, shapes.Stmts) {
	sh, ok := s.shapes.Find(x.snap, part, t.Key).(readShape)
	if !ok {
		return nil, shapes.Stmts{}
	}
	b, ok := sh.bind(t)
	if !ok {
		return nil, shapes.Stmts{}
	}
	return sh, b
}

// keepShape keeps the shape of the request, in part of the cache, when
// it has one and act is a shape, for later requests of that shape.
func (s *Server) keepShape(x *exchange, part shapes.Part, act action) {
	if x.template == nil {
		return
	}
	if sh, ok := act.(shapes.Shape); ok {
		s.shapes.Keep(x.snap, part, x.template.Key, sh)
	}
}
