package server

import (
	"net/http"
	"strings"
	"sync"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/observe"
	"github.com/svc-dev/svc/server/openapi"
	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/server/shapes"
	"github.com/svc-dev/svc/snapshot"
)

// The pipeline: every request of the API, whatever its kind, goes through
// pipeline, which tells its story once, as PostgREST's App does: parse,
// authenticate, plan, build, transaction, respond, each stage a call into
// the package that does it, and timed here (Server-Timing). What differs
// between kinds of request (a read, a write, a call, the root) is a route:
// how to plan and build it. What it builds is an action: its
// transaction's set-up, its statements and its answer.

// route is what one kind of request plugs into the pipeline; P is its
// plan.
type route[P any] struct {
	kind request.Kind
	// cached is set when the shape cache keeps the shapes of the route's
	// GET and HEAD requests, in part (server/shapes).
	cached bool
	part   shapes.Part
	// precheck, when set, refuses what the parsed request asks before it
	// is authenticated: what needs no role to be wrong.
	precheck func(x *exchange, req *request.Request) error
	// plan resolves the parsed request against the snapshot for the
	// authenticated role (package plan), reading the body where there is
	// one.
	plan func(x *exchange, req *request.Request) (P, error)
	// build turns the plan into its action (package query), the
	// statements into x.stmts.
	build func(x *exchange, req *request.Request, p P) (action, error)
}

// action is a request planned and built: what its transaction needs,
// the statements it runs and the answer. A shape the shape cache keeps is
// one too, run with the statements bound to each request (x.stmts).
type action interface {
	// begin readies the transaction x.tx (transaction.go).
	begin(s *Server, x *exchange) error
	// run is the transaction: its statements' one round trip (transact),
	// or the root's document.
	run(s *Server, x *exchange) error
	// respond answers from what the transaction returned (x.res).
	respond(s *Server, x *exchange) error
}

// exchange is one request on its way through the pipeline.
type exchange struct {
	w    http.ResponseWriter
	r    *http.Request
	snap *snapshot.Snapshot
	// tx is the request's transaction context, built by the pipeline.
	tx dbexec.Tx
	// template is the request's shape (keepShape), nil when it has none.
	template *request.Template
	// schema is what the root's precheck selected.
	schema string
	// obs is what the observer learns of the request (observe.go); nil
	// when it is served unobserved.
	obs *observe.Observation
	// stmts are the request's statements: built, or bound from its kept
	// shape.
	stmts shapes.Stmts
	// applied are the preferences the transaction's set-up applied.
	applied appliedPrefs
	// res and explain are what the statements returned: the main one's
	// result, and the planner's count when a read asks for one.
	res     dbexec.Result
	explain []byte
	// doc is the root's document, which its transaction finds, and body
	// the document when held whole.
	doc  openapi.Doc
	body []byte
	// sink joins the rows of a streamed read (stream.go).
	sink rowSink
	// lines is an insert's JSON Lines body, read as it runs (linesbody.go).
	lines *linesBody
	// stepBuf holds the steps, so that listing them allocates nothing.
	stepBuf [2]dbexec.Step
}

// transact runs steps, the main statement last, as x's transaction, on
// the primary or a replica (server/txroute), in one round trip.
func (s *Server) transact(x *exchange, steps []dbexec.Step) error {
	if len(steps) > 0 {
		x.obs.Statement(steps[len(steps)-1].Stmt.SQL) // the main one
	}
	return s.txs.Execute(x.w, x.r, x.tx, steps)
}

// serve takes r through the pipeline as a request of route rt for
// target, and answers it.
func serve[P any](s *Server, w http.ResponseWriter, r *http.Request, rt *route[P], target string) {
	x := exchanges.Get().(*exchange)
	*x = exchange{w: w, r: r, snap: s.snapshots.Current(), obs: observe.Of(r.Context())}
	if err := pipeline(s, x, rt, target); err != nil {
		x.obs.Refused(err)
		if x.sink.started {
			// The header has left: the body can only be cut.
			s.cutStream(x, err)
		}
		writeError(w, s.log, err)
	}
	x.sink.release()
	x.lines.release()
	x.res.Release()
	*x = exchange{} // keep no request alive in the pool
	exchanges.Put(x)
}

// exchanges recycles exchanges: the routes' stages reach one through
// function values and interfaces, which would move it to the heap for
// every request.
var exchanges = sync.Pool{New: func() any { return new(exchange) }}

// pipeline is serve's story, up to the answer or the error to send. A GET
// or HEAD of a shape seen before skips parse, plan and build: the shape
// cache binds its values into the statements kept for its shape; it is
// authenticated and runs as any other.
func pipeline[P any](s *Server, x *exchange, rt *route[P], target string) error {
	var act action
	var req *request.Request
	// Parse (or find the kept shape).
	if rt.cached {
		if t := shapes.Template(x.r, rt.kind, target); t != nil {
			defer shapes.Done(t)
			x.template = t
			act = s.cached(x, rt.part, t)
		}
	}
	if act == nil {
		t0 := x.obs.StageStart()
		var err error
		req, err = request.Parse(x.r, rt.kind, target)
		x.obs.ParseDone(t0)
		if err != nil {
			return err
		}
		if err := s.refuse(x, rt.precheck, req); err != nil {
			return err
		}
	}

	// Authenticate.
	t0 := x.obs.StageStart()
	id, err := s.authenticate(x.r)
	x.obs.JWTDone(t0)
	if err != nil {
		return err
	}
	if x.tx, err = s.txContext(x.r, x.snap, id); err != nil {
		return err
	}

	// Plan and build.
	if act == nil {
		p, err := rt.plan(x, req)
		if err != nil {
			return err
		}
		if act, err = rt.build(x, req, p); err != nil {
			return err
		}
		s.keepShape(x, rt.part, act)
	}

	// The transaction: its set-up, then its one round trip.
	if err := act.begin(s, x); err != nil {
		return err
	}
	x.obs.TransactionStart()
	err = act.run(s, x)
	x.obs.TransactionDone()
	if err != nil {
		plan.AdviseStale(x.snap, s.refresh, err)
		return err
	}
	// Respond.
	return act.respond(s, x)
}

// refuse refuses, before authentication, a parsed request larger than
// the configured limits (request-max-*), one for the plan media type
// while it is not on offer, and what the route's precheck refuses.
func (s *Server) refuse(x *exchange, precheck func(*exchange, *request.Request) error, req *request.Request) error {
	if err := req.CheckLimits(s.limits); err != nil {
		return err
	}
	if err := s.refusePlan(x.r, req); err != nil {
		return err
	}
	if precheck != nil {
		return precheck(x, req)
	}
	return nil
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
