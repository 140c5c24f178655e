package server

import (
	"net/http"
	"strings"
	"sync"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/snapshot"
)

// The pipeline: every request of the API, whatever its kind, goes through
// Server.serve, which tells its story once, as PostgREST's App does. It
// takes the snapshot in force, parses the request, refuses what is not on
// offer, builds the transaction's context (role, claims, settings); then
// the kind of request (a route) plans, builds, runs and answers it. A GET
// or HEAD of a shape seen before skips parsing and planning: the route's
// shape cache binds the request's values into the statements kept for
// its shape (shapecache.go), and the pipeline goes on from the context.

// route is what one kind of request plugs into the pipeline.
type route struct {
	kind request.Kind
	// shapes, when set, keeps the shapes of the route's GET and HEAD
	// requests.
	shapes *shapeCache
	// precheck, when set, refuses what the parsed request asks before the
	// context is built: what needs no role to be wrong.
	precheck func(x *exchange, req *request.Request) error
	// answer plans the parsed request, runs it and answers it.
	answer func(x *exchange, req *request.Request) error
}

// exchange is one request on its way through the pipeline.
type exchange struct {
	w    http.ResponseWriter
	r    *http.Request
	snap *snapshot.Snapshot
	// tx is the request's transaction context, built by the pipeline.
	tx dbexec.Tx
	// shapes and template keep the request's shape (keepShape): template
	// is nil when the request has none.
	shapes   *shapeCache
	template *request.Template
	// schema is what the root's precheck selected.
	schema string
	// obs is what the observer learns of the request (observe.go); nil
	// when it is served unobserved.
	obs *observation
}

// serve takes r through the pipeline as a request of route rt for
// target, and answers it.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, rt *route, target string) {
	x := exchanges.Get().(*exchange)
	*x = exchange{w: w, r: r, snap: s.snapshots.Current(), obs: observationOf(r.Context())}
	if err := s.pipeline(x, rt, target); err != nil {
		x.obs.refused(err)
		writeError(w, s.log, err)
	}
	*x = exchange{} // keep no request alive in the pool
	exchanges.Put(x)
}

// exchanges recycles exchanges: the routes' stages reach one through
// function values and interfaces, which would move it to the heap for
// every request.
var exchanges = sync.Pool{New: func() any { return new(exchange) }}

// pipeline is serve's story, up to the answer or the error to send.
func (s *Server) pipeline(x *exchange, rt *route, target string) error {
	if rt.shapes != nil && (x.r.Method == http.MethodGet || x.r.Method == http.MethodHead) {
		t := templates.Get().(*request.Template)
		defer templates.Put(t)
		if t.Read(x.r, rt.kind, target) {
			if kept, b, ok := rt.shapes.lookup(x.snap, t); ok {
				var err error
				if x.tx, err = s.txFor(x.obs, x.r, x.snap); err != nil {
					return err
				}
				return kept.run(s, x, b)
			}
			x.shapes, x.template = rt.shapes, t
		}
	}
	req, err := s.parseRequest(x.obs, x.r, rt.kind, target)
	if err != nil {
		return err
	}
	if err := s.refusePlan(x.r, req); err != nil {
		return err
	}
	if rt.precheck != nil {
		if err := rt.precheck(x, req); err != nil {
			return err
		}
	}
	if x.tx, err = s.txFor(x.obs, x.r, x.snap); err != nil {
		return err
	}
	return rt.answer(x, req)
}

// keepShape keeps the shape of the request, when it has one, for later
// requests of that shape.
func (x *exchange) keepShape(sh shape) {
	if x.template != nil {
		x.shapes.keep(x.snap, x.template.Key, sh)
	}
}

// refusePlan refuses the plan media type with 415 while db-plan-enabled
// is off. Plans reveal table sizes and indexes, so they are opt-in; while
// off, the plan media type is simply not on offer.
func (s *Server) refusePlan(r *http.Request, req *request.Request) error {
	if req.Media.Kind != request.MediaPlan || s.cfg.DBPlanEnabled {
		return nil
	}
	return apierr.UnsupportedMediaType(strings.Join(r.Header.Values("Accept"), ", "))
}
