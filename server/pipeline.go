package server

import (
	"errors"
	"net/http"
	"strings"
	"sync"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/observe"
	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/server/shapes"
)

// The pipeline: every request of the API, whatever its kind, goes through
// pipeline, which tells its story once, as PostgREST's App does: parse,
// authenticate, plan, build, transaction, respond, each stage a call into
// the package that does it, and timed here (Server-Timing). What differs
// between kinds of request (a read, a write, a call, the root) is a route
// (exchange.go): how to plan and build it, in the file of its kind below
// (read.go, write.go, call.go, root.go). What it builds is an action: its
// transaction's set-up, its statements and its answer.

// serve takes r through the pipeline as a request of route rt for
// target, and answers it.
func serve[P any](s *Server, w http.ResponseWriter, r *http.Request, rt *route[P], target string) {
	x := exchanges.Get().(*exchange)
	x.w, x.r, x.snap, x.obs = w, r, s.snapshots.Current(), observe.Of(w)
	if err := pipeline(s, x, rt, target); err != nil {
		x.obs.Refused(err)
		if x.sink.Started() {
			// The header has left: the body can only be cut.
			s.cutStream(x, err)
		}
		s.writeError(w, err)
	}
	x.sink.Release()
	if x.linesSlot != nil {
		<-x.linesSlot // the slow client's session a JSON Lines body held
	}
	x.res.Release()
	if x.insertKey != nil {
		x.insertKey.Done()
	}
	// Keep no request alive in the pool; the function values stay.
	*x = exchange{sinkRow: x.sinkRow, sinkRewind: x.sinkRewind, resScan: x.resScan}
	exchanges.Put(x)
}

// exchanges recycles exchanges: the routes' stages reach one through
// function values and interfaces, which would move it to the heap for
// every request.
var exchanges = sync.Pool{New: func() any {
	x := new(exchange)
	x.sinkRow, x.sinkRewind, x.resScan = x.sink.Row, x.sink.Rewind, x.res.Scan
	return x
}}

// pipeline is serve's story, up to the answer or the error to send. A GET
// or HEAD of a shape seen before skips parse, plan and build: the shape
// cache binds its values into the statements kept for its shape; it is
// authenticated and runs as any other. An insert of a shape seen before
// skips them too, in steps: its parse is found by its head (parse), and
// its plan and statement by its body's keys once the body is read
// (write.go).
func pipeline[P any](s *Server, x *exchange, rt *route[P], target string) error {
	var act action
	var stmts shapes.Stmts // built, or bound from the kept shape
	var req *request.Request
	// Parse (or find the kept shape).
	if rt.cached {
		if t := shapes.Template(x.r, rt.kind, target); t != nil {
			defer shapes.Done(t)
			x.template = t
			act, stmts = s.cached(x, rt.part, t)
		}
	}
	if act == nil {
		var err error
		if req, err = parse(s, x, rt, target); err != nil {
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
		p, err := rt.plan(s, x, req)
		if err != nil {
			return err
		}
		if act, stmts, err = rt.build(s, x, req, p); err != nil {
			return err
		}
		s.keepShape(x, rt.part, act)
	}

	// The transaction: its set-up, then its one round trip.
	if err := act.begin(s, x); err != nil {
		return err
	}
	x.obs.TransactionStart()
	err = act.run(s, x, stmts)
	x.obs.TransactionDone()
	if err != nil {
		plan.AdviseStale(x.snap, s.refresh, err)
		return err
	}
	// Respond.
	return act.respond(s, x)
}

// parse parses x's request as one of route rt for target, and refuses
// what the limits refuse (refuse). A request of a shape whose parse the
// route keeps (an insert's, by its head) is found rather than parsed: it
// is what parsing it makes, and was refused nothing when it was kept by
// this Server, whose limits it was checked against.
func parse[P any](s *Server, x *exchange, rt *route[P], target string) (*request.Request, error) {
	t0 := x.obs.StageStart()
	if rt.parsed != nil {
		if req := rt.parsed(s, x, target); req != nil {
			x.obs.ParseDone(t0)
			return req, nil
		}
	}
	req, err := request.Parse(s.names, x.r, rt.kind, target)
	x.obs.ParseDone(t0)
	if err != nil {
		return nil, err
	}
	if err := s.refuse(x, rt.precheck, req); err != nil {
		return nil, err
	}
	if rt.keepParsed != nil {
		rt.keepParsed(s, x, target)
	}
	return req, nil
}

// refuse refuses, before authentication, a parsed request larger than
// the configured limits (request-max-*), one for the plan media type
// while it is not on offer, and what the route's precheck refuses.
func (s *Server) refuse(x *exchange, precheck func(*Server, *exchange, *request.Request) error, req *request.Request) error {
	if err := req.CheckLimits(s.limits); err != nil {
		return err
	}
	if err := s.refusePlan(x.r, req); err != nil {
		return err
	}
	if precheck != nil {
		return precheck(s, x, req)
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
	return apierr.UnsupportedMediaType(s.names, strings.Join(r.Header.Values("Accept"), ", "))
}

// cutStream ends x's response, whose header has left, after err: the
// connection is closed without the last chunk (http.ErrAbortHandler), so
// the client sees the body incomplete. The log says why, unless the
// client left.
func (s *Server) cutStream(x *exchange, err error) {
	slow, timeout, sessions := x.sink.Slow()
	switch {
	case slow:
		s.log.Info("a streamed answer's client read too slowly: it did not take a chunk within server-stream-send-timeout, "+
			"or lagged behind while every session slow clients may hold (half of db-pool) was taken; the response is cut, "+
			"so that it holds no database session", "method", x.r.Method, "path", x.r.URL.Path,
			"timeout", timeout.String(), "slow sessions", sessions)
	case errors.Is(err, dbexec.ErrClientGone):
		s.log.Debug("a streamed answer's client left before its end")
	default:
		s.log.Error("a streamed answer failed after its header was sent; the response is cut",
			"method", x.r.Method, "path", x.r.URL.Path, "error", err)
	}
	x.sink.Release()
	x.res.Release()
	panic(http.ErrAbortHandler)
}
