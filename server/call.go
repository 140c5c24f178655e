package server

import (
	"net/http"
	"strings"
	"unsafe"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/query"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/server/shapes"
	"github.com/svc-dev/svc/snapshot"
)

// callRoute is a call of a function (/rpc/<function>, and GET / with
// db-root-spec), whose GET and HEAD shapes are kept.
var callRoute = route[callPlan]{kind: request.KindFunction, cached: true, part: shapes.Calls,
	plan: (*Server).planCall, build: (*Server).buildCall}

// callPlan is a call planned, and whether its transaction only reads
// and a replica may serve it, which its plan decides and its
// transaction's shape (txShape) carries on.
type callPlan struct {
	*plan.Call
	readOnly, reads bool
}

// planCall plans a call of a function, parsed; GET / with db-root-spec
// comes here too. A POST's body is read here, once the role is known to
// be allowed the call.
func (s *Server) planCall(x *exchange, req *request.Request) (callPlan, error) {
	r, tx := x.r, &x.tx
	var args *request.Payload
	var raw []byte
	var err error
	var readOnly bool
	media := "application/json"
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		readOnly = true
	case http.MethodPost:
		if s.preRequest == nil {
			// As for writes (refuseWrite): a call the role may not make
			// is refused before its body is read.
			if err := plan.CallRefused(req, x.snap, s.planning, tx.Role, tx.Authenticated); err != nil {
				return callPlan{}, err
			}
		}
		if args, raw, media, err = request.CallBody(x.w, r, s.bodyLimits); err != nil {
			return callPlan{}, err
		}
	default:
		return callPlan{}, apierr.UnsupportedRPCMethod(r.Method)
	}
	c, err := plan.BuildCall(req, args, raw, media, x.snap, s.planning)
	if err != nil {
		return callPlan{}, err
	}
	return callPlan{Call: c, readOnly: readOnly, reads: s.callReads(x.snap, readOnly, c.Function)}, nil
}

// buildCall builds the statement of call c; for the plan media type, its
// EXPLAIN for the media type named in `for`.
func (s *Server) buildCall(x *exchange, req *request.Request, cp callPlan) (action, shapes.Stmts, error) {
	c := cp.Call
	e := s.newCallEntry(req, c)
	e.readOnly, e.reads = cp.readOnly, cp.reads
	if req.Media.Kind == request.MediaPlan {
		return explainOf(e.txShape, c, req.Media), shapes.Stmts{}, nil
	}
	e.stmts = shapes.Stmts{Main: query.Call(c)}
	return e, e.stmts, nil
}

// callEntry is the action of a call of one shape. The one kept for a
// shape (see Kept), of a GET or HEAD, holds none of the values of the
// request it was made for.
type callEntry struct {
	entry
	returns snapshot.ReturnShape
	// rows answers a result read as rows; nil for one value.
	rows *rowsReply
	// single is set when the call must return exactly one row: a single
	// object was asked for and the function returns something.
	single bool
	// stable is set when the function is not VOLATILE.
	stable bool
	// media is the negotiated representation of one value.
	media request.Media
}

// newCallEntry describes call c for req, without its statement, which
// the caller adds.
func (s *Server) newCallEntry(req *request.Request, c *plan.Call) *callEntry {
	e := &callEntry{entry: entry{txShape: s.newTxShape(req.Prefer, c.Function.Schema)}, returns: c.Function.Returns,
		single: req.Media.Kind == request.MediaObject && c.Function.Returns != snapshot.ReturnsVoid,
		stable: c.Function.Volatility != snapshot.Volatile, media: req.Media}
	if c.ReturnsRows() {
		rep := newRowsReply(c.Read)
		e.rows = &rep
	}
	return e
}

func (e *callEntry) Kept() shapes.Shape {
	base, ok := e.entry.keep()
	if !ok {
		return nil
	}
	kept := *e
	kept.entry = base
	shapes.Detach(&kept.media)
	if e.rows != nil {
		rows := *e.rows
		shapes.Detach(&rows.media)
		kept.rows = &rows
	}
	return &kept
}

func (e *callEntry) begin(s *Server, x *exchange) error {
	if err := s.readyTx(x, &e.txShape); err != nil {
		return err
	}
	x.tx.Check = callChecks(e, x.tx.ReadOnly, &x.res)
	// A VOLATILE function may act outside the transaction (a sequence, a
	// message to another server), which a rollback does not undo.
	x.tx.OutsideEffects = !e.stable
	return nil
}

func (e *callEntry) run(s *Server, x *exchange, stmts shapes.Stmts) error {
	var row dbexec.RowFunc
	if e.rows != nil && e.rows.streamed {
		row = s.streamRows(x, e, e.rows.frame, e.rows.head)
	} else {
		row = x.resScan
	}
	x.stepBuf[0] = dbexec.Step{Stmt: stmts.Main, Row: row}
	return s.transact(x, x.stepBuf[:1])
}

// StreamHeader sets the header of the call's rows when they stream.
func (e *callEntry) StreamHeader(x *exchange, res *dbexec.Result) (int, error) {
	return rowsHeader(x, e.prefer, e.rows, res, x.explain, x.applied, true)
}

func (e *callEntry) respond(s *Server, x *exchange) error {
	if e.rows != nil && e.rows.streamed {
		return s.respondStreamed(x, e.prefer, e.rows)
	}
	if e.rows != nil {
		return s.respondRows(x, e.prefer, e.rows, &x.res, nil, x.applied)
	}
	if e.single && x.res.PageCount != 1 {
		return apierr.SingularityError(x.res.PageCount)
	}
	return s.respondValue(x, e.prefer, e, &x.res, x.applied)
}

// callChecks returns what must hold before a call's transaction may
// commit: one row when a single object is asked for (a call that may
// write: a read-only one has nothing to roll back, and its answer checks
// the rows after, in one round trip), and Prefer: max-affected under
// handling=strict bounding the rows a set-returning function returns.
func callChecks(e *callEntry, readOnly bool, res *dbexec.Result) func() error {
	pr := e.prefer
	setof := e.returns == snapshot.ReturnsSetOfComposite || e.returns == snapshot.ReturnsSetOfScalar
	maxAffected := setof && pr.Handling == "strict" && pr.MaxAffected != nil
	single := e.single && !readOnly
	if !maxAffected && !single {
		return nil
	}
	return func() error {
		if single && res.PageCount != 1 {
			return apierr.SingularityError(res.PageCount)
		}
		if maxAffected && res.PageCount > *pr.MaxAffected {
			return apierr.MaxAffectedExceeded(res.PageCount)
		}
		return nil
	}
}

// respondValue answers a call whose result is one JSON value: a scalar,
// or nothing (void: 204).
func (s *Server) respondValue(x *exchange, pr request.Preferences, e *callEntry, res *dbexec.Result, applied appliedPrefs) error {
	w := x.w
	status := http.StatusOK
	if e.returns == snapshot.ReturnsVoid {
		status = http.StatusNoContent
	}
	status, err := applyResponseSettings(w.Header(), res, status)
	if err != nil {
		return err
	}
	if v := preferenceApplied(pr, applied); v != "" {
		x.setDefault("Preference-Applied", v)
	}
	if status == http.StatusNoContent {
		w.WriteHeader(status)
		return nil
	}
	var total *int64
	if pr.Count == "exact" {
		total = &res.PageCount
	}
	body, err := handlerBody(e.media, res.Body)
	if err != nil {
		return err
	}
	x.setDefault("Content-Range", contentRange(0, res.PageCount, total))
	if e.media.Kind == request.MediaHandler {
		x.setDefault("Content-Type", e.media.ContentType())
	} else {
		x.setDefault("Content-Type", jsonType)
	}
	if x.r.Method == http.MethodHead {
		w.WriteHeader(status)
		return nil
	}
	writeBody(x, status, nil, body)
	return nil
}

// callReads reports whether a call of fn only reads, so that a replica
// may serve it: fn is STABLE or IMMUTABLE and, unless the call is read
// only anyway (GET, HEAD), db-pre-request's function is too.
func (s *Server) callReads(snap *snapshot.Snapshot, readOnly bool, fn *snapshot.Function) bool {
	if fn.Volatility == snapshot.Volatile {
		return false
	}
	return readOnly || s.preRequestReads(snap, fn.Schema)
}

// preRequestReads reports whether db-pre-request's function is known
// from snap not to write: none is configured, or every function of its
// name (resolved as the request's search_path would, from schema) is
// STABLE or IMMUTABLE. One outside the exposed schemas is unknown, and
// taken to write.
func (s *Server) preRequestReads(snap *snapshot.Snapshot, schema string) bool {
	name := s.cfg.DBPreRequest
	if name == "" {
		return true
	}
	schemas := append([]string{schema}, s.cfg.DBExtraSearchPath...)
	if qualifier, fn, ok := strings.Cut(name, "."); ok {
		schemas, name = []string{qualifier}, fn
	}
	for _, sc := range schemas {
		if fns := snap.Functions(snapshot.QualifiedName{Schema: sc, Name: name}); len(fns) > 0 {
			for _, fn := range fns {
				if fn.Volatility == snapshot.Volatile {
					return false
				}
			}
			return true
		}
	}
	return false
}

func (e *callEntry) Bytes() int {
	n := int(unsafe.Sizeof(*e)) + e.txShape.bytes() + shapes.Texts(&e.media) + e.stmts.Bytes()
	if e.rows != nil {
		n += int(unsafe.Sizeof(*e.rows)) + e.rows.bytes()
	}
	return n
}
